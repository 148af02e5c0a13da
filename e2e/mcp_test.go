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
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/mcpapps/mcptest"
	"hub/workspace"
)

// mcpApp is the shared MCP test server (mcptest): a read tool
// (readOnlyHint) and a write tool that count their calls, and a write that
// takes its call in and never answers.
type mcpApp struct {
	*mcptest.Server
	writes     atomic.Int32
	slowWrites atomic.Int32
	reads      atomic.Int32
}

func newMCPApp(t *testing.T) *mcpApp {
	t.Helper()
	a := &mcpApp{Server: mcptest.New(t, "tracker")}
	a.Read("lookup", "Look up a ticket in the tracker", func(q string) string {
		a.reads.Add(1)
		return "found: " + q + " is open"
	})
	a.Write("create_ticket", "Create a ticket in the tracker", func(title string) (string, bool) {
		return fmt.Sprintf("ticket T-%d %q created", a.writes.Add(1), title), false
	})
	a.Hang("archive_board", "Archive a board in the tracker", false, &a.slowWrites)
	return a
}

func hostOf(u string) string { return strings.TrimPrefix(u, "http://") }

// toolNamed finds Hub's name for a server's tool in a connect answer.
func toolNamed(t *testing.T, conn map[string]any, tool string) string {
	t.Helper()
	for _, x := range conn["tools"].([]any) {
		m := x.(map[string]any)
		if m["tool"] == tool {
			return m["name"].(string)
		}
	}
	t.Fatalf("no tool %s in %v", tool, conn["tools"])
	return ""
}

// An owner connects an MCP server with a secret: the secret is never
// returned, a viewer sees no URL, a private address is refused; its tools
// are offered only when the person names the app; the read tool runs at
// once, the write is held whatever the write policy and Apply sends it
// exactly once.
func TestMCPServerAsConnectedApp(t *testing.T) {
	t.Parallel()
	app := newMCPApp(t)
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{hostOf(app.URL)}, Script: fakemodel.MustParseScript(`{"rules": []}`)})
	base := "/api/spaces/" + s.SpaceID + "/connections"
	viewer, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
	guest, _ := s.Member(t, "Team", "Gus Guest", workspace.RoleGuest)

	// Bad input: a private address, a secret on a webhook.
	for _, tc := range []struct {
		body map[string]any
		path string
	}{
		{map[string]any{"kind": "mcp", "name": "Inside", "url": "http://10.1.2.3/mcp"}, "/url"},
		{map[string]any{"kind": "mcp", "name": "Inside", "url": "http://127.0.0.1:1/mcp"}, "/url"},
		{map[string]any{"kind": "mcp", "name": "Meta", "url": "http://169.254.169.254/latest"}, "/url"},
		{map[string]any{"kind": "webhook", "name": "Hook", "url": "https://hooks.example.com/", "secret": "s"}, "/secret"},
		{map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL, "secret": "two\nlines"}, "/secret"},
	} {
		r := s.Do(t, s.Token, "POST", base, tc.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", tc.body, r.Body)
		e := r.JSON(t)["error"].(map[string]any)
		require.Equal(t, "invalid_payload", e["code"])
		require.Equal(t, tc.path, e["path"], "%v", tc.body)
	}
	require.Empty(t, s.Do(t, s.Token, "GET", base, nil).JSON(t)["connections"], "nothing was connected")

	r := s.Do(t, s.Token, "POST", base, map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL, "secret": "tr-s3cret"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.NotContains(t, string(r.Body), "tr-s3cret", "the secret is never returned")
	conn := r.JSON(t)
	connID := conn["id"].(string)
	require.Equal(t, "mcp", conn["kind"])
	require.Equal(t, true, conn["hasSecret"])
	require.Empty(t, conn["failure"])
	require.Len(t, conn["tools"], 3, "listed at connect")
	require.Equal(t, "Bearer tr-s3cret", app.Auth(), "the secret is sent as a bearer token")
	lookup, create := toolNamed(t, conn, "lookup"), toolNamed(t, conn, "create_ticket")
	require.Regexp(t, `^mcp_[a-z0-9]+_lookup$`, lookup)

	for _, token := range []string{s.Token, viewer} {
		r = s.Do(t, token, "GET", base, nil)
		require.NotContains(t, string(r.Body), "tr-s3cret")
	}
	vc := s.Do(t, viewer, "GET", base, nil).JSON(t)["connections"].([]any)[0].(map[string]any)
	require.NotContains(t, vc, "url", "a viewer sees no URL")
	require.NotContains(t, vc, "hasSecret")
	require.Empty(t, s.Do(t, guest, "GET", base, nil).JSON(t)["connections"])
	r = s.Do(t, viewer, "POST", base+"/"+connID+"/refresh", nil)
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	r = s.Do(t, guest, "POST", base+"/"+connID+"/refresh", nil)
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	r = s.Do(t, s.Token, "POST", base+"/"+connID+"/refresh", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.JSON(t)["tools"], 3)

	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	// A message that does not name the app gets none of its tools.
	s.Model.SetScript(fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Done."}}]}`))
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "what is on my plate today")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.NotEmpty(t, reqs)
	for _, name := range reqs[len(reqs)-1].Tools {
		require.False(t, strings.HasPrefix(name, "mcp_"), "an app's tools only when the person asks for it: %s", name)
	}
	require.Contains(t, reqs[len(reqs)-1].Messages[0].Content, "Tracker (mcp)", "the instructions name the app")

	// Naming it: the read runs at once, the write is held.
	s.Model.Reset()
	s.Model.SetScript(fakemodel.MustParseScript(fmt.Sprintf(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": %q, "arguments": {"query": "HUB-7"}},
	    {"name": %q, "arguments": {"title": "Fix the login"}}]}},
	  {"reply": {"text": "{{.LastToolSummary}}"}}]}`, lookup, create)))
	st = s.Ask(t, conv, "look up HUB-7 in Tracker and file a ticket there to fix the login")
	phases := map[string]string{}
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] != "started" {
			phases[e.Data["tool"].(string)] = e.Data["phase"].(string)
			if e.Data["phase"] == "held" {
				require.Contains(t, e.Data["summary"], "in Tracker", "the held call names the app")
				require.Contains(t, e.Data["summary"], "Fix the login")
			}
		}
	}
	require.Equal(t, "done", phases[lookup], "a read-only tool runs at once")
	require.Equal(t, "held", phases[create], "every other MCP tool waits for Apply, even under immediate")
	require.EqualValues(t, 1, app.reads.Load())
	require.Zero(t, app.writes.Load())
	reqs = s.Model.Requests()
	require.Contains(t, reqs[0].Tools, lookup)
	require.Contains(t, reqs[0].Tools, create)
	var schema string
	raw, _ := json.Marshal(reqs[0].Body)
	schema = string(raw)
	require.Contains(t, schema, "what to look up", "the server's schema is passed through")
	last := reqs[len(reqs)-1].Messages
	found := false
	for _, m := range last {
		if m.Role == "tool" && strings.Contains(m.Content, "found: HUB-7 is open") {
			found = true
		}
	}
	require.True(t, found, "the model reads the tool's answer")

	for range 3 {
		r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var res struct {
			Receipts []struct{ Status, Tool, Summary string }
		}
		r.Decode(t, &res)
		require.Len(t, res.Receipts, 1)
		require.Equal(t, "succeeded", res.Receipts[0].Status, "%s", r.Body)
		require.Equal(t, create, res.Receipts[0].Tool)
	}
	require.EqualValues(t, 1, app.writes.Load(), "sent once, however often Apply is asked")
}

// A server that hangs and one that answers garbage: connecting them works
// (with their failure), a turn that names them finishes within the bound
// without their tools, and the instructions name them as failing.
func TestMCPServerThatHangsOrAnswersGarbage(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":7,"capabilities":"no"}} trailing <html>`))
	}))
	t.Cleanup(garbage.Close)
	const bound = 500 * time.Millisecond
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{hostOf(hang.URL), hostOf(garbage.URL)}, MCPTimeout: bound,
		Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "Done."}}]}`)})
	base := "/api/spaces/" + s.SpaceID + "/connections"
	for name, url := range map[string]string{"Slowpoke": hang.URL, "Noise": garbage.URL} {
		start := time.Now()
		r := s.Do(t, s.Token, "POST", base, map[string]any{"kind": "mcp", "name": name, "url": url})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		require.NotEmpty(t, r.JSON(t)["failure"], "%s is connected with its failure", name)
		require.Less(t, time.Since(start), 5*time.Second)
	}

	conv := s.Conversation(t)
	start := time.Now()
	st := s.Ask(t, conv, "search Slowpoke and Noise for the launch plan")
	s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", s.AwaitStatus(t, st.TurnID)["status"])
	require.Less(t, time.Since(start), 15*time.Second, "the turn goes on without them")
	reqs := s.Model.Requests()
	require.NotEmpty(t, reqs)
	for _, name := range reqs[0].Tools {
		require.False(t, strings.HasPrefix(name, "mcp_"), "a failing server's tools are not offered: %s", name)
	}
	system := reqs[0].Messages[0].Content
	require.Contains(t, system, "Slowpoke (mcp, public data only, failing: it did not answer within")
	require.Contains(t, system, "Noise (mcp, public data only, failing:")
}

// A write the server takes in and never answers: Apply reports it unknown
// within the bound (it was sent; "sending" was recorded first), and a
// second Apply does not send it again unless the person says so.
func TestMCPWriteWithoutAnswerIsUnknown(t *testing.T) {
	t.Parallel()
	app := newMCPApp(t)
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{hostOf(app.URL)}, MCPTimeout: 500 * time.Millisecond,
		Script: fakemodel.MustParseScript(`{"rules": []}`)})
	r := s.Do(t, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	archive := toolNamed(t, r.JSON(t), "archive_board")
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s.Model.SetScript(fakemodel.MustParseScript(fmt.Sprintf(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [{"name": %q, "arguments": {"title": "Q3"}}]}},
	  {"reply": {"text": "Proposed."}}]}`, archive)))
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "archive the Q3 board in Tracker")
	s.Stream(t, st.StreamURL, 0, 0)
	apply := func(resend bool) string {
		t.Helper()
		r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID, "resendUnknown": resend})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var res struct{ Receipts []struct{ Status string } }
		r.Decode(t, &res)
		require.Len(t, res.Receipts, 1)
		return res.Receipts[0].Status
	}
	start := time.Now()
	require.Equal(t, "unknown", apply(false))
	require.Less(t, time.Since(start), 10*time.Second, "bounded")
	require.EqualValues(t, 1, app.slowWrites.Load())
	require.Equal(t, "unknown", apply(false), "not resent on its own")
	require.EqualValues(t, 1, app.slowWrites.Load())
	require.Equal(t, "unknown", apply(true), "resent when the person says so, and again no answer")
	require.EqualValues(t, 2, app.slowWrites.Load())
}

// hub_find_tools searches the space's working MCP servers' tools too: a
// message that does not name the app gets none of its tools offered, the
// model finds the one it needs, and it is offered (and held, as every
// MCP write is) for the rest of the turn.
func TestFindToolsFindsMCPTools(t *testing.T) {
	t.Parallel()
	app, broken := newMCPApp(t), newMCPApp(t)
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{hostOf(app.URL), hostOf(broken.URL)}, Script: fakemodel.MustParseScript(`{"rules": []}`)})
	base := "/api/spaces/" + s.SpaceID + "/connections"
	r := s.Do(t, s.Token, "POST", base, map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	create := toolNamed(t, r.JSON(t), "create_ticket")
	// A second server, listed while it worked, then failing: its kept
	// tools are never found.
	r = s.Do(t, s.Token, "POST", base, map[string]any{"kind": "mcp", "name": "Ledger", "url": broken.URL})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	ledger := r.JSON(t)
	brokenCreate := toolNamed(t, ledger, "create_ticket")
	broken.SetDown(true)
	r = s.Do(t, s.Token, "POST", base+"/"+ledger["id"].(string)+"/refresh", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.NotEmpty(t, r.JSON(t)["failure"], "%s", r.Body)
	r = s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"connectedAppWrites": true})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	s.Model.SetScript(fakemodel.MustParseScript(fmt.Sprintf(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_find_tools", "arguments": {"query": "create a ticket"}}]}},
	  {"times": 1, "match": {"offered": %q}, "reply": {"toolCalls": [
	    {"name": %q, "arguments": {"title": "Login bug"}}]}},
	  {"reply": {"text": "Done."}}]}`, create, create)))
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "please file something about the login bug")
	phases := map[string]string{}
	var found string
	for _, e := range s.Stream(t, st.StreamURL, 0, 0) {
		if e.Type == "tool" && e.Data["phase"] != "started" {
			phases[e.Data["tool"].(string)] = e.Data["phase"].(string)
			if e.Data["tool"] == "hub_find_tools" {
				found, _ = e.Data["summary"].(string)
			}
		}
	}
	reqs := s.Model.Requests()
	require.NotContains(t, reqs[0].Tools, create, "not offered before it was asked for")
	require.Equal(t, "done", phases["hub_find_tools"])
	require.Contains(t, found, create, "found among the tools")
	require.NotContains(t, found, brokenCreate, "a failing server's tools are not found")
	require.Equal(t, "held", phases[create], "offered after it was found, and held as every MCP write")
	require.Zero(t, app.writes.Load())
}
