package apps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Limits of one post.
const (
	// DefaultTimeout bounds one post, redirects and the response included:
	// a webhook answers in seconds or not at all, and Apply waits for it.
	DefaultTimeout = 15 * time.Second
	// MaxRedirects is how many redirects a post follows; one more is refused.
	MaxRedirects = 3
	// MaxResponseBytes bounds how much of a webhook's acknowledgement is read.
	MaxResponseBytes = 64 << 10
)

// EnvAllow names the operator's comma-separated allowlist (Options.Allow).
const EnvAllow = "HUB_APPS_ALLOW"

// Options configure a Client.
type Options struct {
	// Allow lists what may be reached although its address is blocked
	// (parseAllowList). A host name is allowed whatever it resolves to, so
	// list names only the operator controls. Empty: only public addresses.
	Allow []string
	// Timeout bounds one post; zero means DefaultTimeout.
	Timeout time.Duration
}

// AllowFromEnv reads HUB_APPS_ALLOW as a list for Options.Allow.
func AllowFromEnv(getenv func(string) string) []string {
	var out []string
	for _, e := range strings.Split(getenv(EnvAllow), ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// Client posts JSON to connected apps. It is safe for concurrent use; make
// one per process and Close it at shutdown.
type Client struct {
	http    *http.Client
	timeout time.Duration
}

// New returns a Client; an allowlist entry it cannot read is an error.
func New(o Options) (*Client, error) {
	guard, err := NewGuard(o.Allow)
	if err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	hc := &http.Client{Transport: guard.Transport(MaxResponseBytes), Timeout: o.Timeout, CheckRedirect: checkRedirect}
	return &Client{http: hc, timeout: o.Timeout}, nil
}

// Close closes idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Response is a connected app's answer: its status and at most
// MaxResponseBytes of its body.
type Response struct {
	Status int
	Body   []byte
}

// call is the state of one Post, shared by its redirect hops through the
// request's context.
type call struct {
	// connected is set once the current hop has a connection: from then on
	// a failure has an unknown outcome. A redirect resets it.
	connected atomic.Bool
	host      string
	limit     time.Duration // the client's timeout, or the caller's sooner deadline
}

type callKey struct{}

// Post sends payload as JSON to rawURL with the Idempotency-Key header set
// to key, so an app that honours it applies a resent update once. A 2xx
// answer is success; errors are *RefusedError, *UnreachableError,
// *StatusError or *UnknownError.
func (c *Client) Post(ctx context.Context, rawURL, key string, payload any) (Response, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Response{}, &RefusedError{Reason: "the URL cannot be read"}
	}
	host := u.Hostname()
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return Response{}, &RefusedError{Host: host, Reason: "only http and https URLs are posted to"}
	case host == "":
		return Response{}, &RefusedError{Reason: "the URL names no host"}
	case strings.TrimSpace(key) == "":
		return Response{}, &RefusedError{Host: host, Reason: "an outside write needs an idempotency key"}
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return Response{}, &RefusedError{Host: host, Reason: "the update cannot be written as JSON"}
	}
	st := &call{host: host, limit: c.timeout}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < st.limit {
		st.limit = max(time.Until(d), 0)
	}
	ctx = context.WithValue(ctx, callKey{}, st)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { st.connected.Store(true) },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return Response{}, &RefusedError{Host: host, Reason: "the URL cannot be posted to"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("User-Agent", "Hub (connected apps)")

	resp, err := c.http.Do(req)
	if err != nil {
		return Response{}, classify(st, err)
	}
	defer resp.Body.Close()
	// A body cut short by the deadline still comes with a status.
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	out := Response{Status: resp.StatusCode, Body: raw}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, &StatusError{Host: resp.Request.URL.Hostname(), Status: resp.StatusCode, Body: out.Body}
	}
	return out, nil
}

// checkRedirect follows at most MaxRedirects redirects, to http(s) only;
// every hop's address is checked by the dialer like the first.
func checkRedirect(req *http.Request, via []*http.Request) error {
	st, ok := req.Context().Value(callKey{}).(*call)
	if !ok {
		st = &call{host: req.URL.Hostname()}
	}
	if len(via) > MaxRedirects {
		return &RefusedError{Host: st.host, Reason: fmt.Sprintf("it redirected more than %d times", MaxRedirects)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &RefusedError{Host: st.host, Reason: "it redirected to a URL that is not http or https"}
	}
	st.connected.Store(false)
	return nil
}

// classify turns a failed exchange into one of the typed errors.
func classify(st *call, err error) error {
	var refused *RefusedError
	if errors.As(err, &refused) {
		return refused
	}
	if why, ok := BlockedReason(err); ok {
		return &RefusedError{Host: st.host, Reason: why}
	}
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err // url.Error's text repeats the whole URL, which may hold a secret
	}
	if !st.connected.Load() {
		return &UnreachableError{Host: st.host, Err: cause}
	}
	var ne net.Error
	timeout := errors.As(err, &ne) && ne.Timeout()
	return &UnknownError{Host: st.host, Timeout: timeout, After: st.limit.Round(time.Millisecond), Err: cause}
}
