package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
)

// serve runs h behind NewHTTPServer(l) on a loopback port until the test
// ends and returns its address.
func serve(t *testing.T, h http.Handler, l Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := NewHTTPServer(h, l)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		require.ErrorIs(t, <-done, http.ErrServerClosed)
	})
	return ln.Addr().String()
}

var short = Limits{ReadHeader: 300 * time.Millisecond, Body: 300 * time.Millisecond, Idle: 300 * time.Millisecond, SSEKeepAlive: 50 * time.Millisecond}

// TestEventStreamOutlivesTheReadLimits: an event stream stays open on its
// keep-alives for several times every read limit.
func TestEventStreamOutlivesTheReadLimits(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.GET("/stream", func(c *gin.Context) {
		startSSE(c)
		c.Writer.Flush()
		pumpSSE(c.Request.Context(), c, nil, func(ctx context.Context, _ func(int) error) error {
			<-ctx.Done()
			return ctx.Err()
		}, func(int) error { return nil })
	})
	addr := serve(t, r, short)
	resp, err := http.Get("http://" + addr + "/stream")
	require.NoError(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	start := time.Now()
	keepAlives := 0
	for time.Since(start) < 5*short.Body {
		require.True(t, sc.Scan(), "the stream ended after %v: %v", time.Since(start), sc.Err())
		if sc.Text() == ": keep-alive" {
			keepAlives++
		}
	}
	require.GreaterOrEqual(t, keepAlives, 10)
}

// TestLongRequestOutlivesTheBodyDeadline: a request whose body has been
// read, or that has none, keeps its context past the body deadline (an
// Apply waits for its workflow longer than that).
func TestLongRequestOutlivesTheBodyDeadline(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-r.Context().Done():
			http.Error(w, "context ended", http.StatusInternalServerError)
		case <-time.After(3 * short.Body):
			_, _ = io.WriteString(w, "ok")
		}
	})
	addr := serve(t, h, short)
	for _, body := range []io.Reader{nil, strings.NewReader(`{"a":1}`)} {
		method := "GET"
		if body != nil {
			method = "POST"
		}
		req, err := http.NewRequest(method, "http://"+addr+"/", body)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", method, b)
	}
}

// TestConnectionsPastTheCapAreRefused: with the cap reached, a new
// connection is answered 503 with Retry-After and the error body; once a
// connection closes, a new one is served.
func TestConnectionsPastTheCapAreRefused(t *testing.T) {
	t.Parallel()
	l := short
	l.Idle = time.Minute // the held connections stay until the test closes them
	l.MaxConns = 2
	addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }), l)
	get := func(c net.Conn) *http.Response {
		t.Helper()
		_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: hub\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		return resp
	}
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		require.Equal(t, http.StatusOK, get(c).StatusCode)
		held = append(held, c)
	}

	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	resp := get(c)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "1", resp.Header.Get("Retry-After"))
	require.True(t, resp.Close)
	var body struct {
		Error errorDetail `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, codeUnavailable, body.Error.Code)

	// The server gives the slot back when it sees the client leave.
	require.NoError(t, held[0].Close())
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		defer c.Close()
		_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: hub\r\n\r\n")
		if err != nil {
			return false
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		return err == nil && resp.StatusCode == http.StatusOK
	}, 5*time.Second, 10*time.Millisecond)
}

// TestSlowBodyIsCutAndTheConnectionClosed: a body that trickles past the
// deadline gets an answer that closes the connection.
func TestSlowBodyIsCutAndTheConnectionClosed(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "the request body could not be read", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	addr := serve(t, h, short)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "POST / HTTP/1.1\r\nHost: hub\r\nContent-Length: 10\r\n\r\n{")
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*short.Body)))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.True(t, resp.Close, "the answer closes the connection")
	_, _ = io.Copy(io.Discard, resp.Body)
	_, err = br.ReadByte()
	require.ErrorIs(t, err, io.EOF)
}

func TestLimitsFromEnv(t *testing.T) {
	t.Parallel()
	l, err := LimitsFromEnv(func(string) string { return "" })
	require.NoError(t, err)
	require.Equal(t, DefaultLimits(), l)

	env := map[string]string{"HUB_HTTP_BODY_TIMEOUT": "5s", "HUB_HTTP_IDLE_TIMEOUT": "2m", "HUB_HTTP_READ_HEADER_TIMEOUT": "3s", "HUB_HTTP_MAX_CONNS": "100"}
	l, err = LimitsFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, Limits{ReadHeader: 3 * time.Second, Body: 5 * time.Second, Idle: 2 * time.Minute, MaxConns: 100, SSEKeepAlive: sseKeepAlive}, l)

	for k, v := range map[string]string{"HUB_HTTP_BODY_TIMEOUT": "soon", "HUB_HTTP_IDLE_TIMEOUT": "10ms", "HUB_HTTP_MAX_CONNS": "0", "HUB_HTTP_READ_HEADER_TIMEOUT": "2h"} {
		_, err := LimitsFromEnv(func(name string) string {
			if name == k {
				return v
			}
			return ""
		})
		require.Error(t, err, k)
		require.Contains(t, err.Error(), k)
	}
}
