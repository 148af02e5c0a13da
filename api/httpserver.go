package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Limits bound what one client can hold of an api process: a connection
// that sends nothing, trickles a body or sits idle between requests is
// closed, and the process keeps at most MaxConns connections. A zero field
// takes its default (DefaultLimits).
type Limits struct {
	// ReadHeader bounds reading a request's headers (HUB_HTTP_READ_HEADER_TIMEOUT).
	ReadHeader time.Duration
	// Body bounds reading a request's body from when Hub starts handling it
	// (HUB_HTTP_BODY_TIMEOUT); past it the answer is 400 and the connection
	// closed. A body read to its end lifts it (bodyDeadline).
	Body time.Duration
	// Idle is how long a keep-alive connection may wait for its next
	// request (HUB_HTTP_IDLE_TIMEOUT): longer than the 60 s of common load
	// balancers, so they close first and never send on a closing connection.
	Idle time.Duration
	// MaxConns caps the connections one process keeps open, event streams
	// included (HUB_HTTP_MAX_CONNS); past it a connection is answered 503
	// with Retry-After: 1 and closed, before any handler.
	MaxConns int
	// SSEKeepAlive is how often a quiet event stream sends `: keep-alive` (tests shorten it).
	SSEKeepAlive time.Duration
}

// DefaultLimits are the limits of a process that sets none.
func DefaultLimits() Limits {
	return Limits{ReadHeader: 10 * time.Second, Body: 30 * time.Second, Idle: 75 * time.Second,
		MaxConns: 4096, SSEKeepAlive: sseKeepAlive}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	return Limits{ReadHeader: orDefault(l.ReadHeader, d.ReadHeader), Body: orDefault(l.Body, d.Body), Idle: orDefault(l.Idle, d.Idle),
		MaxConns: orDefault(l.MaxConns, d.MaxConns), SSEKeepAlive: orDefault(l.SSEKeepAlive, d.SSEKeepAlive)}
}

// orDefault is v, or def when v is not above zero.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// LimitsFromEnv reads the HUB_HTTP_* limits; a value present but wrong is an error.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	l := DefaultLimits()
	for _, d := range []struct {
		name string
		into *time.Duration
	}{
		{"HUB_HTTP_READ_HEADER_TIMEOUT", &l.ReadHeader},
		{"HUB_HTTP_BODY_TIMEOUT", &l.Body},
		{"HUB_HTTP_IDLE_TIMEOUT", &l.Idle},
	} {
		v := getenv(d.name)
		if v == "" {
			continue
		}
		t, err := time.ParseDuration(v)
		if err != nil || t < time.Second || t > time.Hour {
			return Limits{}, fmt.Errorf("%s: want a duration from 1s to 1h, like 30s, not %q", d.name, v)
		}
		*d.into = t
	}
	if v := getenv("HUB_HTTP_MAX_CONNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			return Limits{}, fmt.Errorf("HUB_HTTP_MAX_CONNS: want a number from 1 to 1000000, not %q", v)
		}
		l.MaxConns = n
	}
	return l, nil
}

// HTTPServer is the api's http.Server with its limits.
type HTTPServer struct {
	*http.Server
	Limits Limits
}

// NewHTTPServer wraps h (New's router) in the server every api process runs. Serve it with
// Serve, or wrap a listener with Listener first, so the connection cap applies.
//
// No WriteTimeout: it would cut event streams, open for hours. No ReadTimeout either: a
// request's body has a read deadline of its own (bodyDeadline).
func NewHTTPServer(h http.Handler, l Limits) *HTTPServer {
	l = l.withDefaults()
	return &HTTPServer{Limits: l, Server: &http.Server{
		Handler:           l.handler(h),
		ReadHeaderTimeout: l.ReadHeader,
		IdleTimeout:       l.Idle,
	}}
}

// Listener caps the connections accepted through ln at Limits.MaxConns.
func (s *HTTPServer) Listener(ln net.Listener) net.Listener {
	return &limitListener{Listener: ln, max: int64(s.Limits.MaxConns), refusing: make(chan struct{}, maxRefusing)}
}

// Serve serves on ln with the connection cap.
func (s *HTTPServer) Serve(ln net.Listener) error { return s.Server.Serve(s.Listener(ln)) }

// handler sets each request's body deadline and hands event streams their keep-alive.
func (l Limits) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if err := rc.SetReadDeadline(time.Now().Add(l.Body)); err == nil {
				r.Body = &bodyDeadline{ReadCloser: r.Body, rc: rc, w: w}
			}
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keepAliveKey{}, l.SSEKeepAlive)))
	})
}

// bodyDeadline is a request body read under a deadline, lifted once the body is read to its
// end: net/http then reads the connection in the background (to notice a client that
// leaves), and a deadline expiring there would cancel the request's context, ending a long
// request or an event stream. A body not read to its end keeps the deadline, which then
// also bounds net/http discarding the rest.
type bodyDeadline struct {
	io.ReadCloser
	rc *http.ResponseController
	w  http.ResponseWriter
}

func (b *bodyDeadline) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		// The connection cannot carry another request after a body cut short.
		b.w.Header().Set("Connection", "close")
	}
	return n, err
}

// keepAliveKey carries Limits.SSEKeepAlive in the request's context.
type keepAliveKey struct{}

// maxRefusing bounds the connections answered 503 at once; past it one is closed unanswered.
const maxRefusing = 64

// overloaded is the whole answer to a connection over the cap, sent before reading its request.
var overloaded = func() string {
	body := `{"error":{"code":"` + codeUnavailable + `","message":"this Hub api process has as many connections open as it allows; retry in a moment"}}`
	return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}()

// limitListener accepts at most max connections at a time; it answers the
// ones over the cap itself (refuse) and keeps accepting, so the kernel's
// backlog never fills with clients left waiting.
type limitListener struct {
	net.Listener
	max      int64
	open     atomic.Int64
	refusing chan struct{} // a slot per connection being refused
	warned   atomic.Int64  // unix seconds of the last warning
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &limitedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		l.warn()
		select {
		case l.refusing <- struct{}{}:
			go func() {
				defer func() { <-l.refusing }()
				refuse(c)
			}()
		default:
			_ = c.Close()
		}
	}
}

// warn logs the cap being reached at most once a minute.
func (l *limitListener) warn() {
	now := time.Now().Unix()
	last := l.warned.Load()
	if now-last >= 60 && l.warned.CompareAndSwap(last, now) {
		slog.Warn("api connection cap reached: refusing connections with 503", "maxConns", l.max, "env", "HUB_HTTP_MAX_CONNS")
	}
}

// refuse answers 503 and closes, within a second. It reads what the client
// sent before closing, so the client gets the answer rather than a reset.
func refuse(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, overloaded); err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// limitedConn gives its slot back when closed.
type limitedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// CloseWrite keeps net/http's graceful close (a FIN first) on the wrapped TCP connection.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
