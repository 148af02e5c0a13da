//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// slowText streams 80 words, a chunk every 20 ms (1.6 s): a turn that
// ends by itself, slow enough to reconnect or restart mid-stream.
var slowText = `{"rules": [{"reply": {"text": "` + strings.Repeat("word ", 80) + `", "chunkSize": 5, "chunkDelay": "20ms"}}]}`

// endless is what a call streams when a test ends the turn mid-stream
// (stop, pause, the wall-time bound): 600 words, a chunk every 20 ms, so
// about a minute. The 1.6 s of slowText let a loaded machine (the race
// detector on 2 cores) finish the answer before the test's stop arrived.
var endless = strings.Repeat("slow ", 600)

var endlessText = `{"rules": [{"reply": {"text": "` + endless + `", "chunkSize": 5, "chunkDelay": "20ms"}}]}`

// endlessThenFast: the first call streams endless; the call run again
// answers slowText's words at once.
var endlessThenFast = `{"rules": [
  {"times": 1, "reply": {"text": "` + endless + `", "chunkSize": 5, "chunkDelay": "20ms"}},
  {"reply": {"text": "` + strings.Repeat("word ", 80) + `", "chunkSize": 5}}]}`

// awaitDisconnect waits until the model saw its n-th request's client
// leave.
func awaitDisconnect(t *testing.T, s *hubtest.Stack, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool {
		return len(r) >= n && r[n-1].ClientDisconnectedAt != nil
	})
	require.NoError(t, err, "the model's connection was closed")
}

func TestStopEndsTheTurnKeepingWhatStreamed(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(endlessText)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "tell me a long story")
	first := s.Stream(t, st.StreamURL, 0, 6)

	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	require.Equal(t, "stopping", r.JSON(t)["status"])
	awaitDisconnect(t, s, 1)

	rest := s.Stream(t, st.StreamURL, first[len(first)-1].ID, 0)
	all := append(first, rest...)
	require.Equal(t, "stopped", all[len(all)-1].Data["status"])
	streamed := hubtest.Text(all)
	require.NotEmpty(t, streamed)
	require.Less(t, len(streamed), len(endless), "stopped before the end")

	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "stopped", turn["status"])
	msgs := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil).JSON(t)["messages"].([]any)
	reply := msgs[1].(map[string]any)
	require.Equal(t, "stopped", reply["status"])
	require.Equal(t, streamed, reply["text"], "the text already streamed is kept")

	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, http.StatusConflict, r.Status, "a finished turn answers 409")
	require.Len(t, s.Model.Requests(), 1)
}

func TestPauseThenResumeContinuesTheModelCall(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(endlessThenFast)})
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	first := s.Stream(t, st.StreamURL, 0, 6)

	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	require.Equal(t, "paused", r.JSON(t)["status"])
	awaitDisconnect(t, s, 1)
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "a repeated pause is harmless")

	require.Eventually(t, func() bool {
		return s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID, nil).JSON(t)["status"] == "paused"
	}, 10*time.Second, 20*time.Millisecond)
	state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
	require.Equal(t, true, state["paused"])
	require.Len(t, s.Model.Requests(), 1, "nothing runs while paused")

	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/resume", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	rest := s.Stream(t, st.StreamURL, first[len(first)-1].ID, 0)
	all := append(first, rest...)
	require.Equal(t, "done", all[len(all)-1].Data["status"])
	shown := hubtest.Text(all)
	require.True(t, strings.HasPrefix(shown, "slow "), "the interrupted text stays: %q", shown)
	require.True(t, strings.HasSuffix(shown, "slow "+strings.Repeat("word ", 80)), "the continuation follows it: %q", shown)
	require.Len(t, s.Model.Requests(), 2, "the interrupted model call ran again, to continue")
}

func TestTopBarShowsOnlyMyWorkAndStopsAll(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(endlessText)})
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	s.Stream(t, st.StreamURL, 0, 4)

	state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
	acts := state["activities"].([]any)
	require.Len(t, acts, 1)
	act := acts[0].(map[string]any)
	require.Equal(t, st.TurnID, act["id"])
	require.Equal(t, "turn", act["kind"])
	require.Equal(t, "working", act["status"])
	require.Equal(t, false, state["paused"])

	other, _ := s.Member(t, "Team", "Sam Other", "editor")
	require.Empty(t, s.Do(t, other, "GET", "/api/agent/state", nil).JSON(t)["activities"], "never another person's work")
	r := s.Do(t, other, "POST", "/api/agent/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	require.EqualValues(t, 0, r.JSON(t)["turns"])

	r = s.Do(t, s.Token, "POST", "/api/agent/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	require.EqualValues(t, 1, r.JSON(t)["turns"])
	require.Equal(t, "stopped", s.AwaitStatus(t, st.TurnID)["status"])
	require.Empty(t, s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)["activities"])
}

func TestStopClosesAHangingModelCall(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"fault": {"kind": "hang"}}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hello")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 && r[0].HeadersAt != nil })
	require.NoError(t, err)
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status)
	awaitDisconnect(t, s, 1)
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "stopped", events[len(events)-1].Data["status"])
}
