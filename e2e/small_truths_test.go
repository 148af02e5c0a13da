//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/hubtest"
	"hub/workspace"
)

// errorOf is a 4xx's error body.
func errBody(t *testing.T, r hubtest.Response) map[string]any {
	t.Helper()
	e, ok := r.JSON(t)["error"].(map[string]any)
	require.True(t, ok, "an error body: %s", r.Body)
	return e
}

// requireInvalid asserts a 400 invalid_payload at path.
func requireInvalid(t *testing.T, r hubtest.Response, path string) {
	t.Helper()
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	e := errBody(t, r)
	require.Equal(t, "invalid_payload", e["code"], "%s", r.Body)
	if path != "" {
		require.Equal(t, path, e["path"], "%s", r.Body)
	}
}

// The small truths of issue 25 through the real api, on both engines, one
// stack each; the parts run in order.
func TestSmallTruths(t *testing.T) {
	t.Parallel()
	onBothEngines(t, func(t *testing.T, sqlite bool) {
		s := hubtest.Start(t, hubtest.Options{SQLite: sqlite, NoModel: true})
		t.Run("empty patch", func(t *testing.T) { anEmptyPatchChangesNothing(t, s) })
		t.Run("null bodies and limit 0", func(t *testing.T) { nullBodiesAndAZeroLimitAreRefused(t, s) })
		t.Run("control characters", func(t *testing.T) { oneLineFieldsRefuseControlCharacters(t, s) })
		t.Run("blocked webhooks", func(t *testing.T) { aWebhookToABlockedAddressIsRefusedAtCreation(t, s) })
		t.Run("conversations", func(t *testing.T) { aConversationIsReadAndRenamed(t, s) })
		t.Run("cut upload", func(t *testing.T) { aCutUploadIsABadRequest(t, s) })
		t.Run("count limits", func(t *testing.T) { countLimitsHoldUnderConcurrency(t, s) })
	})
}

// An empty PATCH of a task or project ({} or null) is refused: no new
// revision, no change row, and another editor's save at the revision they
// read still goes through.
func anEmptyPatchChangesNothing(t *testing.T, s *hubtest.Stack) {
	{
		tasks := "/api/spaces/" + s.SpaceID + "/tasks"
		projects := "/api/spaces/" + s.SpaceID + "/projects"
		r := s.Do(t, s.Token, "POST", tasks, map[string]any{"title": "Draft"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		task := r.JSON(t)
		r = s.Do(t, s.Token, "POST", projects, map[string]any{"name": "Atlas"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		project := r.JSON(t)
		changes := func() int64 {
			var n int64
			require.NoError(t, s.DB.SQL().QueryRowContext(t.Context(), "SELECT count(*) FROM record_changes").Scan(&n))
			return n
		}
		before := changes()

		for _, rec := range []struct {
			path, field string
			revision    any
		}{{tasks + "/" + task["id"].(string), "title", task["revision"]}, {projects + "/" + project["id"].(string), "name", project["revision"]}} {
			for _, body := range []any{"{}", "null", " null ", map[string]any{"revision": rec.revision}} {
				r := s.Do(t, s.Token, "PATCH", rec.path, body)
				requireInvalid(t, r, "")
			}
			r := s.Do(t, s.Token, "GET", rec.path, nil)
			require.Equal(t, rec.revision, r.JSON(t)["revision"], "the revision stays")
			r = s.Do(t, s.Token, "PATCH", rec.path, map[string]any{rec.field: "Renamed", "revision": rec.revision})
			require.Equal(t, http.StatusOK, r.Status, "the next save at the revision read goes through: %s", r.Body)
		}
		require.Equal(t, before+2, changes(), "only the two real changes wrote change rows")
	}
}

// null bodies are refused on the profile and settings PATCHes as [] is,
// and an audit page of 0 events is out of range as 201 is.
func nullBodiesAndAZeroLimitAreRefused(t *testing.T, s *hubtest.Stack) {
	{
		for _, path := range []string{"/api/me/profile", "/api/me/settings", "/api/spaces/" + s.SpaceID + "/settings"} {
			for _, body := range []string{"null", "[]", ""} {
				requireInvalid(t, s.Do(t, s.Token, "PATCH", path, body), "")
			}
		}
		audit := "/api/spaces/" + s.SpaceID + "/audit"
		for _, q := range []string{"?limit=0", "?limit=00", "?limit=201", "?limit=-1"} {
			requireInvalid(t, s.Do(t, s.Token, "GET", audit+q, nil), "/limit")
		}
		for _, q := range []string{"", "?limit=1", "?limit=200"} {
			r := s.Do(t, s.Token, "GET", audit+q, nil)
			require.Equal(t, http.StatusOK, r.Status, "%s: %s", q, r.Body)
		}
	}
}

// Control and text-direction characters are refused in the persona, in
// skill names and descriptions, conversation titles, task titles, project
// and connection names, as line breaks are; nothing is saved.
func oneLineFieldsRefuseControlCharacters(t *testing.T, s *hubtest.Stack) {
	{
		conv := s.Conversation(t)
		// The other subtests share the space: what is there before is all there is after.
		count := func(list string) int {
			r := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/"+list+"?limit=200", nil)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			return len(r.JSON(t)[list].([]any))
		}
		records := map[string]int{"tasks": count("tasks"), "projects": count("projects"), "connections": count("connections")}
		for _, bad := range []string{"red \x1b[31malert", "ring\abell", "back\bspace", "tab\there", "next\u0085line", "line\u2028sep",
			"\u202aembed", "\u202dover", "evil\u202etxt.exe", "\u2066isolate\u2069", "\u2067rtl", "\u2068first", "del\x7f"} {
			requireInvalid(t, s.Do(t, s.Token, "PATCH", "/api/me/profile", map[string]any{"persona": bad}), "/persona")
			for _, field := range []string{"name", "description"} {
				body := map[string]any{"name": "Weekly report", "description": "When I write the weekly report", "instructions": "Be brief."}
				body[field] = bad
				requireInvalid(t, s.Do(t, s.Token, "POST", "/api/me/skills", body), "/"+field)
			}
			requireInvalid(t, s.Do(t, s.Token, "PATCH", "/api/assistant/conversations/"+conv, map[string]any{"title": bad}), "/title")
			requireInvalid(t, s.Do(t, s.Token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID, "title": bad}), "/title")
			// Records' names too: a task's title, a project's and a connected app's name.
			requireInvalid(t, s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/tasks", map[string]any{"title": bad}), "/title")
			requireInvalid(t, s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/projects", map[string]any{"name": bad}), "/name")
			requireInvalid(t, s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections",
				map[string]any{"kind": "webhook", "name": bad, "url": "https://hooks.example.com/x"}), "/name")
		}
		for list, n := range records {
			require.Equal(t, n, count(list), "no %s saved", list)
		}
		r := s.Do(t, s.Token, "GET", "/api/me/profile", nil)
		require.Equal(t, "", r.JSON(t)["persona"], "nothing saved")
		r = s.Do(t, s.Token, "GET", "/api/me/skills", nil)
		require.Equal(t, map[string]any{"skills": []any{}}, r.JSON(t), "nothing saved")
		// Text in any script, with its own marks, stays welcome.
		r = s.Do(t, s.Token, "PATCH", "/api/me/profile", map[string]any{"persona": "أكتب التقارير — I write reports, naïvely 日本語"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	}
}

// A webhook to a blocked address is refused when it is connected, with
// the reason, as an MCP server's is; a host that does not resolve (yet) is
// kept for a webhook, checked again at every post.
func aWebhookToABlockedAddressIsRefusedAtCreation(t *testing.T, s *hubtest.Stack) {
	{
		path := "/api/spaces/" + s.SpaceID + "/connections"
		for url, why := range map[string]string{
			"http://127.0.0.1:9/hook":                 "a loopback address",
			"http://localhost:8080/hook":              "a loopback address",
			"http://[::1]:8080/hook":                  "a loopback address",
			"http://10.1.2.3/hook":                    "a private address",
			"http://192.168.1.1/admin":                "a private address",
			"http://172.16.0.1/":                      "a private address",
			"http://[fd00::1]/hook":                   "a unique local (private) address",
			"http://169.254.169.254/latest/meta-data": "a link-local address",
			"http://100.64.0.1/hook":                  "a carrier-grade NAT (shared) address",
			"http://0.0.0.0/hook":                     "an unspecified (this-network) address",
		} {
			r := s.Do(t, s.Token, "POST", path, map[string]any{"kind": "webhook", "name": "Alerts", "url": url})
			requireInvalid(t, r, "/url")
			msg := errBody(t, r)["message"].(string)
			require.Contains(t, msg, "Hub does not post to this address", url)
			require.Contains(t, msg, why, url)
		}
		r := s.Do(t, s.Token, "GET", path, nil)
		require.Equal(t, []any{}, r.JSON(t)["connections"], "nothing stored")
		r = s.Do(t, s.Token, "POST", path, map[string]any{"kind": "webhook", "name": "Later", "url": "https://hooks.hub-test.invalid/x"})
		require.Equal(t, http.StatusCreated, r.Status, "a host that does not resolve yet is kept: %s", r.Body)
		r = s.Do(t, s.Token, "POST", path, map[string]any{"kind": "webhook", "name": "Public", "url": "https://93.184.215.14/hook"})
		require.Equal(t, http.StatusCreated, r.Status, "a public address is fine: %s", r.Body)
	}
}

// Conversations are read and renamed one at a time; an untitled one takes
// its title from its first message; someone who cannot open one gets the
// 404 of one that does not exist.
func aConversationIsReadAndRenamed(t *testing.T, s *hubtest.Stack) {
	{
		other, _ := s.Member(t, "Elsewhere", "Ken Ito", workspace.RoleOwner)
		viewer, _ := s.Member(t, "Team", "Vi Ewer", workspace.RoleViewer)
		r := s.Do(t, s.Token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		conv := r.JSON(t)["id"].(string)
		path := "/api/assistant/conversations/" + conv

		r = s.Do(t, s.Token, "GET", path, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, conv, r.JSON(t)["id"])
		require.Equal(t, s.SpaceID, r.JSON(t)["spaceId"])
		require.Equal(t, "", r.JSON(t)["title"])

		// The first message titles it: trimmed, on one line, cut at a word.
		text := "  Plan the launch\nof the Atlas project with   the design team, the marketing team and everyone who has to sign off on the budget  "
		st := s.Ask(t, conv, text)
		s.AwaitStatus(t, st.TurnID)
		r = s.Do(t, s.Token, "GET", path, nil)
		title := r.JSON(t)["title"].(string)
		require.True(t, strings.HasPrefix(title, "Plan the launch of the Atlas project with the design team"), "%q", title)
		require.True(t, strings.HasSuffix(title, "…"), "%q", title)
		require.LessOrEqual(t, len([]rune(title)), 80)
		// A later message leaves it.
		st = s.Ask(t, conv, "And the next step?")
		s.AwaitStatus(t, st.TurnID)
		r = s.Do(t, s.Token, "GET", path, nil)
		require.Equal(t, title, r.JSON(t)["title"])

		r = s.Do(t, s.Token, "PATCH", path, map[string]any{"title": "  Launch plan  "})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, "Launch plan", r.JSON(t)["title"])
		r = s.Do(t, s.Token, "GET", "/api/assistant/conversations?spaceId="+s.SpaceID, nil)
		require.Equal(t, "Launch plan", r.JSON(t)["conversations"].([]any)[0].(map[string]any)["title"])

		for _, bad := range []any{"", "   ", strings.Repeat("t", 201), "two\nlines", 7, nil} {
			requireInvalid(t, s.Do(t, s.Token, "PATCH", path, map[string]any{"title": bad}), "/title")
		}
		requireInvalid(t, s.Do(t, s.Token, "PATCH", path, map[string]any{"title": "x", "spaceId": "y"}), "/spaceId")
		requireInvalid(t, s.Do(t, s.Token, "PATCH", path, "null"), "")
		r = s.Do(t, s.Token, "GET", path, nil)
		require.Equal(t, "Launch plan", r.JSON(t)["title"], "nothing changed by the refused requests")

		// Another space's owner, a member of the space who is not its
		// owner, an unknown id: the same 404.
		for _, who := range []struct{ token, path string }{{other, path}, {viewer, path}, {s.Token, "/api/assistant/conversations/conv_nope"}} {
			for _, m := range []struct {
				method string
				body   any
			}{{"GET", nil}, {"PATCH", map[string]any{"title": "Mine now"}}} {
				r := s.Do(t, who.token, m.method, who.path, m.body)
				require.Equal(t, http.StatusNotFound, r.Status, "%s %s: %s", m.method, who.path, r.Body)
				require.Equal(t, "not_found", errBody(t, r)["code"])
			}
		}
	}
}

// A multipart upload cut off before its closing boundary is the client's
// fault: 400 invalid_payload at /file, nothing stored.
func aCutUploadIsABadRequest(t *testing.T, s *hubtest.Stack) {
	{
		for _, body := range []string{
			"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello, this file ends without its boundary",
			"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n\r\n" + strings.Repeat("a whole line of text\n", 2000),
			"--B\r\nContent-Disposition: form-data; name=\"file\"; filena",
		} {
			req, err := http.NewRequest("POST", s.URL+"/api/spaces/"+s.SpaceID+"/files", strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+s.Token)
			req.Header.Set("Content-Type", "multipart/form-data; boundary=B")
			resp, err := s.HTTP.Do(req)
			require.NoError(t, err)
			raw, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			_ = resp.Body.Close()
			r := hubtest.Response{Status: resp.StatusCode, Body: raw, Header: resp.Header}
			requireInvalid(t, r, "/file")
		}
		r := s.Do(t, s.Token, "GET", "/api/spaces/"+s.SpaceID+"/files", nil)
		require.Equal(t, []any{}, r.JSON(t)["files"], "nothing stored")
	}
}

// Count limits hold when requests race: 20 at once at 95 skills (or 95
// connected apps) end at exactly 100, on Postgres (where each request's
// count once missed the others' rows) as on SQLite.
func countLimitsHoldUnderConcurrency(t *testing.T, s *hubtest.Stack) {
	{
		ctx := t.Context()
		token, space := s.Member(t, "Race", "Rae Cer", workspace.RoleOwner)
		r := s.Do(t, token, "GET", "/api/me/profile", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var personID string
		require.NoError(t, s.DB.SQL().QueryRowContext(ctx, "SELECT id FROM people WHERE name = 'Rae Cer'").Scan(&personID))
		owner := workspace.Actor{PersonID: personID, Via: workspace.ViaREST}
		for i := range workspace.MaxSkills - 5 {
			_, err := s.Workspace.CreateSkill(ctx, personID, workspace.NewSkill{Name: fmt.Sprintf("Skill %d", i), Description: "d", Instructions: "i"})
			require.NoError(t, err)
			_, err = s.Workspace.CreateConnection(ctx, owner, space, workspace.NewConnection{Kind: workspace.ConnectionWebhook,
				Name: fmt.Sprintf("App %d", i), URL: "https://93.184.215.14/hook"})
			require.NoError(t, err)
		}
		race := func(path string, body func(i int) map[string]any) map[int]int {
			var mu sync.Mutex
			statuses := map[int]int{}
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range 20 {
				wg.Go(func() {
					<-start
					r := s.Do(t, token, "POST", path, body(i))
					mu.Lock()
					statuses[r.Status]++
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
			return statuses
		}
		statuses := race("/api/me/skills", func(i int) map[string]any {
			return map[string]any{"name": fmt.Sprintf("Raced %d", i), "description": "d", "instructions": "i"}
		})
		require.Equal(t, map[int]int{http.StatusCreated: 5, http.StatusConflict: 15}, statuses)
		r = s.Do(t, token, "GET", "/api/me/skills", nil)
		require.Len(t, r.JSON(t)["skills"], workspace.MaxSkills)

		statuses = race("/api/spaces/"+space+"/connections", func(i int) map[string]any {
			return map[string]any{"kind": "webhook", "name": fmt.Sprintf("Raced %d", i), "url": "https://93.184.215.14/hook"}
		})
		require.Equal(t, map[int]int{http.StatusCreated: 5, http.StatusConflict: 15}, statuses)
		r = s.Do(t, token, "GET", "/api/spaces/"+space+"/connections", nil)
		require.Len(t, r.JSON(t)["connections"], workspace.MaxConnections)
	}
}
