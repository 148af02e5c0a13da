package apps_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"hub/apps"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// wait bounds how long a test waits for something that should happen at
// once; it is a failure deadline, never a sleep.
const wait = 10 * time.Second

// app is a webhook on 127.0.0.1 that records what it received.
type app struct {
	*httptest.Server
	hits atomic.Int64
	last chan received
}

type received struct {
	method, contentType, key string
	body                     map[string]any
}

func newApp(t *testing.T, answer http.HandlerFunc) *app {
	t.Helper()
	a := &app{last: make(chan received, 16)}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "PRI" {
			// Not a post: a gRPC client redialing a port this server was
			// given after its old owner stopped (an embedded Temporal server
			// of another test process leaves such connections behind); an
			// HTTP/1 server hands the HTTP/2 preface to its handler.
			http.NotFound(w, r)
			return
		}
		a.hits.Add(1)
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		select {
		case a.last <- received{method: r.Method, contentType: r.Header.Get("Content-Type"), key: r.Header.Get("Idempotency-Key"), body: body}:
		default: // a test that does not read what arrived
		}
		if answer != nil {
			answer(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(a.Close)
	return a
}

// hostPort is the app's "127.0.0.1:port", the allowlist entry that lets a
// client reach exactly this server.
func (a *app) hostPort() string { return a.Listener.Addr().String() }

func newClient(t *testing.T, o apps.Options) *apps.Client {
	t.Helper()
	c, err := apps.New(o)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func TestPostSendsJSONWithTheIdempotencyKey(t *testing.T) {
	t.Parallel()
	a := newApp(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	c := newClient(t, apps.Options{Allow: []string{a.hostPort()}})
	resp, err := c.Post(t.Context(), a.URL+"/hooks/team", "turn_1.2.0", map[string]string{"text": "Shipped", "sentBy": "Mira"})
	require.NoError(t, err)
	require.Equal(t, apps.Response{Status: http.StatusAccepted, Body: []byte(`{"ok":true}`)}, resp)
	got := <-a.last
	require.Equal(t, received{method: "POST", contentType: "application/json", key: "turn_1.2.0",
		body: map[string]any{"text": "Shipped", "sentBy": "Mira"}}, got)

	// The same key again: an app that honours the header sees a resend.
	_, err = c.Post(t.Context(), a.URL+"/hooks/team", "turn_1.2.0", map[string]string{"text": "Shipped"})
	require.NoError(t, err)
	require.Equal(t, "turn_1.2.0", (<-a.last).key)

	require.Equal(t, 15*time.Second, apps.DefaultTimeout)
}

// Every blocked range is refused where the connection would be made:
// nothing leaves the machine. IP literals only; no DNS.
func TestPostRefusesBlockedAddresses(t *testing.T) {
	t.Parallel()
	allowed := newApp(t, nil)
	other := newApp(t, nil) // the same machine, another port: not allowed
	c := newClient(t, apps.Options{Allow: []string{allowed.hostPort()}})
	for _, tc := range []struct {
		url, what string
	}{
		{other.URL + "/hook", "a loopback address"},
		{"http://127.0.0.1:1/hook", "a loopback address"},
		{"http://10.0.0.1/hook", "a private address"},
		{"http://172.16.5.4:8080/hook", "a private address"},
		{"http://192.168.0.10/hook", "a private address"},
		{"http://169.254.169.254/latest/meta-data/", "a link-local address"},
		{"http://100.64.1.1/hook", "a carrier-grade NAT (shared) address"},
		{"http://224.0.0.251/hook", "a multicast address"},
		{"http://0.0.0.0:80/hook", "an unspecified (this-network) address"},
		{"http://255.255.255.255/hook", "a reserved address"},
		{"https://[::1]:443/hook", "a loopback address"},
		{"http://[::]/hook", "an unspecified address"},
		{"http://[fc00::1]/hook", "a unique local (private) address"},
		{"http://[fd00:ec2::254]/hook", "a unique local (private) address"},
		{"http://[fe80::1]/hook", "a link-local address"},
		{"http://[ff02::1]/hook", "a multicast address"},
		{"http://[::ffff:127.0.0.1]:" + port(other) + "/hook", "a loopback address"},
		{"http://[::ffff:a00:1]/hook", "a private address"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := c.Post(t.Context(), tc.url, "k1", map[string]string{"text": "hi"})
			require.ErrorIs(t, err, apps.ErrRefused)
			var refused *apps.RefusedError
			require.ErrorAs(t, err, &refused)
			require.Contains(t, refused.Reason, tc.what)
			require.NotContains(t, err.Error(), "/hook", "errors name the host, never the path")
		})
	}
	require.Zero(t, other.hits.Load(), "nothing reached the server that is not allowed")
	require.Zero(t, allowed.hits.Load())
}

func port(a *app) string {
	_, p, _ := net.SplitHostPort(a.hostPort())
	return p
}

func TestPostRefusesBadURLsAndKeys(t *testing.T) {
	t.Parallel()
	a := newApp(t, nil)
	c := newClient(t, apps.Options{Allow: []string{"127.0.0.0/8"}})
	for _, u := range []string{"", "not a url", "ftp://" + a.hostPort() + "/x", "file:///etc/passwd", "gopher://x", "javascript:alert(1)",
		"http://", "http:///x", "//" + a.hostPort() + "/x", "unix:///var/run/docker.sock", "http://%zz/"} {
		_, err := c.Post(t.Context(), u, "k1", map[string]string{})
		require.ErrorIs(t, err, apps.ErrRefused, "%q", u)
	}
	_, err := c.Post(t.Context(), a.URL, " ", map[string]string{})
	require.ErrorIs(t, err, apps.ErrRefused, "an outside write needs its key")
	require.Contains(t, err.Error(), "idempotency key")
	_, err = c.Post(t.Context(), a.URL, "k1", map[string]any{"bad": func() {}})
	require.ErrorIs(t, err, apps.ErrRefused, "a payload that is not JSON")
	require.Zero(t, a.hits.Load())
}

func TestAllowList(t *testing.T) {
	t.Parallel()
	a := newApp(t, nil)
	for _, allow := range []string{a.hostPort(), "127.0.0.1", "127.0.0.0/8", "10.0.0.0/8, " + a.hostPort(), "localhost:" + port(a)} {
		t.Run(allow, func(t *testing.T) {
			c := newClient(t, apps.Options{Allow: apps.AllowFromEnv(func(k string) string {
				require.Equal(t, "HUB_APPS_ALLOW", k)
				return allow
			})})
			u := a.URL
			if strings.HasPrefix(allow, "localhost") {
				u = "http://localhost:" + port(a)
			}
			_, err := c.Post(t.Context(), u, "k1", map[string]string{})
			require.NoError(t, err)
		})
	}
	// A name is checked by what it resolves to: localhost (from the hosts
	// file, not DNS) is loopback, and no allowed address lets it through.
	c := newClient(t, apps.Options{Allow: []string{"10.0.0.0/8"}})
	_, err := c.Post(t.Context(), "http://localhost:"+port(a)+"/hook", "k1", map[string]string{})
	require.ErrorIs(t, err, apps.ErrRefused)
	require.Contains(t, err.Error(), "loopback")

	_, err = apps.New(apps.Options{Allow: []string{"127.0.0.1", "http://oops"}})
	require.Error(t, err, "an entry that cannot be read is an error, not ignored")
	require.Contains(t, err.Error(), "HUB_APPS_ALLOW")
	require.Contains(t, err.Error(), "http://oops")
}

// redirector answers each path "/r/N" with a redirect to "/r/N-1" and
// "/r/0" with 200, so a test picks how many redirects a post takes.
func redirector(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if n == 0 {
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Redirect(w, r, "/r/"+strconv.Itoa(n-1), code)
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	a := newApp(t, redirector(http.StatusTemporaryRedirect))
	c := newClient(t, apps.Options{Allow: []string{a.hostPort()}})

	_, err := c.Post(t.Context(), a.URL+"/r/3", "k3", map[string]string{"text": "hi"})
	require.NoError(t, err, "three redirects are followed")
	for range 4 {
		got := <-a.last
		require.Equal(t, "POST", got.method, "a 307 keeps the method")
		require.Equal(t, "k3", got.key, "every hop carries the key")
		require.Equal(t, map[string]any{"text": "hi"}, got.body, "and the body")
	}

	_, err = c.Post(t.Context(), a.URL+"/r/4", "k4", map[string]string{})
	require.ErrorIs(t, err, apps.ErrRefused, "a fourth is refused")
	require.Contains(t, err.Error(), "more than 3")
}

func TestRedirectToABlockedAddressIsRefused(t *testing.T) {
	t.Parallel()
	other := newApp(t, nil)
	for _, target := range []string{other.URL + "/hook", "http://10.0.0.1/hook", "http://169.254.169.254/latest", "http://[::1]:" + port(other) + "/", "ftp://example.com/x"} {
		t.Run(target, func(t *testing.T) {
			a := newApp(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target, http.StatusFound)
			})
			c := newClient(t, apps.Options{Allow: []string{a.hostPort()}})
			_, err := c.Post(t.Context(), a.URL+"/hook", "k1", map[string]string{})
			require.ErrorIs(t, err, apps.ErrRefused)
			require.EqualValues(t, 1, a.hits.Load())
		})
	}
	require.Zero(t, other.hits.Load())
}

func TestStatusErrorsAndBoundedBodies(t *testing.T) {
	t.Parallel()
	a := newApp(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fail":
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("try later"))
		case "/gone":
			w.WriteHeader(http.StatusGone)
		case "/big":
			_, _ = w.Write([]byte(strings.Repeat("x", 100<<10)))
		}
	})
	c := newClient(t, apps.Options{Allow: []string{a.hostPort()}})

	resp, err := c.Post(t.Context(), a.URL+"/fail", "k1", map[string]string{})
	require.ErrorIs(t, err, apps.ErrStatus)
	var se *apps.StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, http.StatusServiceUnavailable, se.Status)
	require.Equal(t, "try later", string(se.Body))
	require.Equal(t, "127.0.0.1 answered 503 Service Unavailable", err.Error())
	require.Equal(t, http.StatusServiceUnavailable, resp.Status)

	_, err = c.Post(t.Context(), a.URL+"/gone", "k1", map[string]string{})
	require.ErrorAs(t, err, &se)
	require.Equal(t, http.StatusGone, se.Status)

	resp, err = c.Post(t.Context(), a.URL+"/big", "k1", map[string]string{})
	require.NoError(t, err)
	require.Len(t, resp.Body, apps.MaxResponseBytes, "the body is cut")
}

// stuck is an app that holds every request until the test ends, and says
// when one arrived.
func stuck(t *testing.T) (*app, chan struct{}) {
	t.Helper()
	arrived, release := make(chan struct{}, 4), make(chan struct{})
	a := newApp(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) }) // before the server closes: cleanups run last first
	return a, arrived
}

func TestNoAnswerInTimeIsAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	a, arrived := stuck(t)
	c := newClient(t, apps.Options{Allow: []string{a.hostPort()}, Timeout: 200 * time.Millisecond})
	_, err := c.Post(t.Context(), a.URL+"/hook", "k1", map[string]string{})
	require.ErrorIs(t, err, apps.ErrUnknown)
	var ue *apps.UnknownError
	require.ErrorAs(t, err, &ue)
	require.True(t, ue.Timeout)
	require.Equal(t, "127.0.0.1 did not answer within 200ms; the update may or may not have arrived", err.Error())
	select {
	case <-arrived: // the request had arrived: that is why the outcome is unknown
	case <-time.After(wait):
		t.Fatal("the request never arrived")
	}
}

func TestCancelAfterSendingIsAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	a, arrived := stuck(t)
	c := newClient(t, apps.Options{Allow: []string{a.hostPort()}})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		select {
		case <-arrived:
		case <-time.After(wait):
		}
		cancel()
	}()
	_, err := c.Post(ctx, a.URL+"/hook", "k1", map[string]string{})
	require.ErrorIs(t, err, apps.ErrUnknown)
	require.ErrorIs(t, err, context.Canceled)
	var ue *apps.UnknownError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, apps.DefaultTimeout, ue.After, "no timeout given: the default")
}

func TestNoConnectionMeansNothingWasSent(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now
	c := newClient(t, apps.Options{Allow: []string{addr}})
	_, err = c.Post(t.Context(), "http://"+addr+"/hook", "k1", map[string]string{})
	require.ErrorIs(t, err, apps.ErrUnreachable)
	require.NotErrorIs(t, err, apps.ErrUnknown)
	require.True(t, errors.Is(err, apps.ErrUnreachable) && !errors.Is(err, apps.ErrRefused))

	// A caller that has already given up sends nothing either.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	a := newApp(t, nil)
	c = newClient(t, apps.Options{Allow: []string{a.hostPort()}})
	_, err = c.Post(ctx, a.URL, "k1", map[string]string{})
	require.ErrorIs(t, err, apps.ErrUnreachable)
	require.Zero(t, a.hits.Load())
}
