//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// listThenCreate: the model looks the tasks up, adds one, then answers.
const listThenCreate = `{"rules": [
  {"name": "look up first", "match": {"lastUser": "(?i)add (.+)", "afterToolResult": false},
   "reply": {"toolCalls": [{"name": "hub_list_tasks", "arguments": {}}], "usage": {"input": 100, "output": 10}}},
  {"name": "then create", "times": 1, "match": {"afterToolResult": true},
   "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief", "dueDate": "2026-12-01"}]}}],
             "usage": {"input": 200, "output": 20}}},
  {"name": "answer", "match": {"afterToolResult": true},
   "reply": {"text": "Done: {{.LastToolSummary}}", "chunkSize": 5, "usage": {"input": 300, "output": 30}}}
]}`

func TestTurnListsCreatesAndStreams(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(listThenCreate)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task to draft the brief")
	events := s.Stream(t, st.StreamURL, 0, 0)

	// Frame ids count from 1 without gaps; refs come before any text; done is last.
	for i, e := range events {
		require.Equal(t, int64(i+1), e.ID, "event %d", i)
	}
	require.Equal(t, "refs", events[0].Type)
	require.Equal(t, "done", events[len(events)-1].Type)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	require.Equal(t, st.ReplyMessageID, events[len(events)-1].Data["messageId"])
	usage := events[len(events)-1].Data["usage"].(map[string]any)
	require.EqualValues(t, 600, usage["inputTokens"])
	require.EqualValues(t, 60, usage["outputTokens"])

	var phases []string
	textFrames := 0
	for _, e := range events {
		switch e.Type {
		case "tool":
			phases = append(phases, e.Data["tool"].(string)+":"+e.Data["phase"].(string))
		case "text":
			textFrames++
		}
	}
	require.Equal(t, []string{"hub_list_tasks:started", "hub_list_tasks:done", "hub_create_tasks:started", "hub_create_tasks:done"}, phases)
	require.Greater(t, textFrames, 1, "text arrives as several deltas")
	require.Equal(t, "Done: Added 1 task: “Draft brief”.", hubtest.Text(events))

	// The task is in the database, through the same REST api.
	r := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	require.Equal(t, http.StatusOK, r.Status)
	tasks := r.JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1)
	require.Equal(t, "Draft brief", tasks[0].(map[string]any)["title"])
	require.Equal(t, "2026-12-01", tasks[0].(map[string]any)["dueDate"])

	// The messages show the person's message and the reply with its calls.
	r = s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status)
	msgs := r.JSON(t)["messages"].([]any)
	require.Len(t, msgs, 2)
	user, reply := msgs[0].(map[string]any), msgs[1].(map[string]any)
	require.Equal(t, "user", user["role"])
	require.Equal(t, "add a task to draft the brief", user["text"])
	require.Equal(t, "assistant", reply["role"])
	require.Equal(t, "done", reply["status"])
	require.Equal(t, "Done: Added 1 task: “Draft brief”.", reply["text"])
	calls := reply["toolCalls"].([]any)
	require.Len(t, calls, 2)
	require.Equal(t, "Added 1 task: “Draft brief”.", calls[1].(map[string]any)["summary"])
	require.Equal(t, "done", calls[1].(map[string]any)["status"])

	// What the model was sent: three requests; the offer held both tools;
	// the tool results went back as tool messages.
	reqs := s.Model.Requests()
	require.Len(t, reqs, 3)
	require.Subset(t, reqs[0].Tools, []string{"hub_list_tasks", "hub_create_tasks"})
	last := reqs[2].Messages
	require.Equal(t, "tool", last[len(last)-1].Role)
	require.Contains(t, last[len(last)-1].Content, "Added 1 task")
	require.Contains(t, reqs[0].Messages[0].Content, "Mira", "the instructions name the person")

	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "done", turn["status"])
}

func TestStreamResumesWithoutGapOrRepeat(t *testing.T) {
	t.Parallel()
	// A slow answer, so the client can disconnect mid-turn several times.
	slow := `{"rules": [{"reply": {"text": "` + strings.Repeat("word ", 60) + `", "chunkSize": 5, "chunkDelay": "15ms"}}]}`
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(slow)})
	st := s.Ask(t, s.Conversation(t), "tell me something long")

	var got []hubtest.Event
	last := int64(0)
	for reconnects := 0; ; reconnects++ {
		batch := s.Stream(t, st.StreamURL, last, 7)
		got = append(got, batch...)
		last = batch[len(batch)-1].ID
		if batch[len(batch)-1].Type == "done" {
			require.Greater(t, reconnects, 3, "the test should reconnect mid-turn several times")
			break
		}
	}
	for i, e := range got {
		require.Equal(t, int64(i+1), e.ID, "no gap and no repeat at event %d", i)
	}
	require.Equal(t, strings.Repeat("word ", 60), hubtest.Text(got))

	// After the end, a client that asks again from any point gets the rest.
	tail := s.Stream(t, st.StreamURL, got[len(got)-3].ID, 0)
	require.Len(t, tail, 2)
	require.Equal(t, got[len(got)-2:], tail)
}

func TestTurnWithoutModelEndsUnavailable(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true})
	// Everything but turns works.
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/tasks", map[string]any{"title": "Still works"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)

	st := s.Ask(t, s.Conversation(t), "hello")
	events := s.Stream(t, st.StreamURL, 0, 0)
	var errFrame map[string]any
	for _, e := range events {
		if e.Type == "error" {
			errFrame = e.Data
		}
	}
	require.NotNil(t, errFrame, "an error frame before done")
	require.Equal(t, "unavailable", errFrame["code"])
	require.Contains(t, errFrame["message"], "OPENAI_API_KEY")
	require.Contains(t, errFrame["message"], "OPENAI_BASE_URL")
	require.Equal(t, "error", events[len(events)-1].Data["status"])

	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "error", turn["status"])
	require.Equal(t, "unavailable", turn["error"].(map[string]any)["code"])
}

func TestModelGarbageGoesBackAsToolErrors(t *testing.T) {
	t.Parallel()
	garbage := `{"rules": [
	  {"name": "bad json", "times": 1, "reply": {"fault": {"kind": "malformed_tool_args"}, "toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "x"}]}}]}},
	  {"name": "unknown tool", "times": 1, "match": {"afterToolResult": true}, "reply": {"toolCalls": [{"name": "hub_delete_everything", "arguments": {}}]}},
	  {"name": "schema", "times": 1, "match": {"afterToolResult": true}, "reply": {"toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"titel": "typo"}]}}]}},
	  {"name": "answer", "match": {"afterToolResult": true}, "reply": {"text": "Sorry: {{.LastToolSummary}}"}}
	]}`
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(garbage)})
	st := s.Ask(t, s.Conversation(t), "do something")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	var failures []string
	for _, e := range events {
		if e.Type == "tool" && e.Data["phase"] == "failed" {
			failures = append(failures, e.Data["error"].(map[string]any)["code"].(string))
		}
	}
	require.Equal(t, []string{"invalid_payload", "unknown_tool", "invalid_payload"}, failures)

	// The model read each error as a tool result and could correct itself.
	reqs := s.Model.Requests()
	require.Len(t, reqs, 4)
	toolMsg := func(i int) string { m := reqs[i].Messages; return m[len(m)-1].Content }
	require.Contains(t, toolMsg(1), "not valid JSON")
	require.Contains(t, toolMsg(2), `no tool called \"hub_delete_everything\"`)
	require.Contains(t, toolMsg(3), "/tasks/0/title")
	require.Contains(t, toolMsg(3), "/tasks/0/titel")

	r := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	require.Empty(t, r.JSON(t)["tasks"], "nothing was written")
}

func TestModelRetriesAndFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		script   string
		status   string
		code     string
		requests int
	}{
		{"429 then answer", `{"rules": [{"times": 1, "reply": {"fault": {"kind": "rate_limit", "retryAfter": 1}}}, {"reply": {"text": "ok"}}]}`, "done", "", 2},
		{"500 twice then answer", `{"rules": [{"times": 2, "reply": {"fault": {"kind": "server_error"}}}, {"reply": {"text": "ok"}}]}`, "done", "", 3},
		{"cut stream then answer", `{"rules": [{"times": 1, "reply": {"text": "partial text that is cut", "chunkSize": 4, "fault": {"kind": "cut", "afterChunks": 2}}}, {"reply": {"text": "ok"}}]}`, "done", "", 2},
		{"400 fails at once", `{"rules": [{"reply": {"fault": {"kind": "http_error", "status": 400}}}]}`, "error", "model_error", 1},
		{"401 fails at once", `{"rules": [{"reply": {"fault": {"kind": "http_error", "status": 401}}}]}`, "error", "model_error", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(tc.script)})
			st := s.Ask(t, s.Conversation(t), "hello")
			events := s.Stream(t, st.StreamURL, 0, 0)
			require.Equal(t, tc.status, events[len(events)-1].Data["status"])
			require.Len(t, s.Model.Requests(), tc.requests)
			if tc.status == "done" {
				require.Equal(t, "ok", hubtest.Text(events), "the failed attempt's partial text is discarded")
				discards := 0
				for _, e := range events {
					if e.Type == "status" && e.Data["discard"] == true {
						discards++
					}
				}
				require.Equal(t, tc.requests-1, discards, "each retry tells the client to discard")
			} else {
				turn := s.AwaitStatus(t, st.TurnID)
				require.Equal(t, tc.code, turn["error"].(map[string]any)["code"])
			}
		})
	}
}

func TestRetryAfterIsRespected(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(
		`{"rules": [{"times": 1, "reply": {"fault": {"kind": "rate_limit", "retryAfter": 2}}}, {"reply": {"text": "ok"}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hello")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.Len(t, reqs, 2)
	gap := reqs[1].ReceivedAt.Sub(reqs[0].ReceivedAt)
	require.GreaterOrEqual(t, gap.Seconds(), 2.0, "the second call waited for Retry-After")
}

func TestStepLimitEndsWithToolsOffAnswer(t *testing.T) {
	t.Parallel()
	loop := `{"rules": [
	  {"match": {"toolsOffered": false}, "reply": {"text": "Here is what I found."}},
	  {"reply": {"toolCalls": [{"name": "hub_list_tasks", "arguments": {}}]}}
	]}`
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(loop)})
	st := s.Ask(t, s.Conversation(t), "keep looking")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	reqs := s.Model.Requests()
	require.Len(t, reqs, 8, "at most 8 model steps")
	for i, r := range reqs[:7] {
		require.NotEmpty(t, r.Tools, "step %d offers tools", i+1)
	}
	require.Empty(t, reqs[7].Tools, "the last step is tools-off")
	require.Equal(t, "Here is what I found.", hubtest.Text(events))
}

func TestToolResultsAreCut(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": "hub_list_tasks", "arguments": {"limit": 200}}]}},
	  {"reply": {"text": "ok"}}]}`)})
	var titles []map[string]any
	for i := 0; i < 150; i++ {
		titles = append(titles, map[string]any{"title": strings.Repeat("Long task title ", 6) + string(rune('A'+i%26))})
	}
	for _, tt := range titles {
		r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/tasks", tt)
		require.Equal(t, http.StatusCreated, r.Status)
	}
	st := s.Ask(t, s.Conversation(t), "list everything")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.Len(t, reqs, 2)
	m := reqs[1].Messages
	result := m[len(m)-1].Content
	require.LessOrEqual(t, utf8.RuneCountInString(result), 6000)
	require.Contains(t, result, "call again with offset", "a cut list says where to continue")
}

func TestSecondTurnWhileRunningIsConflict(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(
		`{"rules": [{"reply": {"text": "slow", "firstTokenDelay": "1s"}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "first")
	r := s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "second"})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "conflict", r.JSON(t)["error"].(map[string]any)["code"])
	s.Stream(t, st.StreamURL, 0, 0)
	// Once it ended, the next message starts a turn.
	s.Ask(t, conv, "second")
}

func TestRetryRunsAFailedTurnAgain(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(
		`{"rules": [{"times": 1, "reply": {"fault": {"kind": "http_error", "status": 400}}}, {"reply": {"text": "second time lucky"}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "hello")
	s.Stream(t, st.StreamURL, 0, 0)

	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/retry", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var again hubtest.Started
	r.Decode(t, &again)
	require.NotEqual(t, st.TurnID, again.TurnID)
	events := s.Stream(t, again.StreamURL, 0, 0)
	require.Equal(t, "second time lucky", hubtest.Text(events))

	// The error turn never enters history: the retry's model request holds
	// the person's message once and no error answer.
	reqs := s.Model.Requests()
	var users int
	for _, m := range reqs[1].Messages {
		if m.Role == "user" {
			users++
		}
		require.NotEqual(t, "assistant", m.Role)
	}
	require.Equal(t, 1, users)

	// A done turn cannot be retried.
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+again.TurnID+"/retry", nil)
	require.Equal(t, http.StatusConflict, r.Status)
}

func TestHistoryCarriesEarlierMessages(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(
		`{"rules": [{"match": {"lastUser": "(\\w+)$"}, "reply": {"text": "answer to {{index .Groups 1}}"}}]}`)})
	conv := s.Conversation(t)
	for _, q := range []string{"one", "two"} {
		st := s.Ask(t, conv, q)
		s.Stream(t, st.StreamURL, 0, 0)
	}
	reqs := s.Model.Requests()
	require.Len(t, reqs, 2)
	var roles []string
	for _, m := range reqs[1].Messages {
		roles = append(roles, m.Role)
	}
	require.Equal(t, []string{"system", "user", "assistant", "user"}, roles)
	require.Equal(t, "answer to one", reqs[1].Messages[2].Content)
	require.True(t, strings.HasSuffix(reqs[1].Messages[3].Content, "two"))
	require.Contains(t, reqs[1].Messages[3].Content, "<context>")
}

func TestDevModeOnSQLite(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, Script: fakemodel.DefaultScript()})
	st := s.Ask(t, s.Conversation(t), "add a task called Buy milk")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	r := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	tasks := r.JSON(t)["tasks"].([]any)
	require.Len(t, tasks, 1)
	require.Equal(t, "Buy milk", tasks[0].(map[string]any)["title"])
}

func TestModelPastItsLimitEndsWithTimeout(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{ModelTimeout: 2 * time.Second,
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"fault": {"kind": "hang"}}}]}`)})
	st := s.Ask(t, s.Conversation(t), "hello")
	events := s.Stream(t, st.StreamURL, 0, 0)
	var errFrame map[string]any
	for _, e := range events {
		if e.Type == "error" {
			errFrame = e.Data
		}
	}
	require.NotNil(t, errFrame)
	require.Equal(t, "timeout", errFrame["code"])
	require.Equal(t, "fakemodel did not answer within 2 seconds, so I stopped waiting. Ask again, or try a narrower question.", errFrame["message"])
	require.Equal(t, "error", events[len(events)-1].Data["status"])
	reqs := s.Model.Requests()
	require.Len(t, reqs, 1, "a call past its limit is not retried")
	require.NotNil(t, reqs[0].ClientDisconnectedAt, "the model's connection was closed")
}
