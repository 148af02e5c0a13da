//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// getStream asks for a stream with Last-Event-ID and returns the status
// and the body, failing the test when the answer takes longer than 10
// seconds (a stream that waits instead of answering).
func getStream(t *testing.T, s *hubtest.Stack, path, lastEventID string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Last-Event-ID", lastEventID)
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err, "Last-Event-ID %q", lastEventID)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "Last-Event-ID %q: the stream did not end", lastEventID)
	return resp.StatusCode, body
}

// A client that has a turn's done frame, or asks after a number beyond its
// last frame, gets 204 No Content at once (what ends an EventSource), however
// large the number; one that is not a frame number is 400.
func TestStreamOfAClientThatHasTheEndIs204(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Hello."}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hello")
	events := s.Stream(t, st.StreamURL, 0, 0)
	done := events[len(events)-1]
	require.Equal(t, "done", done.Type)

	for _, id := range []string{strconv.FormatInt(done.ID, 10), strconv.FormatInt(done.ID+1, 10), "1000000",
		"9223372036854775807", "9223372036854775808", "99999999999999999999999999"} {
		status, body := getStream(t, s, st.StreamURL, id)
		require.Equal(t, http.StatusNoContent, status, "Last-Event-ID %s: %s", id, body)
		require.Empty(t, body)
		status, _ = getStream(t, s, st.StreamURL+"&lastEventId="+id, "")
		require.Equal(t, http.StatusNoContent, status, "?lastEventId=%s", id)
	}
	for _, id := range []string{"-1", "x", "1.5", "3a", "+3", "0x10", "-9223372036854775809"} {
		status, body := getStream(t, s, st.StreamURL, id)
		require.Equal(t, http.StatusBadRequest, status, "Last-Event-ID %q: %s", id, body)
		var e struct {
			Error struct{ Code, Path string } `json:"error"`
		}
		require.NoError(t, json.Unmarshal(body, &e))
		require.Equal(t, "invalid_payload", e.Error.Code)
		require.Equal(t, "/lastEventId", e.Error.Path)
	}
	// One frame short of the end still gets the done frame, and nothing else.
	require.Equal(t, []hubtest.Event{done}, s.Stream(t, st.StreamURL, done.ID-1, 0))
}

// While a turn runs, a number beyond its last frame is one the stream never
// gave out: 204 at once, and the turn's stream goes on for everyone else.
func TestStreamBeyondARunningTurnsLastFrameIs204(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(slowText)})
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	first := s.Stream(t, st.StreamURL, 0, 3)
	for _, id := range []string{"100000", "9223372036854775807"} {
		status, body := getStream(t, s, st.StreamURL, id)
		require.Equal(t, http.StatusNoContent, status, "Last-Event-ID %s: %s", id, body)
	}
	rest := s.Stream(t, st.StreamURL, first[2].ID, 0)
	require.Equal(t, first[2].ID+1, rest[0].ID)
	require.Equal(t, "done", rest[len(rest)-1].Type)
}

// A client that behaves like EventSource (reconnect with Last-Event-ID
// whenever a response ends, until 204) gets every frame once and stops
// right after done: from the start, from the middle of the stream, while
// the turn runs and after it ended.
func TestEventSourceReconnectLoopEndsAfterDone(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		eventSourceEndsAfterDone(t, hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(slowText)}))
	})
}

func eventSourceEndsAfterDone(t *testing.T, s *hubtest.Stack) {
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	live := s.EventSource(ctx, t, st.StreamURL, "", 3)
	require.Equal(t, []int{http.StatusOK, http.StatusNoContent}, live.Statuses)
	for i, e := range live.Events {
		require.Equal(t, int64(i+1), e.ID, "no gap, no repeat")
	}
	done := live.Events[len(live.Events)-1]
	require.Equal(t, "done", done.Type)

	for _, from := range []int64{0, 3, done.ID - 1} {
		again := s.EventSource(ctx, t, st.StreamURL, strconv.FormatInt(from, 10), 3)
		require.Equal(t, []int{http.StatusOK, http.StatusNoContent}, again.Statuses, "from %d", from)
		require.Equal(t, live.Events[from:], again.Events, "from %d", from)
	}
	after := s.EventSource(ctx, t, st.StreamURL, strconv.FormatInt(done.ID, 10), 3)
	require.Equal(t, []int{http.StatusNoContent}, after.Statuses)
	require.Empty(t, after.Events)
}

// A turn that ends in error sends its error twice, as turn_error (a name
// EventSource does not use for itself) and then as error (for clients that
// know only that one), each a frame of its own: ids stay one by one, and
// done comes right after error.
func TestErrorFramesHaveTheTurnErrorAlias(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true})
	st := s.Ask(t, s.Conversation(t), "hello")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := s.EventSource(ctx, t, st.StreamURL, "", 3)
	require.Equal(t, []int{http.StatusOK, http.StatusNoContent}, run.Statuses)
	ev := run.Events
	for i, e := range ev {
		require.Equal(t, int64(i+1), e.ID)
	}
	require.GreaterOrEqual(t, len(ev), 3)
	alias, errFrame, done := ev[len(ev)-3], ev[len(ev)-2], ev[len(ev)-1]
	require.Equal(t, "turn_error", alias.Type)
	require.Equal(t, "error", errFrame.Type)
	require.Equal(t, "done", done.Type)
	require.Equal(t, "unavailable", alias.Data["code"])
	require.Equal(t, errFrame.Data, alias.Data)
	require.Equal(t, "error", done.Data["status"])
	n := 0
	for _, e := range ev {
		if e.Type == "error" || e.Type == "turn_error" {
			n++
		}
	}
	require.Equal(t, 2, n, "one of each")

	// Resuming between the two gets error and done.
	require.Equal(t, ev[len(ev)-2:], s.Stream(t, st.StreamURL, alias.ID, 0))
}

// The activity stream never ends, so a number beyond the person's latest
// frame, however large, gets a snapshot numbered with that frame (never a
// wrapped, negative id), and the changes after it follow.
func TestActivityStreamBeyondTheLatestFrameGetsASnapshot(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Hello."}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hello")
	s.Stream(t, st.StreamURL, 0, 0)
	s.AwaitStatus(t, st.TurnID)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fresh := activityStream(ctx, t, s, s.Token, "")
	head := next(t, fresh)
	require.Equal(t, true, head.Data["snapshot"])
	require.Positive(t, head.ID)
	fresh.Close()

	for _, id := range []string{strconv.FormatInt(head.ID+1, 10), "9223372036854775807", "99999999999999999999999"} {
		es := activityStream(ctx, t, s, s.Token, id)
		snap := next(t, es)
		require.Equal(t, true, snap.Data["snapshot"], "Last-Event-ID %s", id)
		require.GreaterOrEqual(t, snap.ID, head.ID, "Last-Event-ID %s", id)
		second := s.Ask(t, s.Conversation(t), "hello again")
		later := until(t, es, func(a map[string]any) bool { return a["id"] == second.TurnID })
		require.Equal(t, snap.ID+1, later[0].ID, "the frames after the snapshot's number follow")
		es.Close()
		s.Stream(t, second.StreamURL, 0, 0)
		s.AwaitStatus(t, second.TurnID)
		// The next round starts after this turn's frames.
		fresh := activityStream(ctx, t, s, s.Token, "")
		head = next(t, fresh)
		fresh.Close()
	}
	for _, id := range []string{"-1", "x", "-9223372036854775809"} {
		r := s.Do(t, s.Token, "GET", "/api/agent/stream?lastEventId="+id, nil)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", id, r.Body)
	}
}
