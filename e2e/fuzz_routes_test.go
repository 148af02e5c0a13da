//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/api"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/workspace"
)

// The fuzz over every route: the routes come from the api's own list
// (GET /api/openapi.json, every route the router has), so a route added
// later is fuzzed without an edit here. Every route gets bad path ids (NUL, invalid UTF-8, huge, the
// ids of another space's records), bad query values, a wrong method and
// requests without or with a broken token; a route that takes a body and
// has an entry in routeBodies also gets every string, number and id field
// of its body broken in turn (NUL, invalid UTF-8, huge, wrong type, another
// space's id), and every body route the generic broken bodies (deep, huge,
// NUL keys, not JSON). No answer may be a 5xx; every 4xx has the documented
// error body; a refused request changes no row.

// routeBody is the valid body of a route, with placeholders ("$task") for
// the fixture's ids. Fuzzed requests break one part of it at a time, so the
// broken part is what gets refused. free lists the subtrees whose values
// Hub keeps as the client sent them (a page context), where only bad
// bytes, never a wrong type or a long string, must be refused.
type routeBody struct {
	body any
	free []string
}

// routeBodies: the routes that take a JSON body. A route listed with a nil
// body takes none (its body is ignored). A route missing from this map is
// fuzzed with its path, query and the generic broken bodies only, each
// sent with a bad path id or query value too, so it cannot act.
var routeBodies = map[string]routeBody{
	"POST /api/spaces/{spaceId}/tasks":              {body: map[string]any{"title": "Fuzz", "projectId": "$project", "assigneeId": "$person", "dueDate": "2026-03-31"}},
	"PATCH /api/spaces/{spaceId}/tasks/{id}":        {body: map[string]any{"title": "Fuzz", "projectId": "$project", "revision": 1}},
	"DELETE /api/spaces/{spaceId}/tasks/{id}":       {},
	"POST /api/spaces/{spaceId}/projects":           {body: map[string]any{"name": "Fuzz", "description": "About"}},
	"PATCH /api/spaces/{spaceId}/projects/{id}":     {body: map[string]any{"name": "Fuzz", "description": "About", "revision": 1}},
	"DELETE /api/spaces/{spaceId}/projects/{id}":    {},
	"POST /api/spaces/{spaceId}/people":             {body: map[string]any{"name": "Fuzz Person", "firstName": "Fuzz", "role": "viewer"}},
	"PATCH /api/spaces/{spaceId}/people/{id}":       {body: map[string]any{"name": "Fuzz Person", "firstName": "Fuzz", "role": "editor", "revision": 1}},
	"DELETE /api/spaces/{spaceId}/people/{id}":      {},
	"POST /api/spaces/{spaceId}/connections":        {body: map[string]any{"kind": "webhook", "name": "Fuzz", "url": "https://example.com/hook"}},
	"DELETE /api/spaces/{spaceId}/connections/{id}": {},
	"PATCH /api/spaces/{spaceId}/settings":          {body: map[string]any{"monthlyBudget": 5000000}},
	"PATCH /api/me/settings":                        {body: map[string]any{"writePolicy": "immediate", "allowedWriteAreas": []any{"tasks"}}},
	"POST /api/assistant/conversations":             {body: map[string]any{"spaceId": "$space", "title": "Fuzz"}},
	"DELETE /api/assistant/conversations/{id}":      {},
	"PATCH /api/assistant/conversations/{id}":       {body: map[string]any{"title": "Fuzz"}},
	"POST /api/assistant/conversations/{id}/turns": {body: map[string]any{"text": "hi", "spaces": []any{"$space"},
		"mentions": []any{map[string]any{"kind": "task", "id": "$task"}}, "context": map[string]any{"page": "tasks"}},
		free: []string{"/context"}},
	"POST /api/assistant/turns/{turnId}/retry":    {},
	"POST /api/assistant/turns/{turnId}/stop":     {},
	"POST /api/assistant/turns/{turnId}/pause":    {},
	"POST /api/assistant/turns/{turnId}/resume":   {},
	"POST /api/agent/stop":                        {},
	"POST /api/agent/pause":                       {},
	"POST /api/agent/resume":                      {},
	"POST /api/completions":                       {body: map[string]any{"kind": "test_model", "spaceId": "$space", "model": "fakemodel"}},
	"POST /api/completions/{completionId}/stop":   {},
	"POST /api/completions/{completionId}/pause":  {},
	"POST /api/completions/{completionId}/resume": {},
	"POST /api/assistant/undo":                    {body: map[string]any{"undoGroupId": "$undoGroup"}},
	"POST /api/assistant/redo":                    {body: map[string]any{"undoGroupId": "$undoGroup"}},
	"POST /api/assistant/apply":                   {body: map[string]any{"conversationId": "$conversation", "messageId": "$reply", "callIds": []any{"$call"}}},
}

// errorCodes are the documented error codes (docs/api.md).
var errorCodes = []string{"unauthenticated", "not_found", "forbidden", "invalid_payload", "conflict", "too_large",
	"unavailable", "method_not_allowed"}

// fuzzFixture holds the records the fuzz points at: the owner's and those
// of another space the owner cannot open.
type fuzzFixture struct {
	mine, theirs map[string]string // placeholder name ("task") → id
}

func TestFuzzEveryRoute(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name   string
		sqlite bool
	}{{"postgres", false}, {"sqlite", true}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			// Every route gets bad tokens from 127.0.0.1: the failed
			// sign-in limiter would answer most of them 429.
			s := hubtest.Start(t, hubtest.Options{SQLite: engine.sqlite, FailureLimits: api.FailureLimits{PerAddress: 1 << 30, PerToken: 1 << 30},
				Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
			fuzzRoutes(t, s, fuzzSetup(t, s))
		})
	}
}

func fuzzSetup(t *testing.T, s *hubtest.Stack) fuzzFixture {
	records := func(token, space string) map[string]string {
		ids := map[string]string{"space": space}
		r := s.Do(t, token, "POST", "/api/spaces/"+space+"/projects", map[string]any{"name": "Atlas"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ids["project"] = r.JSON(t)["id"].(string)
		r = s.Do(t, token, "POST", "/api/spaces/"+space+"/tasks", map[string]any{"title": "Draft", "projectId": ids["project"]})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ids["task"] = r.JSON(t)["id"].(string)
		r = s.Do(t, token, "POST", "/api/spaces/"+space+"/connections", map[string]any{"kind": "webhook", "name": "Hook", "url": "https://example.com/hook"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ids["connection"] = r.JSON(t)["id"].(string)
		r = s.Do(t, token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": space, "title": "Chat"})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		ids["conversation"] = r.JSON(t)["id"].(string)
		r = s.Do(t, token, "POST", "/api/assistant/conversations/"+ids["conversation"]+"/turns", map[string]any{"text": "hello"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		var st hubtest.Started
		r.Decode(t, &st)
		ids["turn"], ids["message"], ids["reply"] = st.TurnID, st.MessageID, st.ReplyMessageID
		s.Stream(t, st.StreamURL, 0, 0) // the turn has ended: nothing runs while the fuzz compares rows
		return ids
	}
	fx := fuzzFixture{mine: records(s.Token, s.SpaceID)}
	fx.mine["person"] = s.OwnerID
	otherToken, otherSpace := s.Member(t, "Elsewhere", "Olu Ade", workspace.RoleOwner)
	fx.theirs = records(otherToken, otherSpace)
	people := s.Do(t, otherToken, "GET", "/api/spaces/"+otherSpace+"/people", nil).JSON(t)["people"].([]any)
	fx.theirs["person"] = people[0].(map[string]any)["id"].(string)
	for _, m := range []map[string]string{fx.mine, fx.theirs} {
		m["undoGroup"], m["call"] = "undo_zzzzzzzz", "call_zzzzzzzz"
	}
	return fx
}

// paramID is the fixture id a path parameter stands for: by its name, and
// for a bare :id by the collection before it.
func (fx fuzzFixture) paramID(ids map[string]string, segments []string, i int) string {
	name := strings.Trim(segments[i], "{}")
	switch name {
	case "spaceId":
		return ids["space"]
	case "turnId":
		return ids["turn"]
	case "personId":
		return ids["person"]
	case "id":
		if i > 0 {
			kind := strings.TrimSuffix(segments[i-1], "s")
			if segments[i-1] == "people" {
				kind = "person"
			}
			if id, ok := ids[kind]; ok {
				return id
			}
		}
	}
	return "zz_" + name
}

// fuzzCase is one request and what it must get.
type fuzzCase struct {
	what         string
	route        string // the route it fuzzes, "POST /api/spaces/{spaceId}/tasks"
	method, path string
	query        string
	token        string
	header       map[string]string
	body         []byte
	status       int    // the exact status it must get; 0: any 4xx
	code, at     string // the error's code and path, when they are known
}

var badValues = []struct{ name, raw, escaped string }{
	{"NUL", "a\x00b", "a%00b"},
	{"lone NUL", "\x00", "%00"},
	{"invalid UTF-8", "a\xffb", "a%FFb"},
	{"lone 0xFF", "\xff", "%FF"},
	{"overlong", "\xc0\xaf", "%C0%AF"},
	{"surrogate", "\xed\xa0\x80", "%ED%A0%80"},
}

var queryNames = []string{"q", "spaceId", "status", "projectId", "assigneeId", "limit", "offset", "lastEventId", "streamToken", "zz"}

func fuzzRoutes(t *testing.T, s *hubtest.Stack, fx fuzzFixture) {
	r := s.Do(t, s.Token, "GET", "/api/openapi.json", nil)
	require.Equal(t, http.StatusOK, r.Status)
	var doc struct {
		Paths map[string]map[string]struct {
			Security *[]any `json:"security"`
		} `json:"paths"`
	}
	r.Decode(t, &doc)
	var routes []string
	public := map[string]bool{}  // no token: security is []
	wrong := map[string]string{} // a method the route's path does not have
	for p, ops := range doc.Paths {
		for _, m := range []string{"put", "patch", "post", "delete", "get"} {
			if _, ok := ops[m]; !ok && wrong[p] == "" {
				wrong[p] = strings.ToUpper(m)
			}
		}
		for m, op := range ops {
			route := strings.ToUpper(m) + " " + p
			routes = append(routes, route)
			public[route] = op.Security != nil && len(*op.Security) == 0
		}
	}
	sort.Strings(routes)
	require.NotEmpty(t, routes)
	for key := range routeBodies {
		require.Contains(t, routes, key, "routeBodies names a route the api does not have")
	}

	client := &http.Client{Timeout: 20 * time.Second}
	var st fuzzStats
	st.t, st.fivexxRoutes = t, map[string]bool{}
	snap := snapshot(t, s)
	for _, route := range routes {
		method, tmpl, _ := strings.Cut(route, " ")
		cases := routeCases(fx, route, method, tmpl, wrong[tmpl], s.Token, public[route])
		require.GreaterOrEqual(t, len(cases), 20, "route %s has too few fuzz cases", route)
		accepted := st.accepted
		for _, c := range cases {
			status, ctype, body := send(t, client, s.URL, c)
			st.check(c, status, ctype, body)
		}
		st.requests += len(cases)
		// Every case is refused, so no row may change over the route's
		// cases (one digest per route keeps the fuzz fast). After a case
		// that was accepted (a failure already) the rows are taken anew.
		if method == "GET" {
			continue
		}
		now := snapshot(t, s)
		if now != snap && st.accepted == accepted {
			st.failures++
			t.Errorf("%s: refused requests changed rows", route)
		}
		snap = now
	}
	t.Logf("fuzzed %d routes with %d requests: %d answered 5xx (on %d routes), %d accepted bad input, %d failures",
		len(routes), st.requests, st.fivexx, len(st.fivexxRoutes), st.accepted, st.failures)
}

// fuzzStats counts what the fuzz found.
type fuzzStats struct {
	t                                    *testing.T
	requests, failures, fivexx, accepted int
	fivexxRoutes                         map[string]bool
}

func (st *fuzzStats) fail(c fuzzCase, format string, args ...any) {
	st.failures++
	if st.failures <= 40 {
		st.t.Errorf("%s %s?%s (%s): %s", c.method, c.path, c.query, c.what, fmt.Sprintf(format, args...))
	}
}

// check judges one answer: never a 5xx, never accepted, a 4xx with the
// documented error body, the status, code and path the case expects.
func (st *fuzzStats) check(c fuzzCase, status int, ctype string, body []byte) {
	switch {
	case status >= 500:
		st.fivexx++
		st.fivexxRoutes[c.route] = true
		st.fail(c, "answered %d: %s", status, clip(body))
		return
	case status < 400:
		st.accepted++
		st.fail(c, "accepted bad input: %d %s", status, clip(body))
		return
	case ctype == "text/event-stream":
		st.fail(c, "answered %d as a stream", status)
		return
	}
	var e struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Path    string `json:"path"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || e.Error.Message == "" || !slices.Contains(errorCodes, e.Error.Code) {
		st.fail(c, "%d without the documented error body: %s", status, clip(body))
		return
	}
	if c.status != 0 && status != c.status {
		st.fail(c, "answered %d, want %d: %s", status, c.status, clip(body))
	}
	if c.code != "" && e.Error.Code != c.code {
		st.fail(c, "code %q, want %q: %s", e.Error.Code, c.code, clip(body))
	}
	if c.at != "" && e.Error.Path != c.at {
		st.fail(c, "path %q, want %q: %s", e.Error.Path, c.at, clip(body))
	}
}

// routeCases builds every case for one route.
func routeCases(fx fuzzFixture, route, method, tmpl, wrong, token string, public bool) []fuzzCase {
	segments := strings.Split(tmpl, "/")
	var params []int
	for i, seg := range segments {
		if strings.HasPrefix(seg, "{") {
			params = append(params, i)
		}
	}
	pathWith := func(ids map[string]string, override int, value string) string {
		out := slices.Clone(segments)
		for _, i := range params {
			if i == override {
				out[i] = value
			} else {
				out[i] = url.PathEscape(fx.paramID(ids, segments, i))
			}
		}
		return strings.Join(out, "/")
	}
	valid := pathWith(fx.mine, -1, "")
	rb, known := routeBodies[route]
	takesBody := method == "POST" || method == "PATCH" || method == "PUT"
	var validBody []byte
	if known && rb.body != nil {
		validBody = fill(rb.body, fx.mine)
	} else if takesBody {
		validBody = []byte(`{}`)
	}
	// A broken part that is not the body: the body sent is valid, or, for
	// a route without an entry, harmless.
	base := func(what string) fuzzCase {
		return fuzzCase{what: what, route: route, method: method, path: valid, token: token, body: validBody}
	}
	var cases []fuzzCase

	// Path ids.
	for _, i := range params {
		name := strings.Trim(segments[i], "{}")
		for _, v := range badValues {
			c := base(name + " " + v.name)
			c.path, c.status, c.code = pathWith(fx.mine, i, v.escaped), http.StatusNotFound, "not_found"
			cases = append(cases, c)
		}
		for what, v := range map[string]string{"huge": strings.Repeat("a", 6000), "unknown": "zz_nope",
			"another space's": url.PathEscape(fx.paramID(fx.theirs, segments, i))} {
			c := base(what + " " + name)
			c.path = pathWith(fx.mine, i, v)
			switch {
			case what == "another space's" && name == "personId":
				// Someone who is no member of this space: any refusal.
			case !known && takesBody:
				// A route this file does not know may check its body first.
			default:
				c.status = http.StatusNotFound
			}
			cases = append(cases, c)
		}
	}
	if len(params) > 0 {
		c := base("every id another space's")
		c.path, c.status = pathWith(fx.theirs, -1, ""), 0
		cases = append(cases, c)
	}

	// Query values.
	for _, q := range queryNames {
		values := []int{0}
		switch q {
		case "spaceId", "lastEventId", "streamToken":
			values = []int{0, 3}
		case "q":
			values = []int{0, 1, 2, 3, 4, 5}
		}
		for _, vi := range values {
			v := badValues[vi]
			c := base("query " + q + " " + v.name)
			c.query, c.status, c.code, c.at = q+"="+v.escaped, http.StatusBadRequest, "invalid_payload", "/"+q
			cases = append(cases, c)
		}
	}
	c := base("bad query key")
	c.query, c.status, c.code = "a%FFb=1", http.StatusBadRequest, "invalid_payload"
	cases = append(cases, c)

	// Method, token.
	if wrong != "" {
		c = base("wrong method")
		c.method, c.status, c.code = wrong, http.StatusMethodNotAllowed, "method_not_allowed"
		cases = append(cases, c)
	}
	if !public { // /healthz, /readyz, /metrics and the document take no token
		for what, h := range map[string]string{"no token": "", "bad token": "Bearer hub_nope", "invalid UTF-8 token": "Bearer \xff\xfe",
			"not bearer": "Basic eA=="} {
			c := base(what)
			c.token, c.status, c.code = "", http.StatusUnauthorized, "unauthenticated"
			if h != "" {
				c.header = map[string]string{"Authorization": h}
			}
			cases = append(cases, c)
		}
	}

	// Bodies.
	if (known && rb.body == nil) || (!known && !takesBody) {
		return cases
	}
	// Broken bodies for a route without an entry go with an unknown path
	// id or query value, so the request cannot act whatever it does with
	// its body.
	guard := func(c fuzzCase) fuzzCase {
		if known {
			return c
		}
		if len(params) > 0 {
			c.path = pathWith(fx.mine, params[len(params)-1], "zz_nope")
		} else {
			c.query = "zz=%FF"
		}
		return c
	}
	if known && rb.body != nil {
		for _, leaf := range leaves(rb.body, "") {
			free := slices.ContainsFunc(rb.free, func(p string) bool { return strings.HasPrefix(leaf.at, p+"/") })
			for _, v := range badValues {
				if _, ok := leaf.value.(string); !ok {
					break
				}
				c := base("body " + leaf.at + " " + v.name)
				c.body = rawBody(rb.body, fx.mine, leaf.at, v.raw)
				c.status, c.code, c.at = http.StatusBadRequest, "invalid_payload", leaf.at
				cases = append(cases, c)
			}
			if free {
				continue
			}
			for what, v := range map[string]any{"wrong type": wrongType(leaf.value), "huge": strings.Repeat("x", 300_000)} {
				c := base("body " + leaf.at + " " + what)
				c.body = fill(set(rb.body, leaf.at, v), fx.mine)
				cases = append(cases, c)
			}
			if s, ok := leaf.value.(string); ok && strings.HasPrefix(s, "$") && fx.theirs[s[1:]] != fx.mine[s[1:]] {
				c := base("body " + leaf.at + " another space's")
				c.body = fill(rb.body, swap(fx.mine, fx.theirs, s[1:]))
				cases = append(cases, c)
			}
		}
	}
	key := validBody
	if len(key) < 2 {
		key = []byte(`{}`)
	}
	inner := bytes.TrimSuffix(bytes.TrimPrefix(key, []byte("{")), []byte("}"))
	comma := ""
	if len(inner) > 0 {
		comma = ","
	}
	for _, g := range []struct {
		what   string
		body   string
		status int
		at     string
	}{
		{"NUL key", `{"\u0000":1` + comma + string(inner) + `}`, 400, "/"},
		{"invalid UTF-8 key", "{\"a\xffb\":1" + comma + string(inner) + "}", 400, "/a\ufffdb"},
		{"NUL in unknown field", `{"zz":"\u0000"` + comma + string(inner) + `}`, 400, "/zz"},
		{"NUL deep", `{"zz":[{"a":[1,"x\u0000"]}]` + comma + string(inner) + `}`, 400, "/zz/0/a/1"},
		{"escaped backslash is no NUL", `{"zz":"\\u0000"` + comma + string(inner) + `}`, 400, "/zz"},
		{"deep", `{"zz":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, 400, ""},
		{"deep object", strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000), 400, ""},
		{"huge", `{"zz":"` + strings.Repeat("a", 2<<20) + `"}`, 413, ""},
		{"invalid UTF-8 outside strings", "{\xff}", 400, ""},
		{"raw NUL", "{\"zz\":\"a\x00b\"}", 400, "/zz"},
		{"not JSON", `title=x`, 400, ""},
		{"array", `[1,2]`, 400, ""},
		{"string", `"x"`, 400, ""},
		{"two objects", string(key) + string(key), 400, ""},
		{"truncated", string(key[:len(key)-1]), 400, ""},
	} {
		c := guard(base("body " + g.what))
		c.body = []byte(g.body)
		if known {
			c.status, c.at = g.status, g.at
		}
		cases = append(cases, c)
	}
	return cases
}

func send(t *testing.T, client *http.Client, base string, c fuzzCase) (int, string, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	u := base + c.path
	if c.query != "" {
		u += "?" + c.query
	}
	var rd io.Reader
	if c.body != nil {
		rd = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, base, rd)
	require.NoError(t, err)
	// The path goes as written, percent escapes and all.
	req.URL, err = url.Parse(u)
	require.NoError(t, err, u)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for k, v := range c.header {
		req.Header[k] = []string{v}
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	require.NoError(t, err, "%s %s", c.method, u)
	defer resp.Body.Close()
	ctype := resp.Header.Get("Content-Type")
	if ctype == "text/event-stream" {
		return resp.StatusCode, ctype, nil // an open stream: hang up at once
	}
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, ctype, body
}

// snapshot is a digest of every row a request could change.
func snapshot(t *testing.T, s *hubtest.Stack) string {
	h := sha256.New()
	for _, table := range []string{"spaces", "people", "memberships", "settings", "projects", "tasks", "connections",
		"conversations", "messages", "turns", "turn_steps", "tool_calls", "frames", "undo_groups", "undo_entries",
		"receipts", "workflow_steps", "frame_heads", "completions"} {
		var rows []map[string]any
		require.NoError(t, s.DB.WithContext(context.Background()).Table(table).Find(&rows).Error, table)
		lines := make([]string, len(rows))
		for i, r := range rows {
			lines[i] = fmt.Sprint(r)
		}
		sort.Strings(lines)
		fmt.Fprintf(h, "%s %d\n%s\n", table, len(rows), strings.Join(lines, "\n"))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

type leaf struct {
	at    string
	value any
}

// leaves lists a body's scalar values with their JSON pointers.
func leaves(v any, at string) []leaf {
	switch x := v.(type) {
	case map[string]any:
		var out []leaf
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, leaves(x[k], at+"/"+k)...)
		}
		return out
	case []any:
		var out []leaf
		for i, e := range x {
			out = append(out, leaves(e, fmt.Sprintf("%s/%d", at, i))...)
		}
		return out
	}
	return []leaf{{at, v}}
}

// set returns a copy of body with the value at the pointer replaced.
func set(body any, at string, v any) any {
	if at == "" {
		return v
	}
	head, rest, _ := strings.Cut(at[1:], "/")
	if rest != "" {
		rest = "/" + rest
	}
	switch x := body.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		out[head] = set(x[head], rest, v)
		return out
	case []any:
		out := slices.Clone(x)
		var i int
		_, _ = fmt.Sscan(head, &i)
		out[i] = set(x[i], rest, v)
		return out
	}
	return v
}

// fill writes a body as JSON with its placeholders replaced by ids.
func fill(body any, ids map[string]string) []byte {
	raw, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	for name, id := range ids {
		raw = bytes.ReplaceAll(raw, []byte(`"$`+name+`"`), []byte(`"`+id+`"`))
	}
	return raw
}

// rawBody is the body with the string at the pointer replaced by raw
// bytes, escaped as JSON allows (a NUL as \u0000) but invalid UTF-8 kept
// as it is: Go's encoder would replace it.
func rawBody(body any, ids map[string]string, at, raw string) []byte {
	const mark = "@@fuzz@@"
	b := fill(set(body, at, mark), ids)
	enc := strings.ReplaceAll(raw, "\x00", `\u0000`)
	return bytes.Replace(b, []byte(mark), []byte(enc), 1)
}

// swap is ids with one placeholder pointing at the other space's record.
func swap(mine, theirs map[string]string, name string) map[string]string {
	out := make(map[string]string, len(mine))
	for k, v := range mine {
		out[k] = v
	}
	out[name] = theirs[name]
	return out
}

func wrongType(v any) any {
	switch v.(type) {
	case string:
		return map[string]any{"a": []any{1}}
	case bool:
		return "true"
	}
	return "x"
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
