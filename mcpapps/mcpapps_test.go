package mcpapps_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"hub/apps"
	"hub/assistant"
	"hub/dbtest"
	"hub/mcpapps"
	"hub/mcpapps/mcptest"
	"hub/storage"
	"hub/tools"
	"hub/workspace"
)

// server is the shared MCP test server (mcptest) with a read tool, a
// write tool that counts its calls (a title "fail" is a tool error), two
// tools that never answer, and extra read tools.
type server struct {
	*mcptest.Server
	writes atomic.Int32
	lists  atomic.Int32 // tools/list requests
}

func newServer(t testing.TB, extra int) *server {
	s := &server{Server: mcptest.New(t, "tracker")}
	s.MCP.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				s.lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	s.Read("lookup", "Look up a ticket", func(q string) string { return "found: " + q })
	s.Write("create_ticket", "Create a ticket", func(title string) (string, bool) {
		n := s.writes.Add(1)
		if title == "fail" {
			return "no such project", true
		}
		return fmt.Sprintf("ticket %d created", n), false
	})
	s.Hang("slow_read", "", true, nil) // hangs until Hub gives up, or the test ends
	s.Hang("slow_write", "", false, nil)
	for i := range extra {
		s.Read(fmt.Sprintf("tool_%03d", i), fmt.Sprintf("Tool number %d reads report %d", i, i), func(string) string { return "ok" })
	}
	return s
}

// held tells whether Hub holds a session with the server, listening: its
// notification stream is open and it listed the tools again, after the
// first listing.
func (s *server) held() bool { return s.Streams() == 1 && s.lists.Load() >= 2 }

type fixture struct {
	db      *storage.DB
	ws      *workspace.Service
	cat     *mcpapps.Catalog
	spaceID string
	owner   workspace.Actor
	viewer  workspace.Actor
}

func newFixture(t testing.TB, allow []string, timeout time.Duration) *fixture {
	db := dbtest.Open(t, dbtest.SQLite(t))
	ws := workspace.NewService(db)
	guard, err := apps.NewGuard(allow)
	require.NoError(t, err)
	key, err := apps.ParseSecretKey(apps.NewSecretKey())
	require.NoError(t, err)
	box, err := apps.NewSecretBox(key)
	require.NoError(t, err)
	cat := mcpapps.New(ws, mcpapps.Options{Guard: guard, Box: box, Timeout: timeout, CallTimeout: timeout})
	t.Cleanup(cat.Close)
	ws.SetAppConnector(cat)
	ctx := context.Background()
	spaceID, owner, err := ws.EnsureMember(ctx, "Acme", "Olive Owner", workspace.RoleOwner)
	require.NoError(t, err)
	_, viewer, err := ws.EnsureMember(ctx, "Acme", "Vera Viewer", workspace.RoleViewer)
	require.NoError(t, err)
	return &fixture{db: db, ws: ws, cat: cat, spaceID: spaceID, owner: workspace.Actor{PersonID: owner, Via: workspace.ViaREST},
		viewer: workspace.Actor{PersonID: viewer, Via: workspace.ViaREST}}
}

func hostOf(u string) string { return strings.TrimPrefix(u, "http://") }

func (f *fixture) connect(t testing.TB, name, url, secret string) workspace.Connection {
	c, err := f.ws.CreateConnection(context.Background(), f.owner, f.spaceID, workspace.NewConnection{Kind: workspace.ConnectionMCP, Name: name, URL: url, Secret: secret})
	require.NoError(t, err)
	return c
}

func (f *fixture) env(role workspace.Role) tools.Env {
	return tools.Env{Workspace: f.ws, Actor: f.owner, SpaceID: f.spaceID, Role: role, CallID: "call_1"}
}

func find(defs []*tools.Definition, suffix string) *tools.Definition {
	for _, d := range defs {
		if strings.HasSuffix(d.Name, "_"+suffix) {
			return d
		}
	}
	return nil
}

func TestListAndCallTools(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, 5*time.Second)
	ctx := context.Background()
	conn := f.connect(t, "Tracker", srv.URL, "s3cret")
	require.True(t, conn.HasSecret)

	l, err := f.cat.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	require.Empty(t, l.Failure)
	require.Len(t, l.Tools, 4)
	require.Equal(t, "Bearer s3cret", srv.Auth(), "the secret is sent as a bearer token")

	apps, err := f.cat.Apps(ctx, f.spaceID, false)
	require.NoError(t, err)
	require.Len(t, apps, 1)
	read, write := find(apps[0].Tools, "lookup"), find(apps[0].Tools, "create_ticket")
	require.NotNil(t, read)
	require.NotNil(t, write)
	require.False(t, read.IsWrite, "readOnlyHint is a read")
	require.True(t, write.IsWrite && write.AlwaysHold && write.OutsideTransaction, "every other tool is an outside write, always held")
	require.Regexp(t, `^[a-zA-Z0-9_-]{1,64}$`, read.Name)
	require.Contains(t, string(read.Schema), `"query"`, "the server's schema is passed through")

	reg := tools.NewRegistry().With(apps[0].Tools...)
	res, terr := reg.Dispatch(ctx, f.env(workspace.RoleOwner), tools.Call{Name: read.Name, Arguments: `{"query":"HUB-1"}`, Offered: []string{read.Name}})
	require.Nil(t, terr)
	require.Contains(t, tools.ModelText(res, tools.MaxResultChars), "found: HUB-1")

	_, terr = reg.Dispatch(ctx, f.env(workspace.RoleOwner), tools.Call{Name: read.Name, Arguments: `{"query":1}`, Offered: []string{read.Name}})
	require.NotNil(t, terr)
	require.Equal(t, tools.CodeInvalidPayload, terr.Code, "the schema validates calls before they are sent")

	env := f.env(workspace.RoleOwner)
	env.Applying, env.Settings.ConnectedAppWrites = true, true
	res, terr = reg.Dispatch(ctx, env, tools.Call{Name: write.Name, Arguments: `{"title":"Bug"}`, Offered: []string{write.Name}})
	require.Nil(t, terr)
	require.Contains(t, tools.ModelText(res, tools.MaxResultChars), "ticket 1 created")
	require.EqualValues(t, 1, srv.writes.Load())

	_, terr = reg.Dispatch(ctx, env, tools.Call{Name: write.Name, Arguments: `{"title":"fail"}`, Offered: []string{write.Name}})
	require.NotNil(t, terr, "isError is a tool error")
	require.Equal(t, tools.CodeFailed, terr.Code)
	require.Contains(t, terr.Message, "no such project")
}

// A call that gets no answer is bounded: a read fails, a write's outcome
// is unknown (it was sent), never a hang.
func TestCallsThatHangAreBounded(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, 300*time.Millisecond)
	ctx := context.Background()
	conn := f.connect(t, "Tracker", srv.URL, "")
	_, err := f.cat.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	defs, err := f.cat.Definitions(ctx, f.spaceID)
	require.NoError(t, err)
	reg := tools.NewRegistry().With(defs...)
	env := f.env(workspace.RoleOwner)
	env.Applying, env.Settings.ConnectedAppWrites = true, true
	for _, name := range []string{"slow_read", "slow_write"} {
		d := find(defs, name)
		start := time.Now()
		_, terr := reg.Dispatch(ctx, env, tools.Call{Name: d.Name, Arguments: `{"title":"x"}`, Offered: []string{d.Name}})
		require.NotNil(t, terr)
		require.Less(t, time.Since(start), 3*time.Second)
		require.Equal(t, name == "slow_write", terr.OutcomeUnknown, "%s: %+v", name, terr)
	}
}

// The guard is checked at every dial, not only at connect: a server the
// allowlist no longer reaches fails with the guard's reason.
func TestGuardAtEveryDial(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, 2*time.Second)
	ctx := context.Background()
	conn := f.connect(t, "Tracker", srv.URL, "")
	guard, err := apps.NewGuard(nil)
	require.NoError(t, err)
	strict := mcpapps.New(f.ws, mcpapps.Options{Guard: guard, Timeout: 2 * time.Second})
	t.Cleanup(strict.Close)
	l, err := strict.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	require.Contains(t, l.Failure, "loopback")
	list, err := strict.Apps(ctx, f.spaceID, false)
	require.NoError(t, err)
	require.Empty(t, list, "a failing server offers nothing")
}

// Without HUB_SECRET_KEY a secret cannot be kept: the field is refused,
// nothing is stored; a server without a secret still connects.
func TestNoSecretKey(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, time.Second)
	guard, err := apps.NewGuard([]string{hostOf(srv.URL)})
	require.NoError(t, err)
	none, err := apps.NewSecretBox(nil)
	require.NoError(t, err)
	f.ws.SetAppConnector(mcpapps.New(f.ws, mcpapps.Options{Guard: guard, Box: none}))
	_, err = f.ws.CreateConnection(context.Background(), f.owner, f.spaceID, workspace.NewConnection{Kind: workspace.ConnectionMCP, Name: "Tracker", URL: srv.URL, Secret: "s"})
	var bad *workspace.InvalidError
	require.ErrorAs(t, err, &bad)
	require.Equal(t, "/secret", bad.Path)
	require.Contains(t, bad.Message, apps.EnvSecretKey)
	conns, err := f.ws.ListConnections(context.Background(), f.owner, f.spaceID)
	require.NoError(t, err)
	require.Empty(t, conns)
	f.connect(t, "Tracker", srv.URL, "")
}

func TestPrivateAddressRefusedAtConnect(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, nil, time.Second)
	_, err := f.ws.CreateConnection(context.Background(), f.owner, f.spaceID, workspace.NewConnection{Kind: workspace.ConnectionMCP, Name: "Tracker", URL: srv.URL})
	var bad *workspace.InvalidError
	require.ErrorAs(t, err, &bad)
	require.Equal(t, "/url", bad.Path)
	require.Contains(t, bad.Message, "loopback")
}

func TestHangingOrGarbageServerFails(t *testing.T) {
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
		_, _ = w.Write([]byte(`{"jsonrpc": "2.0", "id": 1, "result": "<html>not mcp`))
	}))
	t.Cleanup(garbage.Close)
	f := newFixture(t, []string{hostOf(hang.URL), hostOf(garbage.URL)}, 300*time.Millisecond)
	ctx := context.Background()
	hc := f.connect(t, "Slow", hang.URL, "")
	gc := f.connect(t, "Noise", garbage.URL, "")

	start := time.Now()
	apps, err := f.cat.Apps(ctx, f.spaceID, true)
	require.NoError(t, err)
	require.Empty(t, apps, "neither server's tools are offered")
	require.Less(t, time.Since(start), 3*time.Second, "bounded by the timeout, listed at once")
	for _, id := range []string{hc.ID, gc.ID} {
		c, err := f.ws.GetConnection(ctx, f.owner, f.spaceID, id)
		require.NoError(t, err)
		require.NotEmpty(t, c.Failure, "recorded as failing for the instructions")
	}
	c, _ := f.ws.GetConnection(ctx, f.owner, f.spaceID, hc.ID)
	require.Contains(t, c.Failure, "did not answer within")
}

func TestListChangedRefreshes(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, 5*time.Second)
	ctx := context.Background()
	conn := f.connect(t, "Tracker", srv.URL, "")
	_, err := f.cat.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	require.Eventually(t, srv.held, 10*time.Second, 10*time.Millisecond)
	// The server adds a tool and says so on the session Hub holds.
	srv.Write("close_ticket", "Close a ticket", func(string) (string, bool) { return "", false })
	require.Eventually(t, func() bool {
		defs, err := f.cat.Definitions(ctx, f.spaceID)
		return err == nil && find(defs, "close_ticket") != nil
	}, 10*time.Second, 20*time.Millisecond)
}

func TestToolNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, "mcp_abcdefgh_lookup", mcpapps.ToolName("conn_abcdefghijkl", "lookup"))
	odd := mcpapps.ToolName("conn_abcdefghijkl", "search.issues/v2")
	require.Regexp(t, `^mcp_abcdefgh_search_issues_v2_[0-9a-f]{6}$`, odd)
	require.NotEqual(t, odd, mcpapps.ToolName("conn_abcdefghijkl", "search_issues_v2"))
	long := mcpapps.ToolName("conn_abcdefghijkl", strings.Repeat("x", 100))
	require.Len(t, long, 64)
	require.Equal(t, long, mcpapps.ToolName("conn_abcdefghijkl", strings.Repeat("x", 100)), "stable")
	_ = json.Valid
}

// BenchmarkListAndOffer200: a server with 200 tools on loopback. list is
// one listing (a session, tools/list, the listing kept); define is the
// first turn after a listing (200 schemas compiled into tools); offer is
// every later turn's offer from it (the definitions cached, the registry
// overlaid, the bounded offer built for a message naming the app).
func BenchmarkListAndOffer200(b *testing.B) {
	srv := newServer(b, 196)
	f := newFixture(b, []string{hostOf(srv.URL)}, 10*time.Second)
	ctx := context.Background()
	conn := f.connect(b, "Tracker", srv.URL, "")
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			l, err := f.cat.Refresh(ctx, f.spaceID, conn.ID)
			if err != nil || l.Failure != "" || len(l.Tools) != 200 {
				b.Fatal(err, l.Failure, len(l.Tools))
			}
		}
	})
	b.Run("define", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			f.cat.Forget(conn.ID) // the definitions are built again
			b.StartTimer()
			list, err := f.cat.Apps(ctx, f.spaceID, false)
			if err != nil || len(list) != 1 || len(list[0].Tools) != 200 {
				b.Fatal(err, len(list))
			}
		}
	})
	base, _, err := assistant.NewRegistry(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("offer", func(b *testing.B) {
		for b.Loop() {
			list, err := f.cat.Apps(ctx, f.spaceID, true)
			if err != nil || len(list) != 1 {
				b.Fatal(err)
			}
			app := assistant.AppOffer{ConnectionID: list[0].ID, Name: list[0].Name}
			for _, d := range list[0].Tools {
				app.Tools = append(app.Tools, d.Name)
			}
			got := assistant.BuildOffer(assistant.OfferInput{Registry: base.With(list[0].Tools...), Role: workspace.RoleOwner,
				Settings: workspace.Settings{ConnectedAppWrites: true}, Message: "read report 42 in Tracker", Apps: []assistant.AppOffer{app}})
			if len(got.Tools) == 0 || len(got.Tools) > assistant.MaxOfferedTools {
				b.Fatal(got.Tools)
			}
		}
	})
}

// A hand-written server whose listing holds tools Hub cannot offer: a
// schema that is not an object schema, one that does not compile, a
// duplicate name. The rest are kept and the skipped ones named.
func TestListingSkipsAndNotes(t *testing.T) {
	t.Parallel()
	tools := `[
	  {"name": "good", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
	  {"name": "arr", "inputSchema": {"type": "array"}},
	  {"name": "broken", "inputSchema": {"type": "object", "properties": {"q": {"type": 7}}}},
	  {"name": "remote", "inputSchema": {"type": "object", "$ref": "https://example.com/schema.json"}},
	  {"name": "good", "inputSchema": {"type": "object"}}
	]`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if len(req.ID) == 0 { // a notification
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := `{}`
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "odd", "version": "1"}}`
		case "tools/list":
			result = `{"tools": ` + tools + `}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"jsonrpc": "2.0", "id": %s, "result": %s}`, req.ID, result)
	}))
	t.Cleanup(srv.Close)
	f := newFixture(t, []string{hostOf(srv.URL)}, 2*time.Second)
	ctx := context.Background()
	conn := f.connect(t, "Odd", srv.URL, "")
	l, err := f.cat.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	require.Empty(t, l.Failure)
	var kept []string
	for _, lt := range l.Tools {
		kept = append(kept, lt.Tool)
	}
	require.Equal(t, []string{"good"}, kept)
	require.Len(t, l.Skipped, 4, "%v", l.Skipped)
	require.Contains(t, l.Skipped[0], "arr: its input schema is not an object schema")
	require.Contains(t, l.Skipped[1], "good: listed twice")
	require.Contains(t, l.Skipped[2], "broken: its input schema cannot be used")
	require.Contains(t, l.Skipped[3], "remote: its input schema cannot be used")
	defs, err := f.cat.Definitions(ctx, f.spaceID)
	require.NoError(t, err)
	require.Len(t, defs, 1, "a schema that does not compile or refers elsewhere is not offered")
	require.True(t, strings.HasSuffix(defs[0].Name, "_good"))
}

// Another process (a second Catalog over the same database) offers the
// tools from the kept listing, without asking the server: the targets a
// call reads come without the listing, which is read once when missing.
func TestAnotherProcessUsesTheKeptListing(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, 5*time.Second)
	ctx := context.Background()
	conn := f.connect(t, "Tracker", srv.URL, "")
	_, err := f.cat.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	srv.Close() // nothing can be asked of it now

	guard, err := apps.NewGuard([]string{hostOf(srv.URL)})
	require.NoError(t, err)
	other := mcpapps.New(f.ws, mcpapps.Options{Guard: guard})
	t.Cleanup(other.Close)
	defs, err := other.Definitions(ctx, f.spaceID)
	require.NoError(t, err)
	require.NotNil(t, find(defs, "lookup"), "built from the kept listing")
	require.Len(t, defs, 4)
	list, err := other.Apps(ctx, f.spaceID, false)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Len(t, list[0].Tools, 4)
}

// A server that redirects to another origin: Hub does not follow, and the
// secret entered for the server never reaches the other host.
func TestRedirectElsewhereGetsNoSecret(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	got.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) // another host, same machine
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+"/steal", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(first.Close)
	f := newFixture(t, []string{hostOf(first.URL), hostOf(target), hostOf(other.URL)}, 2*time.Second)
	conn := f.connect(t, "Tracker", first.URL, "s3cret")
	l, err := f.cat.Refresh(context.Background(), f.spaceID, conn.ID)
	require.NoError(t, err)
	require.NotEmpty(t, l.Failure, "not followed")
	require.Empty(t, got.Load(), "the other host got no secret")
}

// A server known to fail is listed again in the background, at most once
// per RetryFailing, and no turn waits for it: with a 30 s timeout and the
// server hanging, Apps still returns at once.
func TestFailingServerIsRetriedInTheBackground(t *testing.T) {
	t.Parallel()
	var hanging atomic.Bool
	var arrived atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hanging.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		arrived.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	f := newFixture(t, []string{hostOf(srv.URL)}, 30*time.Second)
	ctx := context.Background()
	conn := f.connect(t, "Tracker", srv.URL, "")
	apps, err := f.cat.Apps(ctx, f.spaceID, true) // never listed: the turn waits, and it fails at once
	require.NoError(t, err)
	require.Empty(t, apps)
	c, err := f.ws.GetConnection(ctx, f.owner, f.spaceID, conn.ID)
	require.NoError(t, err)
	require.NotEmpty(t, c.Failure)

	hanging.Store(true)
	apps, err = f.cat.Apps(ctx, f.spaceID, true) // returns without waiting for the hanging server
	require.NoError(t, err)
	require.Empty(t, apps)
	require.Eventually(t, func() bool { return arrived.Load() == 1 }, 10*time.Second, 5*time.Millisecond, "listed again in the background")
	for range 3 {
		_, err = f.cat.Apps(ctx, f.spaceID, true)
		require.NoError(t, err)
	}
	require.EqualValues(t, 1, arrived.Load(), "at most once per RetryFailing")
}

// A session held in a process that did not see the connection deleted
// (the api forgets it in its own process only) ends by the next check.
func TestHeldSessionEndsWhenTheConnectionIsGone(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, 5*time.Second)
	ctx := context.Background()
	conn := f.connect(t, "Tracker", srv.URL, "")
	guard, err := apps.NewGuard([]string{hostOf(srv.URL)})
	require.NoError(t, err)
	worker := mcpapps.New(f.ws, mcpapps.Options{Guard: guard, TTL: 20 * time.Millisecond})
	t.Cleanup(worker.Close)
	_, err = worker.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	require.Eventually(t, srv.held, 10*time.Second, 5*time.Millisecond)
	_, err = f.ws.DeleteConnection(ctx, f.owner, f.spaceID, conn.ID)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return srv.Streams() == 0 }, 10*time.Second, 5*time.Millisecond, "the session ends")
}

// Each call reads the space's MCP servers afresh: none at first, a server
// connected meanwhile (by another request or process) is offered from the
// next call on, and a deleted one no longer.
func TestDefinitionsFollowTheSpacesServers(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	f := newFixture(t, []string{hostOf(srv.URL)}, 5*time.Second)
	t.Cleanup(f.cat.Close)
	ctx := context.Background()
	defs, err := f.cat.Definitions(ctx, f.spaceID)
	require.NoError(t, err)
	require.Empty(t, defs)
	apps, err := f.cat.Apps(ctx, f.spaceID, true)
	require.NoError(t, err)
	require.Empty(t, apps)

	conn := f.connect(t, "Tracker", srv.URL, "")
	_, err = f.cat.Refresh(ctx, f.spaceID, conn.ID)
	require.NoError(t, err)
	defs, err = f.cat.Definitions(ctx, f.spaceID)
	require.NoError(t, err)
	require.NotNil(t, find(defs, "lookup"), "connected since the last call")

	_, err = f.ws.DeleteConnection(ctx, f.owner, f.spaceID, conn.ID)
	require.NoError(t, err)
	defs, err = f.cat.Definitions(ctx, f.spaceID)
	require.NoError(t, err)
	require.Empty(t, defs, "deleted since the last call")
}
