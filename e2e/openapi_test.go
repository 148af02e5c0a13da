//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/stretchr/testify/require"

	"hub/api"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/retrieval"
	"hub/workspace"
)

// The OpenAPI document against the real api: every operation it lists is
// driven here with a valid request and with at least one bad one, and each
// answer's status, content type and body must be what the document says
// (libopenapi-validator; dates and formats asserted). The events of both
// streams are checked against TurnEvent and ActivityEvent, and every frame
// type must have been seen. An operation the document gains without a case
// here fails the test, as does one whose answers it describes wrongly.

// openapiScript answers by the message's first word: a turn that hangs
// (for stop, pause and resume), one whose model call fails (an error turn,
// for retry), one that proposes a write (Apply), one that writes at once
// (Undo), and a plain answer.
const openapiScript = `{"rules": [
  {"match": {"lastUser": "hang on"}, "reply": {"fault": {"kind": "hang"}}},
  {"match": {"lastUser": "fail please"}, "reply": {"fault": {"kind": "http_error", "status": 400}}},
  {"times": 1, "match": {"lastUser": "propose a task", "afterToolResult": false}, "reply": {"toolCalls": [
    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Draft brief"}]}}]}},
  {"times": 1, "match": {"lastUser": "write a task", "afterToolResult": false}, "reply": {"toolCalls": [
    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Call Mira"}]}}]}},
  {"reply": {"text": "Done: see the tasks."}}]}`

type specCheck struct {
	t      *testing.T
	s      *hubtest.Stack
	v      validator.Validator
	schema map[string]*base.Schema // TurnEvent, ActivityEvent
	frames schema_validation.SchemaValidator
	client *http.Client
	// seen[operation] is which kinds of answer it got: "ok" (2xx) and
	// "bad" (4xx).
	seen   map[string]map[string]bool
	events map[string]bool // turn frame types seen
}

// call is one request: route is the document's "METHOD /path/{param}",
// ids its path parameters in order.
type call struct {
	route  string
	ids    []string
	query  string
	token  string // "" sends none
	body   any    // JSON, or []byte sent as it is with ctype
	ctype  string
	header map[string]string
	want   int
	// events stops reading a stream after this many events (0: until the
	// done frame).
	events int
}

type answer struct {
	status int
	body   []byte
	events []sseEvent
}

type sseEvent struct {
	id    int64
	event string
	data  json.RawMessage
}

func TestOpenAPIDocumentMatchesRealAnswers(t *testing.T) {
	t.Parallel()
	app := newMCPApp(t)
	// An identity provider that cannot be reached: its sign-in routes
	// answer their redirects (to the console, with the reason).
	s := hubtest.Start(t, hubtest.Options{AppsAllow: []string{hostOf(app.URL)}, Script: fakemodel.MustParseScript(openapiScript),
		Env: map[string]string{"HUB_OIDC_ISSUER": "http://127.0.0.1:1", "HUB_OIDC_CLIENT_ID": "hub"}})
	c := newSpecCheck(t, s)
	owner := s.Token
	space := s.SpaceID

	// The browser's sign-in through the provider: no token.
	c.run(call{route: "GET /api/session/providers", want: 200})
	c.run(call{route: "GET /api/session/providers", query: "q=%FF", want: 400})
	c.run(call{route: "GET /api/session/oidc/login", want: 302})
	c.run(call{route: "GET /api/session/oidc/login", query: "q=%FF", want: 400})
	c.run(call{route: "GET /api/session/oidc/callback", query: "code=x&state=y", want: 302})
	c.run(call{route: "GET /api/session/oidc/callback", query: "code=%FF", want: 400})

	// Health, metrics and the document itself: no token; bad bytes in the
	// query are refused everywhere.
	for _, route := range []string{"GET /healthz", "GET /readyz", "GET /metrics", "GET /api/openapi.json"} {
		c.run(call{route: route, want: 200})
		c.run(call{route: route, query: "q=%FF", want: 400})
	}

	c.run(call{route: "GET /api/spaces", token: owner, want: 200})
	c.run(call{route: "GET /api/spaces", want: 401})

	// Tasks and projects.
	r := c.run(call{route: "POST /api/spaces/{spaceId}/projects", ids: []string{space}, token: owner, body: map[string]any{"name": "Atlas", "description": "The launch"}, want: 201})
	project := field(t, r, "id")
	c.run(call{route: "POST /api/spaces/{spaceId}/projects", ids: []string{space}, token: owner, body: map[string]any{"name": 5}, want: 400})
	c.run(call{route: "GET /api/spaces/{spaceId}/projects", ids: []string{space}, token: owner, query: "limit=1", want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/projects", ids: []string{space}, token: owner, query: "offset=-1", want: 400})
	c.run(call{route: "GET /api/spaces/{spaceId}/projects/{id}", ids: []string{space, project}, token: owner, want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/projects/{id}", ids: []string{space, "proj_nope"}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/projects/{id}", ids: []string{space, project}, token: owner, body: map[string]any{"description": nil, "revision": 1}, want: 200})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/projects/{id}", ids: []string{space, project}, token: owner, body: map[string]any{"name": "Atlas 2", "revision": 1}, want: 409})
	r = c.run(call{route: "POST /api/spaces/{spaceId}/tasks", ids: []string{space}, token: owner, body: map[string]any{"title": "Draft", "projectId": project, "dueDate": "2026-03-31"}, want: 201})
	task := field(t, r, "id")
	c.run(call{route: "POST /api/spaces/{spaceId}/tasks", ids: []string{space}, token: owner, body: map[string]any{"title": "X", "projectId": "proj_nope"}, want: 404})
	c.run(call{route: "GET /api/spaces/{spaceId}/tasks", ids: []string{space}, token: owner, query: "projectId=" + project + "&limit=1", want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/tasks", ids: []string{space}, token: owner, query: "limit=x", want: 400})
	c.run(call{route: "GET /api/spaces/{spaceId}/tasks/{id}", ids: []string{space, task}, token: owner, want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/tasks/{id}", ids: []string{"sp_nope", task}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/tasks/{id}", ids: []string{space, task}, token: owner, body: map[string]any{"dueDate": nil, "assigneeId": s.OwnerID}, want: 200})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/tasks/{id}", ids: []string{space, task}, token: owner, body: map[string]any{"title": nil}, want: 400})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/tasks/{id}", ids: []string{space, task}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/tasks/{id}", ids: []string{space, task}, token: owner, want: 404})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/projects/{id}", ids: []string{space, project}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/projects/{id}", ids: []string{space, project}, token: owner, want: 404})

	// People and members.
	viewerToken, _ := s.Member(t, "Team", "Vera Viewer", workspace.RoleViewer)
	editorToken, _ := s.Member(t, "Team", "Ed Editor", workspace.RoleEditor)
	r = c.run(call{route: "GET /api/spaces/{spaceId}/people", ids: []string{space}, token: owner, want: 200})
	var people struct {
		People []struct{ ID, Name string } `json:"people"`
	}
	require.NoError(t, json.Unmarshal(r.body, &people))
	ids := map[string]string{}
	for _, p := range people.People {
		ids[p.Name] = p.ID
	}
	c.run(call{route: "GET /api/spaces/{spaceId}/people", ids: []string{"sp_nope"}, token: owner, want: 404})
	r = c.run(call{route: "POST /api/spaces/{spaceId}/people", ids: []string{space}, token: owner, body: map[string]any{"name": "Pat Doe", "role": "viewer"}, want: 201})
	pat := field(t, r, "id")
	c.run(call{route: "POST /api/spaces/{spaceId}/people", ids: []string{space}, token: viewerToken, body: map[string]any{"name": "Nope Person"}, want: 403})
	c.run(call{route: "GET /api/spaces/{spaceId}/people/{id}", ids: []string{space, pat}, token: owner, want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/people/{id}", ids: []string{space, "per_nope"}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/people/{id}", ids: []string{space, pat}, token: owner, body: map[string]any{"firstName": "Pat"}, want: 200})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/people/{id}", ids: []string{space, pat}, token: owner, body: map[string]any{"role": "boss"}, want: 400})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/people/{id}", ids: []string{space, pat}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/people/{id}", ids: []string{space, s.OwnerID}, token: owner, want: 409})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/members/{personId}", ids: []string{space, ids["Ed Editor"]}, token: owner, body: map[string]any{"role": "viewer"}, want: 200})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/members/{personId}", ids: []string{space, ids["Ed Editor"]}, token: owner, body: map[string]any{}, want: 400})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/members/{personId}", ids: []string{space, ids["Ed Editor"]}, token: editorToken, want: 204})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/members/{personId}", ids: []string{space, ids["Vera Viewer"]}, token: viewerToken + "x", want: 401})

	// Connected apps: a webhook, and an MCP server that lists its tools.
	r = c.run(call{route: "POST /api/spaces/{spaceId}/connections", ids: []string{space}, token: owner, body: map[string]any{"kind": "webhook", "name": "Hook", "url": "https://example.com/hook"}, want: 201})
	hook := field(t, r, "id")
	r = c.run(call{route: "POST /api/spaces/{spaceId}/connections", ids: []string{space}, token: owner, body: map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL}, want: 201})
	tracker := field(t, r, "id")
	c.run(call{route: "POST /api/spaces/{spaceId}/connections", ids: []string{space}, token: owner, body: map[string]any{"kind": "mcp", "name": "Inside", "url": "http://10.1.2.3/mcp"}, want: 400})
	c.run(call{route: "GET /api/spaces/{spaceId}/connections", ids: []string{space}, token: owner, want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/connections", ids: []string{space}, want: 401})
	c.run(call{route: "POST /api/spaces/{spaceId}/connections/{id}/refresh", ids: []string{space, tracker}, token: owner, want: 200})
	c.run(call{route: "POST /api/spaces/{spaceId}/connections/{id}/refresh", ids: []string{space, "conn_nope"}, token: owner, want: 404})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/connections/{id}", ids: []string{space, hook}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/connections/{id}", ids: []string{space, hook}, token: owner, want: 404})
	r = c.run(call{route: "GET /api/spaces/{spaceId}/audit", ids: []string{space}, token: owner, query: "limit=1", want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/audit", ids: []string{space}, token: owner, query: "before=" + field(t, r, "nextBefore"), want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/audit", ids: []string{space}, token: viewerToken, want: 403})
	c.run(call{route: "GET /api/spaces/{spaceId}/audit", ids: []string{space}, token: owner, query: "limit=500", want: 400})

	// Files.
	form, ctype := multipartFile(t, "notes.md", []byte("# Notes\n\nShip on Friday.\n"))
	r = c.run(call{route: "POST /api/spaces/{spaceId}/files", ids: []string{space}, token: owner, body: form, ctype: ctype, want: 201})
	file := field(t, r, "id")
	c.run(call{route: "POST /api/spaces/{spaceId}/files", ids: []string{space}, token: owner, body: []byte(`{"file": "x"}`), ctype: "application/json", want: 400})
	c.run(call{route: "GET /api/spaces/{spaceId}/files", ids: []string{space}, token: owner, want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/files", ids: []string{"sp_nope"}, token: owner, want: 404})
	c.run(call{route: "GET /api/spaces/{spaceId}/files/{id}", ids: []string{space, file}, token: owner, want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/files/{id}", ids: []string{space, "file_nope"}, token: owner, want: 404})
	r = c.run(call{route: "GET /api/spaces/{spaceId}/files/{id}/content", ids: []string{space, file}, token: owner, want: 200})
	require.Contains(t, string(r.body), "Ship on Friday")
	c.run(call{route: "GET /api/spaces/{spaceId}/files/{id}/content", ids: []string{space, "file_nope"}, token: owner, want: 404})
	// Its passage, once indexed: the key is its chunk's, as indexing makes it.
	awaitIndexed(t, s, owner, space, 1)
	doc, err := retrieval.Extract(t.Context(), "text/markdown", []byte("# Notes\n\nShip on Friday.\n"))
	require.NoError(t, err)
	key := retrieval.PassageKey(retrieval.Chunks(doc)[0].Hash)
	r = c.run(call{route: "GET /api/spaces/{spaceId}/files/{id}/passages/{key}", ids: []string{space, file, key}, token: owner, want: 200})
	require.Contains(t, string(r.body), "Ship on Friday")
	c.run(call{route: "GET /api/spaces/{spaceId}/files/{id}/passages/{key}", ids: []string{space, file, "000000000000"}, token: owner, want: 404})
	c.run(call{route: "POST /api/spaces/{spaceId}/files/{id}/index", ids: []string{space, file}, token: owner, want: 202})
	c.run(call{route: "POST /api/spaces/{spaceId}/files/{id}/index", ids: []string{space, "file_nope"}, token: owner, want: 404})
	form, ctype = multipartFile(t, "notes.md", []byte("# Notes\n\nShip on Monday.\n"))
	c.run(call{route: "PUT /api/spaces/{spaceId}/files/{id}", ids: []string{space, file}, token: owner, body: form, ctype: ctype, want: 200})
	c.run(call{route: "PUT /api/spaces/{spaceId}/files/{id}", ids: []string{space, file}, token: viewerToken, body: form, ctype: ctype, want: 403})
	c.run(call{route: "PUT /api/spaces/{spaceId}/files/{id}", ids: []string{space, "file_nope"}, token: owner, body: form, ctype: ctype, want: 404})
	c.run(call{route: "PUT /api/spaces/{spaceId}/files/{id}", ids: []string{space, file}, token: owner, body: []byte(`{}`), ctype: "application/json", want: 400})

	// Settings, models, usage, profile, skills, prompts.
	c.run(call{route: "GET /api/models", token: owner, want: 200})
	c.run(call{route: "GET /api/models", want: 401})
	c.run(call{route: "GET /api/spaces/{spaceId}/settings", ids: []string{space}, token: owner, want: 200})
	c.run(call{route: "GET /api/spaces/{spaceId}/settings", ids: []string{"sp_nope"}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/settings", ids: []string{space}, token: owner, body: map[string]any{"monthlyBudget": 5000000}, want: 200})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/settings", ids: []string{space}, token: owner, body: map[string]any{"monthlyBudget": nil}, want: 200})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/settings", ids: []string{space}, token: owner, body: map[string]any{"monthlyBudget": -1}, want: 400})
	c.run(call{route: "PATCH /api/spaces/{spaceId}/settings", ids: []string{space}, token: viewerToken, body: map[string]any{"monthlyBudget": 1}, want: 403})
	c.run(call{route: "GET /api/usage", token: owner, query: "groupBy=model&spaceId=" + space, want: 200})
	c.run(call{route: "GET /api/usage", token: owner, query: "groupBy=week", want: 400})
	c.run(call{route: "GET /api/me/settings", token: owner, want: 200})
	c.run(call{route: "GET /api/me/settings", token: "hub_nope", want: 401})
	c.run(call{route: "PATCH /api/me/settings", token: owner, body: map[string]any{"writePolicy": "preview", "allowedWriteAreas": nil}, want: 200})
	c.run(call{route: "PATCH /api/me/settings", token: owner, body: map[string]any{"writePolicy": nil}, want: 400})
	c.run(call{route: "GET /api/me/tokens", token: owner, want: 200})
	c.run(call{route: "GET /api/me/tokens", want: 401})
	_, spare, err := s.Workspace.CreateNamedToken(t.Context(), workspace.Actor{Via: workspace.ViaCLI}, s.OwnerID, "spare", time.Hour)
	require.NoError(t, err)
	c.run(call{route: "DELETE /api/me/tokens/{tokenId}", ids: []string{spare.ID}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/me/tokens/{tokenId}", ids: []string{spare.ID}, token: owner, want: 404})
	c.run(call{route: "GET /api/me/profile", token: owner, want: 200})
	c.run(call{route: "GET /api/me/profile", want: 401})
	c.run(call{route: "PATCH /api/me/profile", token: owner, body: map[string]any{"persona": "I run the launch.", "firstName": nil}, want: 200})
	c.run(call{route: "PATCH /api/me/profile", token: owner, body: map[string]any{"persona": 5}, want: 400})
	r = c.run(call{route: "POST /api/me/skills", token: owner, body: map[string]any{"name": "Weekly report", "description": "The Friday report", "instructions": "Three bullets."}, want: 201})
	skill := field(t, r, "id")
	c.run(call{route: "POST /api/me/skills", token: owner, body: map[string]any{"name": "Weekly report", "description": "Again", "instructions": "Again."}, want: 409})
	c.run(call{route: "GET /api/me/skills", token: owner, want: 200})
	c.run(call{route: "GET /api/me/skills", want: 401})
	// Completions: one that answers, one that hangs (paused, resumed, stopped).
	r = c.run(call{route: "POST /api/completions", token: owner, body: map[string]any{"kind": "test_model", "spaceId": space, "model": "fakemodel"}, want: 202})
	answered := completionField(t, r)
	c.run(call{route: "POST /api/completions", token: owner, body: map[string]any{"kind": "test_model", "spaceId": space}, want: 400})
	c.run(call{route: "POST /api/completions", token: owner, body: map[string]any{"kind": "test_skill", "spaceId": space, "skillId": "skill_nope", "input": "hi"}, want: 404})
	r = c.run(call{route: "POST /api/completions", token: owner, body: map[string]any{"kind": "test_skill", "spaceId": space, "skillId": skill, "input": "hang on"}, want: 202})
	hanging := completionField(t, r)
	c.run(call{route: "GET /api/completions/{completionId}", ids: []string{hanging}, token: owner, want: 200})
	c.run(call{route: "GET /api/completions/{completionId}", ids: []string{"cmpl_nope"}, token: owner, want: 404})
	c.run(call{route: "POST /api/completions/{completionId}/pause", ids: []string{hanging}, token: owner, want: 202})
	c.run(call{route: "POST /api/completions/{completionId}/pause", ids: []string{"cmpl_nope"}, token: owner, want: 404})
	c.run(call{route: "POST /api/completions/{completionId}/resume", ids: []string{hanging}, token: owner, want: 202})
	c.run(call{route: "POST /api/completions/{completionId}/resume", ids: []string{"cmpl_nope"}, token: owner, want: 404})
	c.run(call{route: "POST /api/completions/{completionId}/stop", ids: []string{hanging}, token: owner, want: 202})
	require.Eventually(t, func() bool {
		r := c.run(call{route: "GET /api/completions/{completionId}", ids: []string{answered}, token: owner, want: 200})
		return strings.Contains(string(r.body), `"status":"done"`)
	}, 30*time.Second, 100*time.Millisecond, "the answered completion ends done")
	c.run(call{route: "POST /api/completions/{completionId}/stop", ids: []string{answered}, token: owner, want: 409})
	c.run(call{route: "GET /api/me/skills/{id}", ids: []string{skill}, token: owner, want: 200})
	c.run(call{route: "GET /api/me/skills/{id}", ids: []string{"skill_nope"}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/me/skills/{id}", ids: []string{skill}, token: owner, body: map[string]any{"version": 1, "enabled": false, "purpose": nil}, want: 200})
	c.run(call{route: "PATCH /api/me/skills/{id}", ids: []string{skill}, token: owner, body: map[string]any{"version": 1, "enabled": true}, want: 409})
	c.run(call{route: "DELETE /api/me/skills/{id}", ids: []string{skill}, token: owner, query: "version=0", want: 400})
	c.run(call{route: "DELETE /api/me/skills/{id}", ids: []string{skill}, token: owner, query: "version=2", want: 204})
	// Agents, and work for one: a plain answer read to its end.
	r = c.run(call{route: "POST /api/agents", token: owner, body: map[string]any{"name": "Brief", "spaces": []string{space}}, want: 201})
	agent := field(t, r, "id")
	c.run(call{route: "POST /api/agents", token: owner, body: map[string]any{"name": "brief", "spaces": []string{space}}, want: 409})
	c.run(call{route: "GET /api/agents", token: owner, want: 200})
	c.run(call{route: "GET /api/agents", want: 401})
	c.run(call{route: "GET /api/agents/{agentId}", ids: []string{agent}, token: owner, want: 200})
	c.run(call{route: "GET /api/agents/{agentId}", ids: []string{"agent_nope"}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/agents/{agentId}", ids: []string{agent}, token: owner, body: map[string]any{"version": 1, "persona": "Plan my day.", "tools": nil}, want: 200})
	c.run(call{route: "PATCH /api/agents/{agentId}", ids: []string{agent}, token: owner, body: map[string]any{"version": 1, "enabled": true}, want: 409})
	r = c.run(call{route: "POST /api/agents/{agentId}/turns", ids: []string{agent}, token: owner, body: map[string]any{"text": "summarize my day"}, want: 202})
	c.streamURL(field(t, r, "streamUrl"), "", 200, 0)
	c.run(call{route: "POST /api/agents/{agentId}/turns", ids: []string{agent}, token: owner, body: map[string]any{"text": ""}, want: 400})
	c.run(call{route: "POST /api/agents/{agentId}/turns", ids: []string{"agent_nope"}, token: owner, body: map[string]any{"text": "hi"}, want: 404})
	// Its schedules: made, listed, read, paused, fired, deleted.
	r = c.run(call{route: "POST /api/agents/{agentId}/schedules", ids: []string{agent}, token: owner,
		body: map[string]any{"text": "summarize my week", "spec": map[string]any{"cron": "0 9 * * 1"}, "timeZone": "Europe/Berlin"}, want: 201})
	sched := field(t, r, "id")
	c.run(call{route: "POST /api/agents/{agentId}/schedules", ids: []string{agent}, token: owner, body: map[string]any{"text": "x", "spec": map[string]any{}}, want: 400})
	c.run(call{route: "GET /api/agents/{agentId}/schedules", ids: []string{agent}, token: owner, want: 200})
	c.run(call{route: "GET /api/agents/{agentId}/schedules", ids: []string{"agent_nope"}, token: owner, want: 404})
	c.run(call{route: "GET /api/agents/{agentId}/schedules/{scheduleId}", ids: []string{agent, sched}, token: owner, want: 200})
	c.run(call{route: "GET /api/agents/{agentId}/schedules/{scheduleId}", ids: []string{agent, "sched_nope"}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/agents/{agentId}/schedules/{scheduleId}", ids: []string{agent, sched}, token: owner, body: map[string]any{"paused": true, "note": "later"}, want: 200})
	c.run(call{route: "PATCH /api/agents/{agentId}/schedules/{scheduleId}", ids: []string{agent, sched}, token: owner, body: map[string]any{"paused": nil}, want: 400})
	c.run(call{route: "POST /api/agents/{agentId}/schedules/{scheduleId}/trigger", ids: []string{agent, "sched_nope"}, token: owner, want: 404})
	c.run(call{route: "POST /api/agents/{agentId}/schedules/{scheduleId}/trigger", ids: []string{agent, sched}, token: owner, want: 202})
	c.run(call{route: "DELETE /api/agents/{agentId}/schedules/{scheduleId}", ids: []string{agent, sched}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/agents/{agentId}/schedules/{scheduleId}", ids: []string{agent, sched}, token: owner, want: 404})
	c.run(call{route: "DELETE /api/agents/{agentId}", ids: []string{agent}, token: owner, query: "version=0", want: 400})
	c.run(call{route: "DELETE /api/agents/{agentId}", ids: []string{agent}, token: owner, query: "version=2", want: 204})
	c.run(call{route: "GET /api/prompts", token: owner, want: 200})
	c.run(call{route: "GET /api/prompts", want: 401})
	// A browser's session: the exchange needs the CSRF header; GET says who; DELETE signs out.
	c.run(call{route: "POST /api/session", body: map[string]any{"token": owner}, header: map[string]string{"X-Hub-CSRF": "1"}, want: 201})
	c.run(call{route: "POST /api/session", body: map[string]any{"token": owner}, want: 403})
	c.run(call{route: "GET /api/session", token: owner, want: 200})
	c.run(call{route: "GET /api/session", want: 401})
	c.run(call{route: "DELETE /api/session", token: owner, want: 204})
	c.run(call{route: "DELETE /api/session", token: "hub_nope", want: 401})

	// Conversations and turns: a proposal (preview policy), applied.
	r = c.run(call{route: "POST /api/assistant/conversations", token: owner, body: map[string]any{"spaceId": space, "title": "Plan"}, want: 201})
	conv := field(t, r, "id")
	c.run(call{route: "POST /api/assistant/conversations", token: owner, body: map[string]any{"title": "No space"}, want: 400})
	c.run(call{route: "GET /api/assistant/conversations", token: owner, query: "spaceId=" + space, want: 200})
	c.run(call{route: "GET /api/assistant/conversations", token: owner, want: 400})
	c.run(call{route: "GET /api/assistant/conversations/{id}", ids: []string{conv}, token: owner, want: 200})
	c.run(call{route: "GET /api/assistant/conversations/{id}", ids: []string{"conv_nope"}, token: owner, want: 404})
	c.run(call{route: "PATCH /api/assistant/conversations/{id}", ids: []string{conv}, token: owner, body: map[string]any{"title": "Launch plan"}, want: 200})
	c.run(call{route: "PATCH /api/assistant/conversations/{id}", ids: []string{conv}, token: owner, body: map[string]any{"title": ""}, want: 400})
	c.run(call{route: "PATCH /api/assistant/conversations/{id}", ids: []string{"conv_nope"}, token: owner, body: map[string]any{"title": "x"}, want: 404})
	r = c.run(call{route: "POST /api/assistant/conversations/{id}/turns", ids: []string{conv}, token: owner,
		body: map[string]any{"text": "propose a task", "mentions": []any{}, "context": map[string]any{"page": "tasks"}}, want: 202})
	var proposed hubtest.Started
	require.NoError(t, json.Unmarshal(r.body, &proposed))
	c.run(call{route: "POST /api/assistant/conversations/{id}/turns", ids: []string{conv}, token: owner, body: map[string]any{"text": " "}, want: 400})
	c.streamURL(proposed.StreamURL, "", 200, 0) // with its own token, until done
	c.run(call{route: "GET /api/assistant/turns/{turnId}/stream", ids: []string{proposed.TurnID}, token: owner, header: map[string]string{"Last-Event-ID": "1"}, want: 200})
	c.run(call{route: "GET /api/assistant/turns/{turnId}/stream", ids: []string{proposed.TurnID}, token: owner, header: map[string]string{"Last-Event-ID": "999"}, want: 204})
	c.run(call{route: "GET /api/assistant/turns/{turnId}/stream", ids: []string{proposed.TurnID}, want: 401})
	c.run(call{route: "GET /api/assistant/turns/{turnId}/inspect", ids: []string{proposed.TurnID}, token: owner, want: 200})
	c.run(call{route: "GET /api/assistant/turns/{turnId}/inspect", ids: []string{"turn_nope"}, token: owner, want: 404})
	c.run(call{route: "GET /api/assistant/turns/{turnId}/inspect", ids: []string{proposed.TurnID}, want: 401})
	c.run(call{route: "GET /api/assistant/turns/{turnId}/stream", ids: []string{proposed.TurnID}, token: owner, query: "lastEventId=-1", want: 400})
	c.run(call{route: "GET /api/assistant/turns/{turnId}", ids: []string{proposed.TurnID}, token: owner, want: 200})
	c.run(call{route: "GET /api/assistant/turns/{turnId}", ids: []string{"turn_nope"}, token: owner, want: 404})
	r = c.run(call{route: "POST /api/assistant/turns/{turnId}/stream-token", ids: []string{proposed.TurnID}, token: owner, want: 201})
	c.streamURL(field(t, r, "streamUrl"), "", 200, 0) // another tab's token reads the same frames
	c.run(call{route: "POST /api/assistant/turns/{turnId}/stream-token", ids: []string{"turn_nope"}, token: owner, want: 404})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/stream-token", ids: []string{proposed.TurnID}, want: 401})
	c.run(call{route: "GET /api/assistant/conversations/{id}/messages", ids: []string{conv}, token: owner, want: 200})
	c.run(call{route: "GET /api/assistant/conversations/{id}/messages", ids: []string{"conv_nope"}, token: owner, want: 404})
	c.run(call{route: "GET /api/assistant/needs-me", token: owner, want: 200})
	c.run(call{route: "GET /api/assistant/needs-me", want: 401})
	c.run(call{route: "POST /api/assistant/apply", token: owner, body: map[string]any{"conversationId": conv}, want: 400})
	c.run(call{route: "POST /api/assistant/apply", token: owner, body: map[string]any{"conversationId": conv, "messageId": proposed.ReplyMessageID, "callIds": []any{"call_nope"}}, want: 404})
	c.run(call{route: "POST /api/assistant/apply", token: owner, body: map[string]any{"conversationId": conv, "messageId": proposed.ReplyMessageID}, want: 200})
	c.run(call{route: "POST /api/assistant/apply", token: owner, body: map[string]any{"conversationId": conv, "messageId": proposed.MessageID}, want: 404})
	// Read back: the receipt on the reply's tool call.
	c.run(call{route: "GET /api/assistant/conversations/{id}/messages", ids: []string{conv}, token: owner, want: 200})

	// A write at once (immediate policy): its Undo group, undone and redone.
	c.run(call{route: "PATCH /api/me/settings", token: owner, body: map[string]any{"writePolicy": "immediate"}, want: 200})
	st := c.ask(conv, "write a task")
	events := c.streamURL(st.StreamURL, "", 200, 0)
	group := ""
	for _, e := range events {
		var f struct {
			UndoGroupID string `json:"undoGroupId"`
		}
		_ = json.Unmarshal(e.data, &f)
		if e.event == "tool" && f.UndoGroupID != "" {
			group = f.UndoGroupID
		}
	}
	require.NotEmpty(t, group, "the immediate write's tool frame has its Undo group")
	c.run(call{route: "POST /api/assistant/undo", token: owner, body: map[string]any{"undoGroupId": group}, want: 200})
	c.run(call{route: "POST /api/assistant/undo", token: owner, body: map[string]any{"undoGroupId": ""}, want: 400})
	r = c.run(call{route: "GET /api/assistant/conversations/{id}/messages", ids: []string{conv}, token: owner, want: 200})
	require.Contains(t, string(r.body), `"undoState":"undone"`, "the messages say the group was undone")
	c.run(call{route: "POST /api/assistant/redo", token: owner, body: map[string]any{"undoGroupId": group}, want: 200})
	r = c.run(call{route: "GET /api/assistant/conversations/{id}/messages", ids: []string{conv}, token: owner, want: 200})
	require.Contains(t, string(r.body), `"undoState":"redone"`, "and then that it was redone")
	c.run(call{route: "POST /api/assistant/redo", token: owner, body: map[string]any{"undoGroupId": "undo_nope"}, want: 404})

	// An error turn, retried.
	failed := c.ask(s.Conversation(t), "fail please")
	c.streamURL(failed.StreamURL, "", 200, 0)
	c.run(call{route: "POST /api/assistant/turns/{turnId}/retry", ids: []string{failed.TurnID}, token: owner, want: 202})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/retry", ids: []string{st.TurnID}, token: owner, want: 409})

	// A turn that hangs: the top bar shows it; pause, resume, stop.
	hang := c.ask(s.Conversation(t), "hang on")
	c.run(call{route: "GET /api/agent/state", token: owner, want: 200})
	c.run(call{route: "GET /api/agent/state", want: 401})
	c.run(call{route: "GET /api/agent/stream", token: owner, events: 1, want: 200})
	c.run(call{route: "GET /api/agent/stream", token: owner, header: map[string]string{"Last-Event-ID": "x"}, want: 400})
	r = c.run(call{route: "POST /api/agent/stream-token", token: owner, want: 201})
	activity := field(t, r, "streamUrl")
	c.run(call{route: "POST /api/agent/stream-token", want: 401})
	c.streamURL(activity, "", 200, 1)
	c.run(call{route: "GET /api/agent/stream", query: "streamToken=" + url.QueryEscape(strings.TrimPrefix(hang.StreamURL, "/api/assistant/turns/"+hang.TurnID+"/stream?streamToken=")), want: 401})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/pause", ids: []string{hang.TurnID}, token: owner, want: 202})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/pause", ids: []string{st.TurnID}, token: owner, want: 409})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/resume", ids: []string{hang.TurnID}, token: owner, want: 202})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/resume", ids: []string{"turn_nope"}, token: owner, want: 404})
	c.run(call{route: "POST /api/agent/pause", token: owner, want: 202})
	c.run(call{route: "POST /api/agent/pause", want: 401})
	c.run(call{route: "POST /api/agent/resume", token: owner, want: 202})
	c.run(call{route: "POST /api/agent/resume", want: 401})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/stop", ids: []string{hang.TurnID}, token: owner, want: 202})
	c.run(call{route: "POST /api/assistant/turns/{turnId}/stop", ids: []string{st.TurnID}, token: owner, want: 409})
	c.run(call{route: "POST /api/agent/stop", token: owner, want: 202})
	c.run(call{route: "POST /api/agent/stop", want: 401})
	c.streamURL(hang.StreamURL, "", 200, 0) // it ends, stopped

	// Deleting: a file, a conversation.
	c.run(call{route: "DELETE /api/spaces/{spaceId}/files/{id}", ids: []string{space, file}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/spaces/{spaceId}/files/{id}", ids: []string{space, file}, token: owner, want: 404})
	c.run(call{route: "DELETE /api/assistant/conversations/{id}", ids: []string{conv}, token: owner, want: 204})
	c.run(call{route: "DELETE /api/assistant/conversations/{id}", ids: []string{conv}, token: owner, want: 404})

	c.covered()
}

// `hub openapi` prints what /api/openapi.json serves and docs/openapi.json
// holds, byte for byte: a frontend generates its client from any of them.
func TestHubOpenAPIPrintsTheServedDocument(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(hubBinary(t), "openapi").Output()
	require.NoError(t, err)
	served, err := api.OpenAPIDocument()
	require.NoError(t, err)
	require.Equal(t, string(served), string(out))
	committed, err := os.ReadFile(filepath.Join("..", "docs", "openapi.json"))
	require.NoError(t, err)
	require.Equal(t, string(committed), string(out))
}

func newSpecCheck(t *testing.T, s *hubtest.Stack) *specCheck {
	r := s.Do(t, "", "GET", "/api/openapi.json", nil)
	require.Equal(t, http.StatusOK, r.Status)
	doc, err := libopenapi.NewDocument(r.Body)
	require.NoError(t, err)
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	require.Empty(t, errs)
	model, err := doc.BuildV3Model()
	require.NoError(t, err)
	c := &specCheck{t: t, s: s, v: v, schema: map[string]*base.Schema{}, client: &http.Client{Timeout: time.Minute,
		// A redirect is an answer of the document's (the sign-in's routes).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		frames: schema_validation.NewSchemaValidator(config.WithFormatAssertions()),
		seen:   map[string]map[string]bool{}, events: map[string]bool{}}
	for _, name := range []string{"TurnEvent", "ActivityEvent"} {
		proxy := model.Model.Components.Schemas.GetOrZero(name)
		require.NotNil(t, proxy, name)
		c.schema[name] = proxy.Schema()
	}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			c.seen[strings.ToUpper(method)+" "+path] = map[string]bool{}
		}
	}
	return c
}

// run sends one request, checks its answer against the document and
// records what the operation got.
func (c *specCheck) run(k call) answer {
	t := c.t
	t.Helper()
	method, tmpl, _ := strings.Cut(k.route, " ")
	require.Contains(t, c.seen, k.route, "the document has no %s", k.route)
	path := tmpl
	for _, id := range k.ids {
		i, j := strings.Index(path, "{"), strings.Index(path, "}")
		require.True(t, i >= 0 && j > i, "%s: more ids than parameters", k.route)
		path = path[:i] + url.PathEscape(id) + path[j+1:]
	}
	require.NotContains(t, path, "{", "%s: a parameter without an id", k.route)
	if k.query != "" {
		path += "?" + k.query
	}
	a := c.send(k, method, path)
	require.Equal(t, k.want, a.status, "%s %s: %s", method, path, clip(a.body))
	kind := "ok"
	if a.status >= 400 {
		kind = "bad"
	}
	c.seen[k.route][kind] = true
	return a
}

// streamURL reads a stream by the URL Hub gave out (its own token in it).
func (c *specCheck) streamURL(u, token string, want, events int) []sseEvent {
	c.t.Helper()
	route := "GET /api/agent/stream"
	var ids []string
	if strings.HasPrefix(u, "/api/assistant/turns/") {
		route = "GET /api/assistant/turns/{turnId}/stream"
		ids = []string{strings.Split(u, "/")[4]}
	}
	_, q, _ := strings.Cut(u, "?")
	return c.run(call{route: route, ids: ids, query: q, token: token, want: want, events: events}).events
}

func (c *specCheck) ask(conv, text string) hubtest.Started {
	c.t.Helper()
	r := c.run(call{route: "POST /api/assistant/conversations/{id}/turns", ids: []string{conv}, token: c.s.Token, body: map[string]any{"text": text}, want: 202})
	var st hubtest.Started
	require.NoError(c.t, json.Unmarshal(r.body, &st))
	return st
}

func (c *specCheck) send(k call, method, path string) answer {
	t := c.t
	t.Helper()
	var raw []byte
	ctype := k.ctype
	switch b := k.body.(type) {
	case nil:
	case []byte:
		raw = b
	default:
		var err error
		raw, err = json.Marshal(b)
		require.NoError(t, err)
		ctype = "application/json"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	newRequest := func() *http.Request {
		var body io.Reader
		if raw != nil {
			body = bytes.NewReader(raw)
		}
		req, err := http.NewRequestWithContext(ctx, method, c.s.URL+path, body)
		require.NoError(t, err)
		if k.token != "" {
			req.Header.Set("Authorization", "Bearer "+k.token)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for h, v := range k.header {
			req.Header.Set(h, v)
		}
		return req
	}
	if k.want < 400 {
		// What a client sends must be what the document takes.
		ok, errs := c.v.ValidateHttpRequest(newRequest())
		require.True(t, ok, "%s %s: the request is not what the document describes:\n%s", method, path, reasons(errs))
	}
	req := newRequest()
	resp, err := c.client.Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode}
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		a.events = c.readEvents(k, resp.Body)
	} else {
		a.body, err = io.ReadAll(resp.Body)
		require.NoError(t, err)
	}
	check := *resp
	check.Body = io.NopCloser(bytes.NewReader(a.body))
	ok, errs := c.v.ValidateHttpResponse(newRequest(), &check)
	require.True(t, ok, "%s %s answered %d, not as the document says:\n%s\n%s", method, path, resp.StatusCode, reasons(errs), clip(a.body))
	return a
}

// readEvents reads Server-Sent Events until the done frame (or k.events of
// them), checking each against its stream's event schema.
func (c *specCheck) readEvents(k call, body io.Reader) []sseEvent {
	t := c.t
	t.Helper()
	schema := "TurnEvent"
	if strings.HasPrefix(k.route, "GET /api/agent/") {
		schema = "ActivityEvent"
	}
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" && cur.event != "":
			raw, err := json.Marshal(map[string]any{"id": cur.id, "event": cur.event, "data": cur.data})
			require.NoError(t, err)
			ok, errs := c.frames.ValidateSchemaBytes(c.schema[schema], raw)
			require.True(t, ok, "%s: event %s is not a %s:\n%s\n%s", k.route, cur.event, schema, reasons(errs), raw)
			if schema == "TurnEvent" {
				c.events[cur.event] = true
			}
			out = append(out, cur)
			if cur.event == "done" || (k.events > 0 && len(out) == k.events) {
				return out
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			n, err := strconv.ParseInt(line[4:], 10, 64)
			require.NoError(t, err)
			cur.id = n
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = json.RawMessage(line[6:])
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("%s: the stream ended after %d events without a done frame", k.route, len(out))
	return nil
}

// covered requires every operation of the document to have been driven
// with a valid request and a bad one, and every frame type to have been
// seen.
func (c *specCheck) covered() {
	var missing []string
	for op, kinds := range c.seen {
		for _, kind := range []string{"ok", "bad"} {
			if !kinds[kind] {
				missing = append(missing, fmt.Sprintf("%s (%s)", op, kind))
			}
		}
	}
	sort.Strings(missing)
	require.Empty(c.t, missing, "operations of the document this test never drove")
	var frames []string
	for f := range c.events {
		frames = append(frames, f)
	}
	slices.Sort(frames)
	require.Equal(c.t, []string{"done", "error", "proposal", "refs", "status", "text", "tool", "turn_error"}, frames)
}

func field(t *testing.T, a answer, name string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.body, &m), "%s", a.body)
	v, _ := m[name].(string)
	require.NotEmpty(t, v, "%s in %s", name, a.body)
	return v
}

// completionField is the id of the completion an answer carries.
func completionField(t *testing.T, a answer) string {
	t.Helper()
	var m struct {
		Completion struct {
			ID string `json:"id"`
		} `json:"completion"`
	}
	require.NoError(t, json.Unmarshal(a.body, &m), "%s", a.body)
	require.NotEmpty(t, m.Completion.ID, "%s", a.body)
	return m.Completion.ID
}

func multipartFile(t *testing.T, name string, data []byte) ([]byte, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	return body.Bytes(), mw.FormDataContentType()
}

func reasons(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "- %s: %s\n", e.Message, e.Reason)
		for _, se := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "    %s at %s (%s)\n", se.Reason, se.FieldPath, se.KeywordLocation)
		}
	}
	return b.String()
}
