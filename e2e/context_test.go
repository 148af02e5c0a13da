//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/fakemodel"
	"hub/hubtest"
)

// contextTheModelRead is the <context> block of the last model request
// whose last message holds text.
func contextTheModelRead(t *testing.T, s *hubtest.Stack, text string) string {
	t.Helper()
	reqs := s.Model.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		msgs := reqs[i].Messages
		if len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1].Content, text) {
			continue
		}
		for j := len(msgs) - 1; j >= 0; j-- {
			if start := strings.Index(msgs[j].Content, "<context>"); start >= 0 {
				rest := msgs[j].Content[start:]
				end := strings.Index(rest, "</context>")
				require.GreaterOrEqual(t, end, 0)
				return rest[:end+len("</context>")]
			}
		}
	}
	t.Fatalf("no model request for %q carried a context", text)
	return ""
}

// newRecord creates a task or project through the REST api and returns its id.
func newRecord(t *testing.T, s *hubtest.Stack, token, spaceID, kind string, body map[string]any) string {
	t.Helper()
	r := s.Do(t, token, "POST", "/api/spaces/"+spaceID+"/"+kind, body)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)["id"].(string)
}

// askWith posts a message with extra fields (context, mentions) and streams
// the turn to its end.
func askWith(t *testing.T, s *hubtest.Stack, conv string, body map[string]any) (hubtest.Started, []hubtest.Event) {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", body)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	return st, s.Stream(t, st.StreamURL, 0, 0)
}

type savedMessage struct {
	ID       string `json:"id"`
	Role     string `json:"role"`
	Text     string `json:"text"`
	Mentions []struct {
		Kind, ID, Label string
	} `json:"mentions"`
	ToolCalls []struct {
		ID, Tool, Summary, Status string
		Refs                      []struct{ Kind, ID, Label string }
		Receipt                   *struct {
			Status, Summary string
			Refs            []struct{ Kind, ID, Label string }
		}
	} `json:"toolCalls"`
	Proposals []struct{ CallID, Preview, Status string } `json:"proposals"`
}

func messagesOf(t *testing.T, s *hubtest.Stack, conv string) []savedMessage {
	t.Helper()
	var out struct{ Messages []savedMessage }
	r := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r.Decode(t, &out)
	return out.Messages
}

// Typed mentions are resolved by exact name in the space like id mentions:
// one that names one record is a mention (saved on the message, a link in
// the context); an ambiguous or unknown one stays as typed and the model is
// told it was not resolved.
func TestTypedMentionsResolvedByExactName(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Noted."}}]}`)})
	s.Member(t, "Team", "Ken Ito", "editor")
	ken := personID(t, s, s.SpaceID, "Ken Ito")
	brief := newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Draft brief"})
	newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Call Ken"})
	newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Call Ken"})
	otherToken, otherSpace := s.Member(t, "Elsewhere", "Otto Outsider", "owner")
	newRecord(t, s, otherToken, otherSpace, "tasks", map[string]any{"title": "Secret plan"})

	text := "@people:Ken Ito, look at @task:Draft brief, @task:Call Ken, @task:Secret plan and @task:Nothing of the kind"
	conv := s.Conversation(t)
	_, events := askWith(t, s, conv, map[string]any{"text": text})
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	user := messagesOf(t, s, conv)[0]
	require.Equal(t, text, user.Text, "the text stays as typed")
	require.Len(t, user.Mentions, 2, "%+v", user.Mentions)
	require.Equal(t, ken, user.Mentions[0].ID)
	require.Equal(t, "person", user.Mentions[0].Kind)
	require.Equal(t, brief, user.Mentions[1].ID)

	block := contextTheModelRead(t, s, "look at")
	require.Contains(t, block, "Mentioned:\n- [Ken Ito](hub://person/"+ken+")\n- [Draft brief](hub://task/"+brief+")\n")
	require.Contains(t, block, "Typed mentions not resolved (they stay as typed in the message):\n")
	require.Contains(t, block, `- "@task:Call Ken": 2 tasks have this name`)
	require.Contains(t, block, `- "@task:Secret": no task of this space`, "another space's task is unknown here; the note quotes the mention, not the text after it")
	require.Contains(t, block, `- "@task:Nothing": no task of this space`)
	require.NotContains(t, block, "of the kind", "the text after a mention is not quoted")
	refs := events[0]
	require.Equal(t, "refs", refs.Type)
	require.Len(t, refs.Data["refs"], 2, "the turn knows the resolved ones")
}

// The page context's ids are resolved in the active space: the open item is
// a link with its status, due date, priority, project and people; an id of
// another space (one the person cannot open) is dropped with a note and
// never reaches the model.
func TestPageContextResolvedInTheActiveSpace(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Noted."}}]}`)})
	s.Member(t, "Team", "Ken Ito", "editor")
	ken := personID(t, s, s.SpaceID, "Ken Ito")
	launch := newRecord(t, s, s.Token, s.SpaceID, "projects", map[string]any{"name": "Launch"})
	brief := newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Draft brief", "dueDate": "2026-03-06",
		"priority": "high", "projectId": launch, "assigneeId": ken})
	call := newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Call Ken"})
	otherToken, otherSpace := s.Member(t, "Elsewhere", "Otto Outsider", "owner")
	secret := newRecord(t, s, otherToken, otherSpace, "tasks", map[string]any{"title": "Secret plan"})

	conv := s.Conversation(t)
	_, events := askWith(t, s, conv, map[string]any{"text": "what is this about?", "context": map[string]any{
		"path": "/tasks/" + brief, "open": map[string]any{"kind": "task", "id": brief},
		"surface": map[string]any{"kind": "board", "selectedIds": []string{call, secret}, "visibleIds": []string{brief, call, secret}},
	}})
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	block := contextTheModelRead(t, s, "what is this about?")
	require.Contains(t, block, "Open item: [Draft brief](hub://task/"+brief+") (status todo, due 2026-03-06, priority high, project [Launch](hub://project/"+
		launch+"), people [Ken Ito](hub://person/"+ken+") (assignee))\n")
	require.Contains(t, block, "Selected: [Call Ken](hub://task/"+call+")\n")
	require.Contains(t, block, "Left out of the page: /surface/selectedIds: 1 of 2 ids name no record the person can open in this space\n")
	require.Contains(t, block, "Left out of the page: /surface/visibleIds: 1 of 3 ids name no record the person can open in this space\n")
	for _, req := range s.Model.Requests() {
		raw, err := json.Marshal(req.Messages)
		require.NoError(t, err)
		require.NotContains(t, string(raw), secret, "a supplied id is never evidence of access")
	}
	refs := events[0].Data["refs"].([]any)
	require.Len(t, refs, 2, "the open and selected records are refs of the turn")

	// An open item of another space is dropped with a note too.
	askWith(t, s, conv, map[string]any{"text": "and this one?", "context": map[string]any{"openId": secret}})
	block = contextTheModelRead(t, s, "and this one?")
	require.NotContains(t, block, "Open item:")
	require.Contains(t, block, "Left out of the page: the open item (/openId) names no record the person can open in this space\n")
}

// doAt sends a request to another api process.
func doAt(t *testing.T, base, token, method, path string, body any) int {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(method, base+path, bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// A record of the conversation that someone else changed since the
// person's last message shows in the next turn's context, by title, even
// when the change went through another api process (the change log, not an
// in-process subscriber); the person's own changes and records the
// conversation does not know do not.
func TestAnotherPersonsChangeShowsInTheNextTurn(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"lastUser": "(?im)^add (.+)$", "afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "{{index .Groups 1}}"}]}}]}},
	  {"match": {"afterToolResult": true}, "reply": {"text": "{{.LastToolSummary}}"}},
	  {"reply": {"text": "Noted."}}]}`)})
	kenToken, _ := s.Member(t, "Team", "Ken Ito", "editor")
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add Draft brief")
	s.Stream(t, st.StreamURL, 0, 0)
	st = s.Ask(t, conv, "add Call Ken")
	s.Stream(t, st.StreamURL, 0, 0)
	var tasks struct{ Tasks []struct{ ID, Title string } }
	s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Decode(t, &tasks)
	require.Len(t, tasks.Tasks, 2)
	brief, call := tasks.Tasks[0].ID, tasks.Tasks[1].ID
	unrelated := newRecord(t, s, kenToken, s.SpaceID, "tasks", map[string]any{"title": "Unrelated"})

	other := s.StartAPI(t)
	require.Equal(t, http.StatusOK, doAt(t, other.URL, kenToken, "PATCH", "/api/spaces/"+s.SpaceID+"/tasks/"+brief, map[string]any{"title": "Draft brief v2"}))
	require.Equal(t, http.StatusOK, doAt(t, other.URL, kenToken, "PATCH", "/api/spaces/"+s.SpaceID+"/tasks/"+unrelated, map[string]any{"status": "done"}))
	r := s.Do(t, s.Token, "PATCH", "/api/spaces/"+s.SpaceID+"/tasks/"+call, map[string]any{"status": "doing"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	st = s.Ask(t, conv, "what changed?")
	s.Stream(t, st.StreamURL, 0, 0)
	block := contextTheModelRead(t, s, "what changed?")
	require.Contains(t, block, assistant.ChangedNoteHeading+"\n- [Draft brief v2](hub://task/"+brief+") changed by Ken Ito\n")
	require.NotContains(t, block, call, "the person's own change is not news to them")
	require.NotContains(t, block, unrelated, "a record the conversation does not know")

	// Told once: the next message's window starts after this one.
	st = s.Ask(t, conv, "anything else?")
	s.Stream(t, st.StreamURL, 0, 0)
	require.NotContains(t, contextTheModelRead(t, s, "anything else?"), assistant.ChangedNoteHeading)

	// The instructions stay the same from one message to the next.
	reqs := s.Model.Requests()
	require.Equal(t, reqs[0].Messages[0].Content, reqs[len(reqs)-1].Messages[0].Content)
}

// The done frame carries the records the reply names by id, and the reply
// is saved with them as its mentions.
func TestDoneFrameCarriesTheRecordsTheReplyNames(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}, {"title": "Call Ken"}]}}]}},
	  {"reply": {"text": "Added them: {{.LastToolResult}}"}}]}`)})
	s.Member(t, "Team", "Ken Ito", "editor")
	ken := personID(t, s, s.SpaceID, "Ken Ito")
	conv := s.Conversation(t)
	_, events := askWith(t, s, conv, map[string]any{"text": "add two tasks for Ken", "mentions": []map[string]any{{"kind": "person", "id": ken}}})
	done := events[len(events)-1]
	require.Equal(t, "done", done.Type)
	refs := done.Data["refs"].([]any)
	require.Len(t, refs, 2, "the two tasks the text names by id, not the mention it does not: %v", refs)
	labels := []string{refs[0].(map[string]any)["label"].(string), refs[1].(map[string]any)["label"].(string)}
	require.ElementsMatch(t, []string{"Draft brief", "Call Ken"}, labels)

	reply := messagesOf(t, s, conv)[1]
	require.Len(t, reply.Mentions, 2)
	require.Equal(t, refs[0].(map[string]any)["id"], reply.Mentions[0].ID)
}

// Apply answers each landed call's refs and its final summary (not the
// preview), and saves them: the reply's tool call then shows the summary of
// what was done and the records it changed.
func TestApplyAnswersRefsAndTheFinalSummary(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var res struct {
		Receipts []struct {
			CallID, Status, Summary string
			Refs                    []struct{ Kind, ID, Label string }
		}
	}
	r.Decode(t, &res)
	require.Len(t, res.Receipts, 2)
	msgs := messagesOf(t, s, conv)
	calls := msgs[1].ToolCalls
	for i, rc := range res.Receipts {
		require.Equal(t, "succeeded", rc.Status)
		require.Len(t, rc.Refs, 1, "%+v", rc)
		require.Equal(t, "task", rc.Refs[0].Kind)
		require.NotEmpty(t, rc.Refs[0].ID)
		require.Equal(t, msgs[1].Proposals[i].CallID, rc.CallID)
		require.NotEqual(t, msgs[1].Proposals[i].Preview, rc.Summary, "the summary of what was done, not the preview")
		require.Contains(t, rc.Summary, rc.Refs[0].Label)

		require.Equal(t, rc.Summary, calls[i].Summary, "saved: the call shows what was done")
		require.NotNil(t, calls[i].Receipt)
		require.Equal(t, rc.Summary, calls[i].Receipt.Summary)
		require.Equal(t, rc.Refs[0].ID, calls[i].Refs[0].ID, "the call's refs are the records it changed")
		require.Equal(t, rc.Refs[0].ID, calls[i].Receipt.Refs[0].ID)
	}
	var tasks struct{ Tasks []struct{ ID string } }
	s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil).Decode(t, &tasks)
	require.ElementsMatch(t, []string{tasks.Tasks[0].ID, tasks.Tasks[1].ID}, []string{res.Receipts[0].Refs[0].ID, res.Receipts[1].Refs[0].ID})
}

// When the answer check sends a reply back (a held write reported as done,
// a tool call written as text), the stream tells the client to drop that
// text with a status frame {"discard": true}, and the saved reply is the
// corrected answer alone.
func TestSentBackAnswerIsDiscarded(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"match": {"lastUser": "(?im)^propose", "afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}]}}]}},
	  {"match": {"lastUser": "(?im)^propose"}, "reply": {"text": "Done, I added the task “Draft brief”."}},
	  {"match": {"lastUser": "(?i)proposed, not made"}, "reply": {"text": "I proposed the task “Draft brief”; apply it to add it."}},
	  {"match": {"lastUser": "(?im)^write"}, "reply": {"text": "hub_create_tasks({\"tasks\": [{\"title\": \"Call Ken\"}]})"}},
	  {"match": {"lastUser": "(?i)tool call as text", "afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Call Ken"}]}}]}},
	  {"match": {"afterToolResult": true}, "reply": {"text": "{{.LastToolSummary}}"}}]}`)})

	check := func(conv, text, wantText, gone string) {
		t.Helper()
		st, events := askWith(t, s, conv, map[string]any{"text": text})
		discards := 0
		for i, e := range events {
			if e.Type == "status" && e.Data["discard"] == true {
				discards++
				require.Equal(t, "text", events[i-1].Type, "it follows the text it drops")
			}
		}
		require.Equal(t, 1, discards)
		require.Equal(t, wantText, hubtest.Text(events), "what the person reads")
		msgs := messagesOf(t, s, conv)
		saved := msgs[len(msgs)-1]
		require.Equal(t, st.ReplyMessageID, saved.ID)
		require.Equal(t, wantText, saved.Text, "the saved reply is the corrected answer")
		require.NotContains(t, saved.Text, gone)
	}

	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status)
	check(s.Conversation(t), "propose a task to draft the brief", "I proposed the task “Draft brief”; apply it to add it.", "Done, I added")

	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "immediate"})
	require.Equal(t, http.StatusOK, r.Status)
	check(s.Conversation(t), "write a task to call Ken", "Added 1 task: “Call Ken”.", "hub_create_tasks(")
}

// TestRefsCarryCurrentLabels: a record another member renamed and
// finished since the conversation first saw it is sent in the next turn's
// refs frame, and saved on its reply, with its title and status as they
// are now, as the turn's context has them.
func TestRefsCarryCurrentLabels(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		refsCarryCurrentLabels(t, hubtest.Start(t, hubtest.Options{SQLite: sqlite, Script: fakemodel.MustParseScript(
			`{"rules": [{"match": {"lastUser": "(task_[a-z2-7]+)"}, "reply": {"text": "Looking at {{index .Groups 1}}."}}]}`)}))
	})
}

func refsCarryCurrentLabels(t *testing.T, s *hubtest.Stack) {
	kenToken, _ := s.Member(t, "Team", "Ken Ito", "editor")
	task := newRecord(t, s, s.Token, s.SpaceID, "tasks", map[string]any{"title": "Bar check n1"})
	conv := s.Conversation(t)
	_, events := askWith(t, s, conv, map[string]any{"text": "look at " + task, "mentions": []map[string]any{{"kind": "task", "id": task}}})
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	r := s.Do(t, kenToken, "PATCH", "/api/spaces/"+s.SpaceID+"/tasks/"+task, map[string]any{"title": "Bar check n2", "status": "done"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	_, events = askWith(t, s, conv, map[string]any{"text": "and now " + task + "?"})
	require.Equal(t, "refs", events[0].Type)
	label := func(refs any) (string, string) {
		for _, x := range refs.([]any) {
			ref := x.(map[string]any)
			if ref["id"] == task {
				detail, _ := ref["detail"].(string)
				return ref["label"].(string), detail
			}
		}
		t.Fatalf("no ref of %s in %v", task, refs)
		return "", ""
	}
	title, detail := label(events[0].Data["refs"])
	require.Equal(t, "Bar check n2", title, "the refs frame has the title as it is now")
	require.Equal(t, "done", detail)
	done := events[len(events)-1]
	require.Equal(t, "done", done.Data["status"])
	title, _ = label(done.Data["refs"])
	require.Equal(t, "Bar check n2", title)
	require.Contains(t, contextTheModelRead(t, s, "and now"), "Bar check n2")

	msgs := messagesOf(t, s, conv)
	reply := msgs[len(msgs)-1]
	require.Equal(t, "assistant", reply.Role)
	require.Len(t, reply.Mentions, 1, "%+v", reply.Mentions)
	require.Equal(t, "Bar check n2", reply.Mentions[0].Label, "the reply is saved naming the record as it is now")
}
