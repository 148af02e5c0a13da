//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/fakemodel"
	"hub/hubtest"
)

// activityStream opens the person's activity stream on the stack's api.
func activityStream(ctx context.Context, t *testing.T, s *hubtest.Stack, token, lastEventID string) *hubtest.EventStream {
	t.Helper()
	es := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", token, lastEventID)
	t.Cleanup(es.Close)
	return es
}

// next reads one activity event.
func next(t *testing.T, es *hubtest.EventStream) hubtest.Event {
	t.Helper()
	e, err := es.Next()
	require.NoError(t, err)
	require.Equal(t, "activity", e.Type)
	return e
}

// activity is the changed activity of a frame that is not a snapshot.
func activity(t *testing.T, e hubtest.Event) map[string]any {
	t.Helper()
	require.Nil(t, e.Data["snapshot"], "a change, not a snapshot: %v", e.Data)
	a, ok := e.Data["activity"].(map[string]any)
	require.True(t, ok, "%v", e.Data)
	return a
}

// until reads activity frames until one satisfies done, returning all read.
func until(t *testing.T, es *hubtest.EventStream, done func(a map[string]any) bool) []hubtest.Event {
	t.Helper()
	var out []hubtest.Event
	for {
		e := next(t, es)
		out = append(out, e)
		if done(activity(t, e)) {
			return out
		}
	}
}

func status(want string) func(map[string]any) bool {
	return func(a map[string]any) bool { return a["status"] == want }
}

func TestActivityStreamFollowsMyWorkAndNobodyElses(t *testing.T) {
	t.Parallel()
	// Mira's story streams until she stops it (the pause, the resume and
	// the stop must each find it running; the resumed call, whose last user
	// message is the continue note when the pause cut off some text,
	// streams on too); Sam's turn answers at once.
	script := `{"rules": [{"match": {"lastUser": "long story|cut off by a pause"}, "reply": {"text": "` + endless + `", "chunkSize": 5, "chunkDelay": "20ms"}},
  {"reply": {"text": "Hello."}}]}`
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(script)})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conv := s.Conversation(t)
	mine := activityStream(ctx, t, s, s.Token, "")
	snap := next(t, mine)
	require.Equal(t, true, snap.Data["snapshot"])
	require.Empty(t, snap.Data["activities"])
	require.Equal(t, false, snap.Data["paused"])

	otherToken, _ := s.Member(t, "Team", "Sam Other", "editor")
	theirs := activityStream(ctx, t, s, otherToken, "")
	require.Equal(t, true, next(t, theirs).Data["snapshot"])

	st := s.Ask(t, conv, "tell me a long story")
	got := until(t, mine, func(a map[string]any) bool { return a["status"] == "working" && a["step"] == 1.0 })
	first := activity(t, got[0])
	require.Equal(t, st.TurnID, first["id"])
	require.Equal(t, "turn", first["kind"])
	require.Equal(t, conv, first["conversationId"])
	require.Equal(t, "queued", first["status"])
	require.Equal(t, "test", first["title"])
	require.NotEmpty(t, first["startedAt"])

	late := next(t, activityStream(ctx, t, s, otherToken, ""))
	require.Equal(t, true, late.Data["snapshot"])
	require.Empty(t, late.Data["activities"], "another person's snapshot leaves my turn out")

	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	got = append(got, until(t, mine, status("paused"))...)
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/resume", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	got = append(got, until(t, mine, status("working"))...)
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	got = append(got, until(t, mine, status("stopping"))...)
	got = append(got, until(t, mine, func(a map[string]any) bool { return a["ended"] == true })...)
	last := activity(t, got[len(got)-1])
	require.Equal(t, "stopped", last["status"])
	for i, e := range got {
		require.Equal(t, snap.ID+int64(i+1), e.ID, "frame %d: numbered per person, no gap, no repeat", i)
		require.Equal(t, st.TurnID, activity(t, e)["id"])
	}
	state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
	require.Empty(t, state["activities"], "the stream and the top bar agree")

	// A client that reconnects from the middle gets exactly what followed.
	again := activityStream(ctx, t, s, s.Token, strconv.FormatInt(got[2].ID, 10))
	for _, want := range got[3:] {
		require.Equal(t, want, next(t, again))
	}
	// One that asks from a number this stream never gave out starts over
	// from a snapshot.
	fresh := activityStream(ctx, t, s, s.Token, "99999")
	e := next(t, fresh)
	require.Equal(t, true, e.Data["snapshot"])
	require.Equal(t, got[len(got)-1].ID, e.ID, "numbered with the latest frame")

	// Sam's stream carries his own turn, and nothing of Mira's that came
	// before it.
	r = s.Do(t, otherToken, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status)
	r = s.Do(t, otherToken, "POST", "/api/assistant/conversations/"+r.JSON(t)["id"].(string)+"/turns", map[string]any{"text": "hello"})
	require.Equal(t, http.StatusAccepted, r.Status)
	samTurn := r.JSON(t)["turnId"]
	for _, e := range until(t, theirs, func(a map[string]any) bool { return a["ended"] == true }) {
		require.Equal(t, samTurn, activity(t, e)["id"], "never another person's work")
	}
}

func TestActivityStreamShowsAnApplyWaitingWorkingThenApplied(t *testing.T) {
	t.Parallel()
	// The Apply holds inside its transaction until the test has looked.
	reached, release := make(chan struct{}, 1), make(chan struct{})
	hold := func(point string) error {
		if point == activities.FaultBeforeCommit {
			select {
			case reached <- struct{}{}:
			default:
			}
			<-release
		}
		return nil
	}
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo), Fault: hold})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	es := activityStream(ctx, t, s, s.Token, "")
	next(t, es) // the snapshot
	conv, reply := proposeTasks(t, s)
	got := until(t, es, func(a map[string]any) bool { return a["kind"] == "apply" })
	turnEnd, apply := activity(t, got[len(got)-2]), activity(t, got[len(got)-1])
	require.Equal(t, "done", turnEnd["status"])
	require.Equal(t, true, turnEnd["ended"])
	require.Equal(t, "apply:"+reply, apply["id"])
	require.Equal(t, "waiting", apply["status"])
	require.Equal(t, conv, apply["conversationId"])
	require.NotEmpty(t, apply["title"])

	// A client connecting now sees the waiting Apply in its snapshot.
	snap := next(t, activityStream(ctx, t, s, s.Token, ""))
	require.Len(t, snap.Data["activities"], 1)
	require.Equal(t, "apply:"+reply, snap.Data["activities"].([]any)[0].(map[string]any)["id"])

	answered := make(chan hubtest.Response, 1)
	go func() {
		answered <- s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	}()
	<-reached
	// While it runs, the Apply is working: in the stream and in the state.
	working := activity(t, next(t, es))
	require.Equal(t, "apply:"+reply, working["id"])
	require.Equal(t, "working", working["status"])
	require.NotEqual(t, true, working["ended"])
	state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
	require.Len(t, state["activities"], 1)
	require.Equal(t, "working", state["activities"].([]any)[0].(map[string]any)["status"])
	close(release)

	r := <-answered
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	applied := activity(t, next(t, es))
	require.Equal(t, "apply:"+reply, applied["id"])
	require.Equal(t, true, applied["ended"])
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)["activities"])
}

func TestActivityStreamNeedsAToken(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true})
	r := s.Do(t, "", "GET", "/api/agent/stream", nil)
	require.Equal(t, http.StatusUnauthorized, r.Status)
	r = s.Do(t, s.Token, "GET", "/api/agent/stream?lastEventId=x", nil)
	require.Equal(t, http.StatusBadRequest, r.Status)
}
