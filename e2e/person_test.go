//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// systemMessage is the instructions a recorded model request carried.
func systemMessage(t *testing.T, r fakemodel.RecordedRequest) string {
	t.Helper()
	require.NotEmpty(t, r.Messages)
	require.Equal(t, "system", r.Messages[0].Role)
	return r.Messages[0].Content
}

// The profile and skills through the real API, read back by the model: the
// instructions it receives carry the persona, the first name, the enabled
// skills and the space's apps; hub_read_skill returns a skill's
// instructions; the instructions are the same bytes for every model
// request of a conversation until the person changes something.
func TestTheModelKnowsThePersonTheirSkillsAndApps(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": []}`)})

	r := s.Do(t, s.Token, "GET", "/api/me/profile", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, map[string]any{"name": "Mira Chen", "firstName": "", "persona": ""}, r.JSON(t))
	r = s.Do(t, s.Token, "PATCH", "/api/me/profile", map[string]any{"persona": "I work as a lawyer for small companies."})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "I work as a lawyer for small companies.", r.JSON(t)["persona"])

	r = s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "Weekly report",
		"description": "The Friday status report for the partners", "instructions": "Three bullets: done, next, blocked. Sign as Mira."})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	report := r.JSON(t)
	require.Equal(t, true, report["enabled"], "enabled by default")
	require.EqualValues(t, 1, report["version"])
	reportID := report["id"].(string)
	r = s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "Archive", "description": "Old way",
		"instructions": "never read", "enabled": false})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	offID := r.JSON(t)["id"].(string)
	r = s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "Brief", "description": "Morning brief",
		"instructions": "for the brief only", "purpose": "morning-brief"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)

	r = s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"name": "Team updates", "url": "https://hooks.example.com/T1"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)

	// The model reads the listed skill, then one switched off, then answers.
	s.Model.SetScript(fakemodel.MustParseScript(strings.NewReplacer("REPORT", reportID, "OFF", offID).Replace(`{"rules": [
	  {"times": 1, "match": {"lastUser": "report", "afterToolResult": false, "offered": "hub_read_skill"},
	   "reply": {"toolCalls": [{"name": "hub_read_skill", "arguments": {"id": "REPORT"}}]}},
	  {"times": 1, "match": {"afterToolResult": true}, "reply": {"toolCalls": [{"name": "hub_read_skill", "arguments": {"id": "OFF"}}]}},
	  {"reply": {"text": "ok"}}]}`)))
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "write my weekly report")
	events := s.Stream(t, st.StreamURL, 0, 0)

	reqs := s.Model.Requests()
	require.Len(t, reqs, 3)
	sys := systemMessage(t, reqs[0])
	require.Contains(t, sys, "working for Mira in the space “Team”")
	require.Contains(t, sys, "About Mira, in their words: I work as a lawyer for small companies.")
	require.Contains(t, sys, "- Weekly report ("+reportID+"): The Friday status report for the partners\n")
	require.NotContains(t, sys, "Archive", "a skill switched off is not listed")
	require.NotContains(t, sys, "Brief", "a skill with a purpose is not listed")
	require.Contains(t, sys, "- Team updates (webhook)\n")
	require.Contains(t, sys, "Any other app is not connected.")
	require.Contains(t, sys, "Changes in connected apps are switched off in the person's settings.")
	require.Contains(t, reqs[0].Tools, "hub_read_skill", "offered when skills are listed")

	// hub_read_skill returned the skill's instructions to the model …
	var result struct {
		Summary string
		Data    struct {
			Skill struct{ ID, Name, Instructions string }
		}
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	require.Equal(t, "tool", last.Role)
	require.NoError(t, json.Unmarshal([]byte(last.Content), &result), last.Content)
	require.Equal(t, "Three bullets: done, next, blocked. Sign as Mira.", result.Data.Skill.Instructions)
	require.Equal(t, "Read the skill “Weekly report”.", result.Summary)
	// … and a skill switched off is not found, readably.
	last = reqs[2].Messages[len(reqs[2].Messages)-1]
	require.Contains(t, last.Content, "not_found")
	require.Contains(t, last.Content, "there is no enabled skill with this id")
	require.NotContains(t, last.Content, "never read")
	var refsFrame map[string]any
	for _, e := range events {
		if e.Type == "refs" {
			refsFrame = e.Data
		}
	}
	require.Contains(t, fmt.Sprint(refsFrame["refs"]), reportID, "the skills the instructions name are refs")

	// Cacheable: every request of the turn and the next message's carry the
	// same bytes while nothing the person controls changed.
	for _, q := range reqs {
		require.Equal(t, sys, systemMessage(t, q))
	}
	s.Model.SetScript(fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`))
	s.Model.Reset()
	st = s.Ask(t, conv, "thanks")
	s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, sys, systemMessage(t, s.Model.Requests()[0]), "byte-identical for the next message")

	// A change the person makes shows in the next message's instructions.
	r = s.Do(t, s.Token, "PATCH", "/api/me/skills/"+reportID, map[string]any{"version": 1, "description": "The Monday report"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s.Model.Reset()
	st = s.Ask(t, conv, "and now?")
	s.Stream(t, st.StreamURL, 0, 0)
	require.Contains(t, systemMessage(t, s.Model.Requests()[0]), "("+reportID+"): The Monday report\n")
}

// A guest is told of no apps, and with no skills hub_read_skill is not
// offered; a placeholder account name is never used as a first name.
func TestAGuestsInstructionsNameNoApps(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{SQLite: true, Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"name": "Team updates", "url": "https://hooks.example.com/T1"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	guest, _ := s.Member(t, "Team", workspace.DevOwnerName, workspace.RoleGuest)
	r = s.Do(t, guest, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	conv := r.JSON(t)["id"].(string)
	r = s.Do(t, guest, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "what apps do we have?"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)
	req := s.Model.Requests()[0]
	sys := systemMessage(t, req)
	require.Contains(t, sys, "working for the person in the space", "never “Demo”")
	require.NotContains(t, sys, "Demo")
	require.NotContains(t, sys, "Team updates")
	require.NotContains(t, sys, "Any other app")
	require.NotContains(t, req.Tools, "hub_read_skill")
}

// A connected app whose post failed is named as failing in the next
// turn's instructions, until a post to it works again.
func TestAFailingAppIsNamedToReconnect(t *testing.T) {
	t.Parallel()
	var gone atomic.Bool
	gone.Store(true)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			w.WriteHeader(http.StatusGone)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer app.Close()
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{strings.TrimPrefix(app.URL, "http://")},
		Script: fakemodel.MustParseScript(`{"rules": []}`)})
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"name": "Alerts", "url": app.URL + "/hook"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	connID := r.JSON(t)["id"].(string)
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s.Model.SetScript(fakemodel.MustParseScript(strings.Replace(`{"rules": [
	  {"match": {"lastUser": "post", "afterToolResult": false}, "reply": {"toolCalls": [{"name": "apps_post_update", "arguments": {"connectionId": "CONN", "text": "Backup done"}}]}},
	  {"reply": {"text": "ok"}}]}`, "CONN", connID, 1)))
	conv := s.Conversation(t)
	post := func() string {
		t.Helper()
		st := s.Ask(t, conv, "post that the backup is done")
		s.Stream(t, st.StreamURL, 0, 0)
		r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var res struct{ Receipts []struct{ Status string } }
		r.Decode(t, &res)
		return res.Receipts[0].Status
	}
	next := func() string {
		t.Helper()
		s.Model.Reset()
		st := s.Ask(t, conv, "hello")
		s.Stream(t, st.StreamURL, 0, 0)
		return systemMessage(t, s.Model.Requests()[0])
	}
	require.Contains(t, next(), "- Alerts (webhook)\n")
	require.Equal(t, "failed", post())
	sys := next()
	require.Contains(t, sys, "- Alerts (webhook, failing: it answered 410 Gone)\n")
	require.Contains(t, sys, "reconnects it in Settings → Connections")
	r = s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/connections", nil)
	require.Equal(t, "it answered 410 Gone", r.JSON(t)["connections"].([]any)[0].(map[string]any)["failure"])
	gone.Store(false)
	require.Equal(t, "succeeded", post())
	require.Contains(t, next(), "- Alerts (webhook)\n", "a post that works clears it")
}

// Bad input to the profile and skills routes: a structured 4xx, nothing
// changed; another person's skill is 404; a stale version 409.
func TestProfileAndSkillsRefuseBadInput(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{NoModel: true, SQLite: true})
	other, _ := s.Member(t, "Team", "Ken Ito", workspace.RoleEditor)
	errOf := func(r hubtest.Response) map[string]any {
		t.Helper()
		return r.JSON(t)["error"].(map[string]any)
	}

	for _, tc := range []struct {
		body map[string]any
		path string
	}{
		{map[string]any{"persona": strings.Repeat("a", workspace.MaxPersona+1)}, "/persona"},
		{map[string]any{"persona": "one\ntwo"}, "/persona"},
		{map[string]any{"firstName": "Two words"}, "/firstName"},
		{map[string]any{"nickname": "x"}, "/nickname"},
	} {
		r := s.Do(t, s.Token, "PATCH", "/api/me/profile", tc.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", tc.body, r.Body)
		require.Equal(t, "invalid_payload", errOf(r)["code"])
		require.Equal(t, tc.path, errOf(r)["path"])
	}
	r := s.Do(t, s.Token, "PATCH", "/api/me/profile", map[string]any{"persona": 7})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "invalid_payload", errOf(r)["code"])
	r = s.Do(t, s.Token, "GET", "/api/me/profile", nil)
	require.Equal(t, "", r.JSON(t)["persona"], "nothing saved")

	ok := func() map[string]any {
		return map[string]any{"name": "Weekly report", "description": "d", "instructions": "i"}
	}
	for _, tc := range []struct {
		field string
		value any
		path  string
	}{
		{"name", strings.Repeat("n", workspace.MaxSkillName+1), "/name"},
		{"name", "", "/name"},
		{"description", strings.Repeat("d", workspace.MaxSkillDescription+1), "/description"},
		{"instructions", strings.Repeat("i", workspace.MaxSkillInstructions+1), "/instructions"},
		{"enabled", "yes", "/enabled"},
		{"purpose", "Not A Slug", "/purpose"},
		{"owner", "x", "/owner"},
	} {
		body := ok()
		body[tc.field] = tc.value
		r := s.Do(t, s.Token, "POST", "/api/me/skills", body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", tc.field, r.Body)
		require.Equal(t, "invalid_payload", errOf(r)["code"])
		require.Equal(t, tc.path, errOf(r)["path"])
	}
	r = s.Do(t, s.Token, "GET", "/api/me/skills", nil)
	require.Equal(t, map[string]any{"skills": []any{}}, r.JSON(t), "nothing stored")

	r = s.Do(t, s.Token, "POST", "/api/me/skills", ok())
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	r = s.Do(t, s.Token, "POST", "/api/me/skills", map[string]any{"name": "weekly REPORT", "description": "d", "instructions": "i"})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Equal(t, "conflict", errOf(r)["code"])

	// Versions: the first edit wins, the second, made against the same
	// version, is 409 and says what to do.
	r = s.Do(t, s.Token, "PATCH", "/api/me/skills/"+id, map[string]any{"version": 1, "instructions": "new"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 2, r.JSON(t)["version"])
	r = s.Do(t, s.Token, "PATCH", "/api/me/skills/"+id, map[string]any{"version": 1, "instructions": "stale"})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	require.Equal(t, "conflict", errOf(r)["code"])
	require.Contains(t, errOf(r)["message"], "is at version 2, not 1")
	require.Contains(t, errOf(r)["message"], "read it again")
	r = s.Do(t, s.Token, "PATCH", "/api/me/skills/"+id, map[string]any{"instructions": "no version"})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	require.Equal(t, "/version", errOf(r)["path"])
	r = s.Do(t, s.Token, "PATCH", "/api/me/skills/"+id, map[string]any{"version": 2, "description": strings.Repeat("d", workspace.MaxSkillDescription+1)})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "GET", "/api/me/skills/"+id, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "new", r.JSON(t)["instructions"], "nothing changed by the refused edits")
	require.EqualValues(t, 2, r.JSON(t)["version"])

	// Unknown ids and another person's skill are 404 alike.
	for _, path := range []string{"/api/me/skills/skill_nope", "/api/me/skills/" + id} {
		token := other
		if strings.HasSuffix(path, "nope") {
			token = s.Token
		}
		for _, m := range []struct {
			method string
			body   any
		}{{"GET", nil}, {"PATCH", map[string]any{"version": 2, "name": "x"}}, {"DELETE", nil}} {
			r = s.Do(t, token, m.method, path, m.body)
			require.Equal(t, http.StatusNotFound, r.Status, "%s %s: %s", m.method, path, r.Body)
			require.Equal(t, "not_found", errOf(r)["code"])
		}
	}
	r = s.Do(t, other, "GET", "/api/me/skills", nil)
	require.Equal(t, map[string]any{"skills": []any{}}, r.JSON(t), "nobody else sees them")

	r = s.Do(t, s.Token, "DELETE", "/api/me/skills/"+id+"?version=1", nil)
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "DELETE", "/api/me/skills/"+id+"?version=x", nil)
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "DELETE", "/api/me/skills/"+id+"?version=2", nil)
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "GET", "/api/me/skills/"+id, nil)
	require.Equal(t, http.StatusNotFound, r.Status)

	r = s.Do(t, "", "GET", "/api/openapi.json", nil)
	paths := r.JSON(t)["paths"].(map[string]any)
	require.Contains(t, paths, "/api/me/profile")
	require.Contains(t, paths, "/api/me/skills/{id}")
}
