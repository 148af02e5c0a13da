package hubtest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// EventSourceRun is what EventSource received.
type EventSourceRun struct {
	// Events are every event of every connection, in order.
	Events []Event
	// Statuses are the HTTP statuses of the connections, in order; the
	// last is the one that ended the loop (204, or an error status).
	Statuses []int
}

// EventSource follows the SSE endpoint at path (relative to the api, e.g.
// a streamUrl) the way a browser's EventSource does when its page never
// closes it: whenever a response ends it connects again at once, sending
// the id of the last event it got as Last-Event-ID (lastEventID first,
// unless ""), until the server answers 204 No Content or any status but
// 200 (both end an EventSource for good). It fails the test after
// maxConnects connections, or when ctx ends first: a stream that never
// tells the client it is over.
func (s *Stack) EventSource(ctx context.Context, t testing.TB, path, lastEventID string, maxConnects int) EventSourceRun {
	t.Helper()
	var run EventSourceRun
	for range maxConnects {
		req, err := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Cache-Control", "no-cache")
		if lastEventID != "" {
			req.Header.Set("Last-Event-ID", lastEventID)
		}
		resp, err := s.HTTP.Do(req)
		require.NoError(t, err, "connection %d", len(run.Statuses)+1)
		run.Statuses = append(run.Statuses, resp.StatusCode)
		if resp.StatusCode != http.StatusOK {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			return run
		}
		require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		es := &EventStream{resp: resp, sc: bufio.NewScanner(resp.Body)}
		for {
			e, err := es.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, "connection %d, after %d events", len(run.Statuses), len(run.Events))
			run.Events = append(run.Events, e)
			lastEventID = strconv.FormatInt(e.ID, 10)
		}
		es.Close()
	}
	t.Fatalf("EventSource still reconnecting after %d connections (statuses %v, %d events)", maxConnects, run.Statuses, len(run.Events))
	return run
}
