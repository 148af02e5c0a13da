//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/fakemodel"
	"hub/hubtest"
)

// TestPromiseInsteadOfWorkGoesBackOnce: a reply that only promises a
// lookup goes back once with a nudge; the model then does the work.
func TestPromiseInsteadOfWorkGoesBackOnce(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "reply": {"text": "Let me check your tasks."}},
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_list_tasks", "arguments": {}}]}},
	  {"reply": {"text": "{{.LastToolSummary}}"}}]}`)})
	st := s.Ask(t, s.Conversation(t), "what is on my list?")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	reqs := s.Model.Requests()
	require.Len(t, reqs, 3)
	nudge := reqs[1].Messages[len(reqs[1].Messages)-1]
	require.Equal(t, "user", nudge.Role)
	require.Equal(t, assistant.NudgeLookup, nudge.Content, "the promise went back with the nudge")
	require.Equal(t, "assistant", reqs[1].Messages[len(reqs[1].Messages)-2].Role)
}

// TestHeldWriteReportedAsDoneGoesBack: under preview, a reply that says a
// held write is done is sent back to say it was proposed.
func TestHeldWriteReportedAsDoneGoesBack(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}]}}]}},
	  {"times": 1, "reply": {"text": "Done, I added the task “Draft brief”."}},
	  {"reply": {"text": "I proposed the task “Draft brief”; apply it to add it."}}]}`)})
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status)
	st := s.Ask(t, s.Conversation(t), "add a task to draft the brief")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.Len(t, reqs, 3)
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	require.Equal(t, assistant.NudgeHeldDone, last.Content)
}

// TestVerifyHookSendsBackWhatIsMissingAtMostTwice: a verify hook that
// always finds something missing sends the answer back twice, then the
// answer stands.
func TestVerifyHookSendsBackWhatIsMissingAtMostTwice(t *testing.T) {
	t.Parallel()
	var rounds []int
	s := hubtest.Start(t, hubtest.Options{
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Here you go."}}]}`),
		Verifier: assistant.VerifierFunc(func(_ context.Context, in assistant.VerifyInput) (string, error) {
			rounds = append(rounds, in.Round)
			return "the due date", nil
		}),
	})
	st := s.Ask(t, s.Conversation(t), "add a task due friday")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	require.Equal(t, []int{1, 2}, rounds)
	reqs := s.Model.Requests()
	require.Len(t, reqs, 3, "the answer, two rounds back, then it stands")
	require.Equal(t, assistant.VerifyNote("the due date"), reqs[1].Messages[len(reqs[1].Messages)-1].Content)
}
