//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// The model's bytes cannot break a turn, on either engine: a reply with
// NUL characters is kept without them (saved and streamed alike), and
// tool-call arguments with a NUL, escaped or raw, give the model
// invalid_payload at the field's path instead of failing the save.
func TestModelBytesCannotBreakATurn(t *testing.T) {
	t.Parallel()
	// In the script's JSON, \u0000 is a NUL in the model's text; in
	// rawArguments it is a raw NUL in the arguments; in arguments it is
	// sent escaped, as the JSON text \u0000.
	script := fakemodel.MustParseScript(`{"rules": [
	  {"match": {"lastUser": "(?m)^reply$"}, "reply": {"text": "Hello\u0000 world\u0000!", "chunkSize": 3}},
	  {"match": {"lastUser": "(?m)^raw$", "afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "rawArguments": "{\"tasks\": [{\"title\": \"Draft\u0000brief\"}]}"}]}},
	  {"match": {"lastUser": "(?m)^escaped$", "afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "ok"}, {"title": "Draft\u0000brief"}]}}]}},
	  {"match": {"lastUser": "(?m)^name$", "afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create\u0000tasks", "arguments": {"tasks": [{"title": "x"}]}}]}},
	  {"match": {"afterToolResult": true}, "reply": {"text": "Tool said: {{.LastToolResult}}"}}
	]}`)
	for _, engine := range []struct {
		name   string
		sqlite bool
	}{{"postgres", false}, {"sqlite", true}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			s := hubtest.Start(t, hubtest.Options{SQLite: engine.sqlite, Script: script})
			conv := s.Conversation(t)

			st := s.Ask(t, conv, "reply")
			events := s.Stream(t, st.StreamURL, 0, 0)
			require.Equal(t, "done", events[len(events)-1].Data["status"], "%v", events[len(events)-1].Data)
			require.Equal(t, "Hello world!", hubtest.Text(events), "the stream keeps the text without its NULs")
			require.Equal(t, "done", s.AwaitStatus(t, st.TurnID)["status"])
			require.Equal(t, "Hello world!", replyText(t, s, conv, st.ReplyMessageID), "the saved reply too")

			for _, tc := range []struct{ ask, path string }{{"raw", "/tasks/0/title"}, {"escaped", "/tasks/1/title"}} {
				st := s.Ask(t, conv, tc.ask)
				events := s.Stream(t, st.StreamURL, 0, 0)
				require.Equal(t, "done", events[len(events)-1].Data["status"], "%s: %v", tc.ask, events[len(events)-1].Data)
				calls := finished(events)
				require.Len(t, calls, 1, tc.ask)
				require.Equal(t, "failed", calls[0]["phase"], tc.ask)
				require.Equal(t, "invalid_payload", toolErrorCode(t, calls[0]), tc.ask)
				require.Equal(t, tc.path, calls[0]["error"].(map[string]any)["path"], tc.ask)
				// The model read the error with its path and answered.
				reqs := s.Model.Requests()
				last := reqs[len(reqs)-1].Messages
				result := last[len(last)-1].Content
				require.Contains(t, result, "invalid_payload", tc.ask)
				require.Contains(t, result, tc.path, tc.ask)
				require.Contains(t, replyText(t, s, conv, st.ReplyMessageID), "Tool said:", tc.ask)
			}

			st = s.Ask(t, conv, "name")
			events = s.Stream(t, st.StreamURL, 0, 0)
			require.Equal(t, "done", events[len(events)-1].Data["status"], "%v", events[len(events)-1].Data)
			calls := finished(events)
			require.Len(t, calls, 1)
			require.Equal(t, "unknown_tool", toolErrorCode(t, calls[0]))

			r := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
			require.Equal(t, http.StatusOK, r.Status)
			require.EqualValues(t, 0, r.JSON(t)["total"], "no task was written")
		})
	}
}

// replyText is the saved text of a conversation's message.
func replyText(t *testing.T, s *hubtest.Stack, conv, messageID string) string {
	t.Helper()
	r := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	for _, m := range r.JSON(t)["messages"].([]any) {
		m := m.(map[string]any)
		if m["id"] == messageID {
			text := m["text"].(string)
			require.False(t, strings.ContainsRune(text, 0), "%q", text)
			return text
		}
	}
	t.Fatalf("no message %s", messageID)
	return ""
}
