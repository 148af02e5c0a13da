package mcpapps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"hub/apps"
)

// Bounds of one exchange with an MCP server.
const (
	// DefaultTimeout bounds a listing or a read tool's call: a server that
	// starts hanging costs one turn this long, then it is known to fail.
	DefaultTimeout = 10 * time.Second
	// DefaultCallTimeout bounds a write tool's call, as a webhook's post.
	DefaultCallTimeout = apps.DefaultTimeout
	// MaxResponseBytes bounds one HTTP answer of a server.
	MaxResponseBytes = 4 << 20
)

// newHTTPClient is the client every exchange uses: the guard's transport,
// no redirects beyond apps.MaxRedirects.
func newHTTPClient(guard *apps.Guard) *http.Client {
	return &http.Client{Transport: guard.Transport(64 << 10), CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > apps.MaxRedirects {
			return fmt.Errorf("it redirected more than %d times", apps.MaxRedirects)
		}
		return nil
	}}
}

// bearer adds the connection's secret to every request of its session
// that goes to the server's own origin, and bounds every answer.
type bearer struct {
	next   http.RoundTripper
	secret string
	origin string // scheme://host[:port] of the connection's URL
}

// origin is a URL's scheme and host, what a secret is entered for.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// sameOrigin refuses a redirect to another origin: the secret was entered
// for this server only, and an added header is not stripped on a
// cross-host hop as a header of the first request is.
func sameOrigin(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if origin(req.URL) != origin(via[0].URL) {
			return errors.New("it redirected to another address; connect the address it redirects to instead")
		}
		return next(req, via)
	}
}

// boundKey holds, in a session's context, the context that bounds it. The
// SDK sends some requests on a detached context (notifications/cancelled,
// with 5 s of its own), and a failed Connect waits for them while closing;
// a request that starts after its session's bound is done is refused.
type boundKey struct{}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	if bound, ok := req.Context().Value(boundKey{}).(context.Context); ok && bound.Err() != nil {
		return nil, fmt.Errorf("the exchange with the server is over: %w", context.Cause(bound))
	}
	req = req.Clone(req.Context()) // a RoundTripper does not change its caller's request
	if b.secret != "" && origin(req.URL) == b.origin {
		req.Header.Set("Authorization", "Bearer "+b.secret)
	}
	req.Header.Set("User-Agent", "Hub (connected apps)")
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.LimitReader(resp.Body, MaxResponseBytes), resp.Body}
	return resp, nil
}

// session opens an MCP session with the server at rawURL. onToolsChanged,
// when set, keeps the server's notification stream open to hear its tools
// change.
func (c *Catalog) session(ctx context.Context, rawURL, secret string, onToolsChanged func()) (*mcp.ClientSession, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("the connection's address does not parse: %w", err)
	}
	hc := &http.Client{Transport: bearer{next: c.http.Transport, secret: secret, origin: origin(u)}, CheckRedirect: sameOrigin(c.http.CheckRedirect)}
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	if onToolsChanged != nil {
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { onToolsChanged() }
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "hub", Version: "1"}, opts)
	transport := &mcp.StreamableClientTransport{Endpoint: rawURL, HTTPClient: hc, MaxRetries: -1,
		DisableStandaloneSSE: onToolsChanged == nil, MaxEventSize: MaxResponseBytes}
	return client.Connect(context.WithValue(ctx, boundKey{}, ctx), transport, nil)
}

// reason says in a few words why an exchange failed, for the connection's
// failure (the instructions show it): never the URL, which may hold a
// secret.
func reason(ctx context.Context, err error, limit time.Duration) string {
	if why, ok := apps.BlockedReason(err); ok {
		return "Hub refused to connect to it: " + why
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("it did not answer within %s", limit)
	case errors.As(err, new(*net.OpError)):
		return "Hub could not connect to it"
	}
	return "it did not answer as an MCP server"
}

// closeSession ends a session without waiting: closing sends a DELETE a
// hanging server keeps waiting for, and no caller needs its answer.
func closeSession(cs *mcp.ClientSession) {
	go func() { _ = cs.Close() }()
}
