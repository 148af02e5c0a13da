//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"hub/chat"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
	"hub/workspace"
)

// completionScript answers each kind's request: a file's summary as the
// JSON asked for, the model check, and a skill tried on "my notes"; a
// skill tried on "a long story" streams for about a minute (Stop and
// Pause must find it running), once: the call run again after a Resume
// answers at once.
var completionScript = `{"rules": [
  {"match": {"lastUser": "<file name="}, "reply": {"text": "Sure: {\"summary\": \"Notes on the launch: we ship on Friday.\", \"keywords\": [\"launch\", \"Friday\", \"launch\", \"\"]}", "usage": {"input": 300, "output": 40}}},
  {"match": {"lastUser": "connection check"}, "reply": {"text": "Hello, I am fakemodel.", "usage": {"input": 30, "output": 8}}},
  {"match": {"lastUser": "my notes"}, "reply": {"text": "Done: three bullets for Friday.", "usage": {"input": 200, "output": 12}}},
  {"times": 1, "match": {"lastUser": "a long story"}, "reply": {"text": "` + endless + `", "chunkSize": 5, "chunkDelay": "20ms"}},
  {"reply": {"text": "Once upon a time."}}]}`

// startCompletion posts a completion and returns its id.
func startCompletion(t *testing.T, s *hubtest.Stack, body map[string]any) string {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/completions", body)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	c := r.JSON(t)["completion"].(map[string]any)
	require.Equal(t, "queued", c["status"])
	return c["id"].(string)
}

// awaitCompletion waits until the completion ended and returns it.
func awaitCompletion(t *testing.T, s *hubtest.Stack, id string) map[string]any {
	t.Helper()
	var last map[string]any
	require.Eventually(t, func() bool {
		r := s.Do(t, s.Token, "GET", "/api/completions/"+id, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		last = r.JSON(t)
		return last["endedAt"] != nil
	}, time.Minute, 20*time.Millisecond)
	return last
}

// purposes is the person's calls this month by purpose.
func purposes(t *testing.T, s *hubtest.Stack) map[string]any {
	t.Helper()
	r := s.Do(t, s.Token, "GET", "/api/usage?groupBy=purpose&spaceId="+s.SpaceID, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	calls := map[string]any{}
	for _, g := range r.JSON(t)["groups"].([]any) {
		calls[g.(map[string]any)["key"].(string)] = g.(map[string]any)["calls"]
	}
	return calls
}

// TestCompletionsOfEachKind: each kind through the api on both engines: a
// file's summary and keywords saved on the file, a model's check, a skill
// tried on a sample; each counted under its purpose, readable by its
// owner only; and refused, before its request, by a budget that cannot
// hold it.
func TestCompletionsOfEachKind(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(completionScript), Price: priced(testPrice)})
		otherToken, _ := s.Member(t, "Team", "Sam Other", workspace.RoleEditor)

		r := upload(t, s, s.Token, s.SpaceID, "launch.md", []byte("# Launch\n\nWe ship on Friday. Ken books the room.\n"))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		file := r.JSON(t)["id"].(string)
		id := startCompletion(t, s, map[string]any{"kind": "summarize_file", "spaceId": s.SpaceID, "fileId": file})
		c := awaitCompletion(t, s, id)
		require.Equal(t, "done", c["status"], "%v", c)
		require.Equal(t, "summarize_file", c["kind"])
		require.Equal(t, "Summarize launch.md", c["title"])
		require.Equal(t, "summarize", c["purpose"])
		require.Equal(t, "Notes on the launch: we ship on Friday.", c["result"])
		require.Equal(t, []any{"launch", "Friday"}, c["keywords"], "repeats and empty keywords dropped")
		r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/files/"+file, nil)
		require.Equal(t, "Notes on the launch: we ship on Friday.", r.JSON(t)["summary"], "saved on the file")
		require.Equal(t, []any{"launch", "Friday"}, r.JSON(t)["keywords"])
		sent := s.Model.Requests()[0]
		require.Contains(t, sent.Messages[0].Content, `"summary"`, "the instructions ask for the JSON")
		require.Contains(t, sent.Messages[1].Content, "We ship on Friday.", "the file's text is sent")
		require.Empty(t, sent.Tools, "a completion offers no tools")

		r = s.Do(t, otherToken, "GET", "/api/completions/"+id, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "another person's completion: %s", r.Body)
		r = s.Do(t, otherToken, "POST", "/api/completions/"+id+"/stop", nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)

		id = startCompletion(t, s, map[string]any{"kind": "test_model", "spaceId": s.SpaceID, "model": "fakemodel"})
		c = awaitCompletion(t, s, id)
		require.Equal(t, "done", c["status"], "%v", c)
		require.Equal(t, "Hello, I am fakemodel.", c["result"])
		require.Equal(t, "Check model fakemodel", c["title"])
		require.Nil(t, c["keywords"])

		r = s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "Weekly report", "description": "The Friday report",
			"instructions": "Answer in three bullets: done, next, blocked."})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		skill := r.JSON(t)["id"].(string)
		id = startCompletion(t, s, map[string]any{"kind": "test_skill", "spaceId": s.SpaceID, "skillId": skill, "input": "here are my notes"})
		c = awaitCompletion(t, s, id)
		require.Equal(t, "done", c["status"], "%v", c)
		require.Equal(t, "Done: three bullets for Friday.", c["result"])
		require.Equal(t, "Try skill Weekly report", c["title"])
		reqs := s.Model.Requests()
		last := reqs[len(reqs)-1]
		require.Contains(t, last.Messages[0].Content, "Answer in three bullets: done, next, blocked.", "the skill's instructions")
		require.Equal(t, "here are my notes", last.Messages[1].Content, "the sample as the person's message")

		require.Equal(t, map[string]any{"summarize": 1.0, "test_model": 1.0, "test_skill": 1.0}, purposes(t, s))

		// A budget that cannot hold the call: refused before its request.
		budget := int64(0)
		r = s.Do(t, s.Token, "PATCH", "/api/spaces/"+s.SpaceID+"/settings", map[string]any{"monthlyBudget": budget})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		before := len(s.Model.Requests())
		id = startCompletion(t, s, map[string]any{"kind": "test_model", "spaceId": s.SpaceID, "model": "fakemodel"})
		c = awaitCompletion(t, s, id)
		require.Equal(t, "error", c["status"], "%v", c)
		require.Equal(t, "budget_exceeded", c["error"].(map[string]any)["code"])
		require.Len(t, s.Model.Requests(), before, "no request was sent")
		state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
		for _, a := range state["activities"].([]any) {
			require.NotEqual(t, "completion", a.(map[string]any)["kind"], "ended completions left the top bar")
		}
	})
}

// TestCompletionsBadInput: a request a completion cannot run is a 4xx at
// its field, and nothing is saved or sent.
func TestCompletionsBadInput(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(completionScript)})
	_, otherSpace := s.Member(t, "Elsewhere", "Ken Ito", workspace.RoleEditor)
	r := upload(t, s, s.Token, s.SpaceID, "notes.md", []byte("Ship on Friday."))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	file := r.JSON(t)["id"].(string)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")
	r = upload(t, s, s.Token, s.SpaceID, "dot.png", png)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	picture := r.JSON(t)["id"].(string)
	r = s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "Report", "description": "d", "instructions": "i"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	skill := r.JSON(t)["id"].(string)

	space := s.SpaceID
	for _, tc := range []struct {
		body   map[string]any
		status int
		path   string
	}{
		{map[string]any{"spaceId": space}, 400, "/kind"},
		{map[string]any{"kind": "translate", "spaceId": space}, 400, "/kind"},
		{map[string]any{"kind": "test_model", "model": "fakemodel"}, 400, "/spaceId"},
		{map[string]any{"kind": "test_model", "spaceId": otherSpace, "model": "fakemodel"}, 404, "/spaceId"},
		{map[string]any{"kind": "test_model", "spaceId": "sp_nope", "model": "fakemodel"}, 404, "/spaceId"},
		{map[string]any{"kind": "test_model", "spaceId": space}, 400, "/model"},
		{map[string]any{"kind": "test_model", "spaceId": space, "model": "no-such-model"}, 400, "/model"},
		{map[string]any{"kind": "test_model", "spaceId": space, "model": "fakemodel", "fileId": file}, 400, "/fileId"},
		{map[string]any{"kind": "summarize_file", "spaceId": space}, 400, "/fileId"},
		{map[string]any{"kind": "summarize_file", "spaceId": space, "fileId": "file_nope"}, 404, "/fileId"},
		{map[string]any{"kind": "summarize_file", "spaceId": space, "fileId": picture}, 400, "/fileId"},
		{map[string]any{"kind": "summarize_file", "spaceId": space, "fileId": file, "input": "x"}, 400, "/input"},
		{map[string]any{"kind": "test_skill", "spaceId": space, "input": "hi"}, 400, "/skillId"},
		{map[string]any{"kind": "test_skill", "spaceId": space, "skillId": "skill_nope", "input": "hi"}, 404, "/skillId"},
		{map[string]any{"kind": "test_skill", "spaceId": space, "skillId": skill, "input": "  "}, 400, "/input"},
		{map[string]any{"kind": "test_skill", "spaceId": space, "skillId": skill, "input": strings.Repeat("x", 4001)}, 400, "/input"},
		{map[string]any{"kind": "test_skill", "spaceId": space, "skillId": skill, "input": "a\u0000b"}, 400, "/input"},
		{map[string]any{"kind": "test_model", "spaceId": space, "model": "fakemodel", "temperature": 1}, 400, "/temperature"},
	} {
		r := s.Do(t, s.Token, "POST", "/api/completions", tc.body)
		require.Equal(t, tc.status, r.Status, "%v: %s", tc.body, r.Body)
		require.Equal(t, tc.path, r.JSON(t)["error"].(map[string]any)["path"], "%v: %s", tc.body, r.Body)
	}
	r = s.Do(t, s.Token, "GET", "/api/completions/cmpl_nope", nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
	for _, a := range state["activities"].([]any) {
		require.NotEqual(t, "completion", a.(map[string]any)["kind"], "nothing was saved")
	}
	require.Empty(t, s.Model.Requests(), "nothing was sent")
}

// TestCompletionStoppedFromTheTopBarEndsItsModelRequest: a running
// completion is in the top bar (the state and the activity stream, kind
// completion) and Stop all ends its model request at once; it ends
// stopped, leaves the top bar, and what it used is counted under its
// purpose. On both engines.
func TestCompletionStoppedFromTheTopBarEndsItsModelRequest(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(completionScript)})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r := s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "Storyteller", "description": "d", "instructions": "Tell it long."})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		skill := r.JSON(t)["id"].(string)
		es := activityStream(ctx, t, s, s.Token, "")
		require.Equal(t, true, next(t, es).Data["snapshot"])

		id := startCompletion(t, s, map[string]any{"kind": "test_skill", "spaceId": s.SpaceID, "skillId": skill, "input": "tell me a long story"})
		got := until(t, es, func(a map[string]any) bool { return a["id"] == id && a["status"] == "working" })
		first := activity(t, got[0])
		require.Equal(t, "completion", first["kind"])
		require.Equal(t, id, first["id"])
		require.Equal(t, s.SpaceID, first["spaceId"])
		require.Equal(t, "queued", first["status"])
		require.Equal(t, "Try skill Storyteller", first["title"])
		_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 })
		require.NoError(t, err, "the model call is under way")
		state := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
		acts := state["activities"].([]any)
		require.Len(t, acts, 1)
		require.Equal(t, "completion", acts[0].(map[string]any)["kind"])
		require.Equal(t, "working", acts[0].(map[string]any)["status"])

		r = s.Do(t, s.Token, "POST", "/api/agent/stop", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		require.EqualValues(t, 1, r.JSON(t)["completions"])
		awaitDisconnect(t, s, 1)
		got = until(t, es, func(a map[string]any) bool { return a["id"] == id && a["ended"] == true })
		require.Equal(t, "stopped", activity(t, got[len(got)-1])["status"])

		c := awaitCompletion(t, s, id)
		require.Equal(t, "stopped", c["status"], "%v", c)
		require.Nil(t, c["result"])
		state = s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)
		require.Empty(t, state["activities"], "it left the top bar")
		r = s.Do(t, s.Token, "POST", "/api/completions/"+id+"/stop", nil)
		require.Equal(t, http.StatusConflict, r.Status, "an ended completion is 409: %s", r.Body)
		require.Len(t, s.Model.Requests(), 1, "not run again")
		require.Equal(t, map[string]any{"test_skill": 1.0}, purposes(t, s), "the stopped call is counted")
	})
}

// TestCompletionPausedAndResumed: its own route pauses a completion (the
// model request ends, the top bar says paused) and resumes it (the call
// runs again and the completion ends done).
func TestCompletionPausedAndResumed(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(completionScript)})
		r := s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "Storyteller", "description": "d", "instructions": "Tell it long."})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		skill := r.JSON(t)["id"].(string)
		id := startCompletion(t, s, map[string]any{"kind": "test_skill", "spaceId": s.SpaceID, "skillId": skill, "input": "tell me a long story"})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 })
		require.NoError(t, err)

		r = s.Do(t, s.Token, "POST", "/api/completions/"+id+"/pause", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		require.Equal(t, "paused", r.JSON(t)["status"])
		awaitDisconnect(t, s, 1)
		require.Eventually(t, func() bool {
			acts := s.Do(t, s.Token, "GET", "/api/agent/state", nil).JSON(t)["activities"].([]any)
			return len(acts) == 1 && acts[0].(map[string]any)["status"] == "paused"
		}, 30*time.Second, 20*time.Millisecond, "the top bar says paused")
		require.Len(t, s.Model.Requests(), 1, "nothing runs while paused")

		r = s.Do(t, s.Token, "POST", "/api/completions/"+id+"/resume", nil)
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		c := awaitCompletion(t, s, id)
		require.Equal(t, "done", c["status"], "%v", c)
		require.Equal(t, "Once upon a time.", c["result"], "the call ran again")
		require.Len(t, s.Model.Requests(), 2)
		if !sqlite { // its history replays (recorded with HUB_RECORD_HISTORY=1)
			replayWorkflow(t, s, workflows.CompletionWorkflowID(id), "", "completion_pause_resume_v0.json")
		}
	})
}

// TestACompletionInsideATurnCountsUnderTheTurn: a completion started with
// the turn it runs inside (no route sets it yet: the workflow's TurnID)
// bills its model call to that turn, under the turn's purpose, once; no
// completion purpose is charged.
func TestACompletionInsideATurnCountsUnderTheTurn(t *testing.T) {
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(completionScript)})
		conv := s.Conversation(t)
		st := s.Ask(t, conv, "hello")
		s.Stream(t, st.StreamURL, 0, 0)
		require.Equal(t, map[string]any{"chat": 1.0}, purposes(t, s))

		c, err := s.Chat.CreateCompletion(t.Context(), chat.NewCompletion{PersonID: s.OwnerID, SpaceID: s.SpaceID,
			Kind: chat.CompletionTestModel, Title: "Check model fakemodel", Model: "fakemodel", Purpose: chat.CompletionPurpose(chat.CompletionTestModel),
			TurnID: st.TurnID})
		require.NoError(t, err)
		run, err := s.Temporal.ExecuteWorkflow(t.Context(), client.StartWorkflowOptions{ID: workflows.CompletionWorkflowID(c.ID),
			TaskQueue: s.Config().TaskQueue, WorkflowExecutionTimeout: workflows.CompletionTimeout + workflows.CompletionGrace},
			workflows.Completion, workflows.CompletionInput{CompletionID: c.ID, TurnID: st.TurnID})
		require.NoError(t, err)
		var res workflows.CompletionResult
		require.NoError(t, run.Get(t.Context(), &res))
		require.Equal(t, workflows.StatusDone, res.Status)

		got := awaitCompletion(t, s, c.ID)
		require.Equal(t, "Hello, I am fakemodel.", got["result"])
		require.Equal(t, map[string]any{"chat": 2.0}, purposes(t, s), "counted once, under the turn's purpose")
		r := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+st.TurnID+"/inspect", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Len(t, r.JSON(t)["modelCalls"], 2, "the turn's own call and the completion's")
	})
}
