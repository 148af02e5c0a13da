//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/api"
	"hub/fakemodel"
	"hub/hubtest"
)

// TestConnectionsCannotBeHeldOpen: 200 keep-alive connections left idle
// and 200 POSTs whose body trickles in a byte at a time are closed by the
// server within the limits, while other requests keep being answered; a
// turn's event stream and the activity stream stay open well past both
// limits on their keep-alive comments.
func TestConnectionsCannotBeHeldOpen(t *testing.T) {
	t.Parallel()
	const n = 200
	limits := api.Limits{ReadHeader: 2 * time.Second, Body: 2 * time.Second, Idle: 2 * time.Second, SSEKeepAlive: 200 * time.Millisecond}
	// slack is what a busy 2-core machine may add to a limit.
	const slack = 2 * time.Second
	s := hubtest.Start(t, hubtest.Options{SQLite: true, HTTPLimits: limits,
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"fault": {"kind": "hang"}}}]}`)})
	addr := strings.TrimPrefix(s.URL, "http://")

	// The streams open first, so they must outlive everything below.
	st := s.Ask(t, s.Conversation(t), "think for a long time")
	turnStream := openSSE(t, s, s.URL+st.StreamURL)
	agentStream := openSSE(t, s, s.URL+"/api/agent/stream")
	opened := time.Now()

	var wg sync.WaitGroup
	closedIn := make(chan time.Duration, 2*n)
	failures := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			d, err := idleKeepAlive(addr, limits.Idle+3*slack)
			if err != nil {
				failures <- fmt.Errorf("idle connection %d: %w", i, err)
				return
			}
			closedIn <- d
		}()
		go func() {
			defer wg.Done()
			token := ""
			if i%2 == 0 { // half authenticated (the handler reads the body), half not (net/http discards it)
				token = s.Token
			}
			d, err := slowBody(addr, "/api/spaces/"+s.SpaceID+"/tasks", token, limits.Body+3*slack)
			if err != nil {
				failures <- fmt.Errorf("slow body %d: %w", i, err)
				return
			}
			closedIn <- d
		}()
	}
	allClosed := make(chan struct{})
	go func() { wg.Wait(); close(allClosed) }()

	// Other requests are answered while the 400 connections are open.
	served := 0
	pace := time.NewTicker(50 * time.Millisecond)
	defer pace.Stop()
	for done := false; !done; {
		r := s.Do(t, s.Token, "GET", "/api/spaces", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		served++
		select {
		case <-allClosed:
			done = true
		case <-pace.C:
		}
	}
	close(failures)
	for err := range failures {
		t.Error(err)
	}
	close(closedIn)
	var longest time.Duration
	for d := range closedIn {
		longest = max(longest, d)
	}
	// The bound is the limit plus twice the slack (a 2-core machine at load 9 took 4.6 s), still
	// short of the 3 slacks after which the clients give up: a server that does not enforce its
	// limits fails here or in the clients.
	require.Less(t, longest, max(limits.Idle, limits.Body)+2*slack, "every connection closed within its limit")
	require.GreaterOrEqual(t, served, 5, "requests answered while the connections were held")
	t.Logf("400 held connections closed by the server after at most %v (limits %v); %d other requests answered meanwhile",
		longest.Round(time.Millisecond), limits.Body, served)

	// Both streams are still open past twice the limits, and keep-alives
	// still arrive.
	past := opened.Add(2*max(limits.Idle, limits.Body, limits.ReadHeader) + time.Second)
	for _, sse := range []*sseLines{turnStream, agentStream} {
		sse.awaitKeepAliveAfter(t, past)
	}
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
}

// idleKeepAlive makes one request on a new connection, then leaves it
// idle and returns how long after the answer the server closed it; an
// error if it was still open after wait.
func idleKeepAlive(addr string, wait time.Duration) (time.Duration, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n"); err != nil {
		return 0, err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		return 0, fmt.Errorf("answer %d, close %v: want a 200 that keeps the connection", resp.StatusCode, resp.Close)
	}
	answered := time.Now()
	return awaitClosed(c, br, answered, wait)
}

// slowBody sends a POST's headers, then its body one byte every 100 ms, and
// returns how long after the headers the server closed the connection.
func slowBody(addr, path, token string, wait time.Duration) (time.Duration, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	head := "POST " + path + " HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
	if token != "" {
		head += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(c, head+"\r\n{"); err != nil {
		return 0, err
	}
	sent := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if _, err := io.WriteString(c, " "); err != nil {
					return
				}
			}
		}
	}()
	return awaitClosed(c, bufio.NewReader(c), sent, wait)
}

// awaitClosed reads (and drops) whatever the server sends until it closes
// the connection, and returns the time since from; an error if the
// connection is still open after wait.
func awaitClosed(c net.Conn, r io.Reader, from time.Time, wait time.Duration) (time.Duration, error) {
	if err := c.SetReadDeadline(from.Add(wait)); err != nil {
		return 0, err
	}
	_, err := io.Copy(io.Discard, r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, fmt.Errorf("still open %v later", wait)
	}
	// EOF (io.Copy returns nil) or a reset: the server closed it.
	return time.Since(from), nil
}

// sseLines is an open event stream read line by line in the background.
type sseLines struct {
	lines chan sseLine
}

type sseLine struct {
	text string
	at   time.Time
}

func openSSE(t *testing.T, s *hubtest.Stack, url string) *sseLines {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	l := &sseLines{lines: make(chan sseLine, 1024)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(l.lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			select {
			case l.lines <- sseLine{sc.Text(), time.Now()}:
			default: // a full buffer drops lines; the test reads few
			}
		}
	}()
	t.Cleanup(func() { cancel(); _ = resp.Body.Close(); <-done })
	return l
}

// awaitKeepAliveAfter waits for a keep-alive comment received after at,
// failing if the stream ends first.
func (l *sseLines) awaitKeepAliveAfter(t *testing.T, at time.Time) {
	t.Helper()
	timeout := time.After(time.Until(at) + 30*time.Second)
	for {
		select {
		case line, ok := <-l.lines:
			require.True(t, ok, "the stream ended")
			if line.text == ": keep-alive" && line.at.After(at) {
				return
			}
		case <-timeout:
			t.Fatal("no keep-alive on the stream")
		}
	}
}
