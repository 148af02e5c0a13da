package web

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"hub/apps"
)

// Limits of one page read.
const (
	// MaxPageBytes is the most of a body read; a longer one is refused,
	// not cut, so a half-read PDF is never reported as the document.
	MaxPageBytes = 10 << 20
	// MaxFetchTime bounds a read, redirects and body included.
	MaxFetchTime = 20 * time.Second
	// MaxRedirects is how many redirects a read follows.
	MaxRedirects = 5
)

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// Allow is the operator's allowlist of private addresses
	// (HUB_APPS_ALLOW); tests list 127.0.0.1.
	Allow []string
	// MaxBytes and Timeout override MaxPageBytes and MaxFetchTime (tests).
	MaxBytes int64
	Timeout  time.Duration
}

// Reader fetches public pages and PDFs and extracts their content. It is
// safe for concurrent use; make one per process and Close it at shutdown.
type Reader struct {
	http     *http.Client
	maxBytes int64
	timeout  time.Duration
}

// NewReader returns a Reader whose every connection goes through the
// private-network guard.
func NewReader(o ReaderOptions) (*Reader, error) {
	guard, err := apps.NewGuard(o.Allow)
	if err != nil {
		return nil, err
	}
	r := &Reader{maxBytes: cmp.Or(o.MaxBytes, MaxPageBytes), timeout: cmp.Or(o.Timeout, MaxFetchTime)}
	transport := guard.Transport(64 << 10)
	transport.ResponseHeaderTimeout = r.timeout
	r.http = &http.Client{Transport: transport, Timeout: r.timeout, CheckRedirect: checkRedirect}
	return r, nil
}

// Close closes idle connections.
func (r *Reader) Close() { r.http.CloseIdleConnections() }

// fetched is a page's body as it arrived.
type fetched struct {
	url         *url.URL // after redirects
	contentType string   // the media type, lower-case, without parameters
	charset     string
	body        []byte
}

// parseURL checks what the model asked to read before anything is sent.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return nil, pageErr(KindRefused, "", "the address cannot be read as a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, pageErr(KindRefused, u.Hostname(), "only http and https pages are read")
	case u.Hostname() == "":
		return nil, pageErr(KindRefused, "", "the URL names no host")
	case u.User != nil:
		return nil, pageErr(KindRefused, u.Hostname(), "Hub signs in nowhere, so a URL with a user name or password is not read")
	}
	u.Fragment = ""
	return u, nil
}

// fetch GETs a page through the guard and reads at most maxBytes of it: a
// longer body is an error.
func (r *Reader) fetch(ctx context.Context, u *url.URL) (fetched, error) {
	host := u.Hostname()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fetched{}, pageErr(KindRefused, host, "the URL cannot be fetched")
	}
	req.Header.Set("User-Agent", "Hub (reads a page for a person's question; runs no script)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.1")
	resp, err := r.http.Do(req)
	if err != nil {
		return fetched{}, r.classify(host, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	host = final.Hostname()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusProxyAuthRequired:
		return fetched{}, pageErr(KindNeedsSignIn, host, "it needs a sign-in (HTTP %d), and Hub signs in nowhere", resp.StatusCode)
	case resp.StatusCode == http.StatusForbidden:
		return fetched{}, pageErr(KindNeedsSignIn, host, "the site refused access (HTTP 403): it may need a sign-in or a browser, and Hub signs in nowhere and runs no script")
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return fetched{}, pageErr(KindStatus, host, "there is no such page (HTTP %d)", resp.StatusCode)
	case resp.StatusCode >= 300:
		return fetched{}, pageErr(KindStatus, host, "the site answered HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > r.maxBytes {
		return fetched{}, pageErr(KindTooLarge, host, "it is %s, more than the %s a page may be; nothing of it was read", size(resp.ContentLength), size(r.maxBytes))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, r.maxBytes+1))
	if err != nil {
		return fetched{}, r.classify(host, err)
	}
	if int64(len(body)) > r.maxBytes {
		return fetched{}, pageErr(KindTooLarge, host, "it is larger than the %s a page may be; reading stopped there", size(r.maxBytes))
	}
	out := fetched{url: final, body: body}
	if mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
		out.contentType, out.charset = strings.ToLower(mt), strings.ToLower(params["charset"])
	}
	if out.contentType == "" || out.contentType == "application/octet-stream" {
		out.contentType = sniff(body)
	}
	return out, nil
}

// sniff names a body's type when the site did not.
func sniff(body []byte) string {
	if bytes.HasPrefix(body, []byte("%PDF-")) {
		return "application/pdf"
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return mt
}

// checkRedirect follows at most MaxRedirects redirects, to http(s) only;
// the guard checks every hop's address.
func checkRedirect(req *http.Request, via []*http.Request) error {
	host := via[0].URL.Hostname()
	if len(via) > MaxRedirects {
		return pageErr(KindRefused, host, "it redirected more than %d times", MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return pageErr(KindRefused, host, "it redirected to an address that is not http or https")
	}
	if req.URL.User != nil {
		return pageErr(KindRefused, host, "it redirected to an address with a user name or password, and Hub signs in nowhere")
	}
	return nil
}

// classify turns a failed exchange into a PageError, never quoting the
// whole URL (its query may carry a token).
func (r *Reader) classify(host string, err error) error {
	var pe *PageError
	if errors.As(err, &pe) {
		return pe
	}
	if why, ok := apps.BlockedReason(err); ok {
		return pageErr(KindRefused, host, "%s; nothing was fetched from it", why)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return pageErr(KindUnreachable, host, "it did not answer within %s", r.timeout)
	}
	return pageErr(KindUnreachable, host, "it could not be reached (%s)", apps.NetReason(err))
}

// size writes a byte count as people read it: "10 MB", "640 KB".
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.3g MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
