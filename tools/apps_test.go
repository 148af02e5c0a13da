package tools_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/apps"
	"hub/storage"
	"hub/tools"
	"hub/workspace"
)

// webhook is a connected app on 127.0.0.1 that records each post.
type webhook struct {
	srv   *httptest.Server
	hits  atomic.Int64
	posts chan post
}

type post struct {
	key  string
	body map[string]any
}

func newWebhook(t *testing.T, answer http.HandlerFunc) *webhook {
	t.Helper()
	w := &webhook{posts: make(chan post, 8)}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == "PRI" {
			// Not a post: a gRPC client redialing a port this server was
			// given after its old owner stopped (an embedded Temporal server
			// of another test process leaves such connections behind); an
			// HTTP/1 server hands the HTTP/2 preface to its handler.
			http.NotFound(rw, r)
			return
		}
		w.hits.Add(1)
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		select {
		case w.posts <- post{key: r.Header.Get("Idempotency-Key"), body: body}:
		default:
		}
		if answer != nil {
			answer(rw, r)
		}
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// client is an apps.Client that may reach only the given webhooks.
func client(t *testing.T, timeout time.Duration, hooks ...*webhook) *apps.Client {
	t.Helper()
	var allow []string
	for _, h := range hooks {
		allow = append(allow, h.srv.Listener.Addr().String())
	}
	c, err := apps.New(apps.Options{Allow: allow, Timeout: timeout})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// appsFixture adds an editor and a guest to Acme, a connected app "Team
// updates" pointing at hook, and a registry with the two app tools.
type appsFixture struct {
	*fixture
	reg           *tools.Registry
	editor, guest workspace.Actor
	conn          workspace.Connection
}

var offerApps = []string{"hub_list_connections", "apps_post_update"}

func newAppsFixture(t *testing.T, f *fixture, poster tools.Poster, url string) *appsFixture {
	t.Helper()
	ctx := t.Context()
	a := &appsFixture{fixture: f, reg: tools.NewRegistry(tools.ListConnections, tools.PostUpdate(poster))}
	_, editor, err := f.svc.EnsureMember(ctx, "Acme", "Eddie Editor", workspace.RoleEditor)
	require.NoError(t, err)
	_, guest, err := f.svc.EnsureMember(ctx, "Acme", "Gus Guest", workspace.RoleGuest)
	require.NoError(t, err)
	a.editor, a.guest = workspace.Actor{PersonID: editor, Via: workspace.ViaAssistant}, workspace.Actor{PersonID: guest, Via: workspace.ViaAssistant}
	a.conn, err = f.svc.CreateConnection(ctx, f.owner, f.acme, workspace.NewConnection{Name: "Team updates", URL: url})
	require.NoError(t, err)
	return a
}

// appEnv is an owner's call in Acme with connected-app writes switched on.
func (a *appsFixture) appEnv(policy string) tools.Env {
	env := a.env(a.owner, workspace.RoleOwner)
	env.Settings = workspace.Settings{WritePolicy: policy, ConnectedAppWrites: true}
	env.CallID = "turn_t.1.0"
	return env
}

func (a *appsFixture) call(t *testing.T, env tools.Env, name, args string) (tools.Result, *tools.Error) {
	t.Helper()
	return a.reg.Dispatch(t.Context(), env, tools.Call{Name: name, Arguments: args, Offered: offerApps})
}

func (a *appsFixture) postArgs(text string) string {
	return fmt.Sprintf(`{"connectionId":%q,"text":%q}`, a.conn.ID, text)
}

func TestListConnectionsTool(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		a := newAppsFixture(t, f, nil, "https://hooks.example.com/T0/secret-path")
		_, err := f.svc.CreateConnection(t.Context(), f.owner, f.acme, workspace.NewConnection{Name: "Alerts", URL: "https://alerts.example.com/in"})
		require.NoError(t, err)

		res, terr := a.call(t, a.appEnv(workspace.PolicyImmediate), "hub_list_connections", `{}`)
		require.Nil(t, terr)
		require.Equal(t, "Found 2 connected apps: “Alerts” and “Team updates”.", res.Summary)
		require.Len(t, res.Refs, 2)
		require.Equal(t, workspace.Ref{Kind: "connection", ID: a.conn.ID, Label: "Team updates", Detail: "webhook"}, res.Refs[1])
		text := tools.ModelText(res, tools.MaxResultChars)
		require.NotContains(t, text, "example.com", "never a URL")
		require.NotContains(t, text, "secret-path")
		conns := mustJSON(t, text)["data"].(map[string]any)["connections"].([]any)
		require.Equal(t, map[string]any{"id": a.conn.ID, "name": "Team updates", "kind": "webhook", "enabled": true}, conns[1])

		// A viewer reads the list too.
		res, terr = a.call(t, a.env(a.viewer, workspace.RoleViewer), "hub_list_connections", `{}`)
		require.Nil(t, terr)
		require.Len(t, res.Refs, 2)

		// A guest never uses the owner's connected apps, not even the list.
		_, terr = a.call(t, a.env(a.guest, workspace.RoleGuest), "hub_list_connections", `{}`)
		require.NotNil(t, terr)
		require.Equal(t, tools.CodeForbidden, terr.Code)

		// Another space has none.
		res, terr = a.reg.Dispatch(t.Context(), tools.Env{Workspace: f.svc, Actor: f.outsider, SpaceID: f.other, Role: workspace.RoleOwner},
			tools.Call{Name: "hub_list_connections", Offered: offerApps})
		require.Nil(t, terr)
		require.Equal(t, "No apps are connected to this space.", res.Summary)
		require.Empty(t, res.Refs)
	})
}

// A post always waits for Apply, whatever the write policy, with a preview
// that says what goes where; nothing is sent.
func TestPostUpdateIsHeldUnderEveryPolicy(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		hook := newWebhook(t, nil)
		a := newAppsFixture(t, f, client(t, 0, hook), hook.srv.URL+"/hooks/team")
		require.True(t, a.reg.Granted(workspace.RoleOwner)[1].Holds(workspace.Settings{WritePolicy: workspace.PolicyImmediate}))
		for _, policy := range []string{"", workspace.PolicyImmediate, workspace.PolicyPreview, workspace.PolicyNeedsMe} {
			args := a.postArgs("Shipped the beta to the first ten teams.")
			res, terr := a.call(t, a.appEnv(policy), "apps_post_update", args)
			require.Nil(t, terr, "policy %q", policy)
			require.True(t, res.Held, "policy %q", policy)
			require.Equal(t, "Post “Shipped the beta to the first ten teams.” to Team updates", res.Summary)
			require.JSONEq(t, args, string(res.Input), "Apply runs exactly what was previewed")
		}
		res, terr := a.call(t, a.appEnv(workspace.PolicyPreview),
			"apps_post_update", fmt.Sprintf(`{"connectionId":%q,"title":"Launch","text":%q}`, a.conn.ID, longText(300)))
		require.Nil(t, terr)
		require.Equal(t, "Post “Launch”: “"+longText(119)+"…” to Team updates", res.Summary, "a long text is quoted in part")
		require.Zero(t, hook.hits.Load(), "nothing was sent")
	})
}

func longText(n int) string {
	b := make([]rune, n)
	for i := range b {
		b[i] = 'a' + rune(i%26)
	}
	return string(b)
}

// Apply runs the held call: one post, keyed by the call id, with the
// update, the space and who sent it.
func TestPostUpdateRunsOnApply(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		hook := newWebhook(t, nil)
		a := newAppsFixture(t, f, client(t, 0, hook), hook.srv.URL+"/hooks/team")
		env := a.appEnv(workspace.PolicyImmediate)
		env.Applying = true
		res, terr := a.call(t, env, "apps_post_update",
			fmt.Sprintf(`{"connectionId":%q,"title":" Launch ","text":"Shipped the beta."}`, a.conn.ID))
		require.Nil(t, terr)
		require.False(t, res.Held)
		require.Equal(t, "Posted to Team updates.", res.Summary)
		require.Equal(t, []workspace.Ref{workspace.ConnectionRef(a.conn)}, res.Refs)
		require.NotContains(t, tools.ModelText(res, tools.MaxResultChars), "127.0.0.1", "never the URL")
		got := <-hook.posts
		require.Equal(t, "turn_t.1.0", got.key, "the idempotency key is Hub's call id")
		require.Equal(t, map[string]any{"text": "Shipped the beta.", "title": "Launch", "space": "Acme", "sentBy": "Olive Owner"}, got.body)
		require.EqualValues(t, 1, hook.hits.Load())

		// An editor may post too.
		env.Actor, env.Role = a.editor, workspace.RoleEditor
		_, terr = a.call(t, env, "apps_post_update", a.postArgs("From Eddie"))
		require.Nil(t, terr)
		require.Equal(t, "Eddie Editor", (<-hook.posts).body["sentBy"])
	})
}

func TestPostUpdateRefusals(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		hook := newWebhook(t, nil)
		a := newAppsFixture(t, f, client(t, 0, hook), hook.srv.URL+"/hooks/team")
		theirs, err := f.svc.CreateConnection(t.Context(), f.outsider, f.other, workspace.NewConnection{Name: "Theirs", URL: hook.srv.URL})
		require.NoError(t, err)
		for _, applying := range []bool{false, true} {
			for _, tc := range []struct {
				name string
				env  func(tools.Env) tools.Env
				args string
				code string
				path string
			}{
				{"a guest", func(e tools.Env) tools.Env { e.Actor, e.Role = a.guest, workspace.RoleGuest; return e }, a.postArgs("hi"), tools.CodeForbidden, ""},
				{"a guest claiming to be an owner", func(e tools.Env) tools.Env { e.Actor = a.guest; return e }, a.postArgs("hi"), tools.CodeNotFound, "/connectionId"},
				{"a viewer", func(e tools.Env) tools.Env { e.Actor, e.Role = a.viewer, workspace.RoleViewer; return e }, a.postArgs("hi"), tools.CodeForbidden, ""},
				{"a viewer claiming to be an owner", func(e tools.Env) tools.Env { e.Actor = a.viewer; return e }, a.postArgs("hi"), tools.CodeForbidden, ""},
				{"connected-app writes switched off", func(e tools.Env) tools.Env { e.Settings.ConnectedAppWrites = false; return e }, a.postArgs("hi"), tools.CodeRefused, ""},
				{"apps not among the allowed areas", func(e tools.Env) tools.Env { e.Settings.AllowedWriteAreas = []string{"tasks"}; return e }, a.postArgs("hi"), tools.CodeRefused, ""},
				{"no such connection", func(e tools.Env) tools.Env { return e }, `{"connectionId":"conn_nope","text":"hi"}`, tools.CodeNotFound, "/connectionId"},
				{"another space's connection", func(e tools.Env) tools.Env { return e }, fmt.Sprintf(`{"connectionId":%q,"text":"hi"}`, theirs.ID), tools.CodeNotFound, "/connectionId"},
				{"blank text", func(e tools.Env) tools.Env { return e }, a.postArgs("   "), tools.CodeInvalidPayload, "/text"},
				{"no text", func(e tools.Env) tools.Env { return e }, fmt.Sprintf(`{"connectionId":%q}`, a.conn.ID), tools.CodeInvalidPayload, "/text"},
				{"text too long", func(e tools.Env) tools.Env { return e }, a.postArgs(longText(4001)), tools.CodeInvalidPayload, "/text"},
			} {
				t.Run(fmt.Sprintf("%s, applying %v", tc.name, applying), func(t *testing.T) {
					env := a.appEnv(workspace.PolicyImmediate)
					env.Applying = applying
					res, terr := a.call(t, tc.env(env), "apps_post_update", tc.args)
					require.NotNil(t, terr, "%+v", res)
					require.Equal(t, tc.code, terr.Code, terr.Message)
					require.Equal(t, tc.path, terr.Path)
					require.False(t, res.Held)
				})
			}
		}

		// A connection switched off is refused when proposed and when applied.
		require.NoError(t, f.db.Model(&storage.Connection{}).Where("id = ?", a.conn.ID).Update("enabled", false).Error)
		for _, applying := range []bool{false, true} {
			env := a.appEnv(workspace.PolicyImmediate)
			env.Applying = applying
			_, terr := a.call(t, env, "apps_post_update", a.postArgs("hi"))
			require.NotNil(t, terr)
			require.Equal(t, tools.CodeRefused, terr.Code)
			require.Contains(t, terr.Message, "Team updates is switched off")
		}
		require.Zero(t, hook.hits.Load(), "nothing was sent")
	})
}

// What the client reports becomes a tool error that keeps apart "nothing
// was sent" from "it may have arrived".
func TestPostUpdateClientErrors(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		failing := newWebhook(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })
		release := make(chan struct{})
		stuck := newWebhook(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		t.Cleanup(func() { close(release) }) // before the server closes
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		closed := l.Addr().String()
		require.NoError(t, l.Close())
		other := newWebhook(t, nil) // reachable, but not allowed

		c, err := apps.New(apps.Options{Timeout: 300 * time.Millisecond, Allow: []string{
			failing.srv.Listener.Addr().String(), stuck.srv.Listener.Addr().String(), closed}})
		require.NoError(t, err)
		t.Cleanup(c.Close)
		a := newAppsFixture(t, f, c, failing.srv.URL+"/hook")
		for _, tc := range []struct {
			name, url, code, message string
			unknown                  bool
		}{
			{"an error status", failing.srv.URL + "/hook", tools.CodeFailed, "Team updates answered 502 Bad Gateway, so the update was not posted", false},
			{"a blocked address", other.srv.URL + "/hook", tools.CodeRefused, "Hub did not post to Team updates (127.0.0.1 is a loopback address, which Hub does not connect to); nothing was sent", false},
			{"a private address", "http://10.1.2.3/hook", tools.CodeRefused, "Hub did not post to Team updates (10.1.2.3 is a private address, which Hub does not connect to); nothing was sent", false},
			{"nothing listening", "http://" + closed + "/hook", tools.CodeFailed, "Hub could not connect to Team updates, so nothing was sent", false},
			{"no answer in time", stuck.srv.URL + "/hook", tools.CodeFailed, "The outcome is unknown: Team updates did not answer within 300ms after the update was sent, so it may or may not have been posted", true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				require.NoError(t, f.db.Model(&storage.Connection{}).Where("id = ?", a.conn.ID).Update("url", tc.url).Error)
				env := a.appEnv(workspace.PolicyImmediate)
				env.Applying = true
				_, terr := a.call(t, env, "apps_post_update", a.postArgs("hi"))
				require.NotNil(t, terr)
				require.Equal(t, tools.Error{Code: tc.code, Message: tc.message, OutcomeUnknown: tc.unknown}, *terr)
			})
		}
		require.Zero(t, other.hits.Load())
		require.EqualValues(t, 1, stuck.hits.Load(), "the stuck app got the post: its outcome is what is unknown")

		// A Hub with no client wired sends nothing and says so.
		bare := tools.NewRegistry(tools.PostUpdate(nil))
		env := a.appEnv(workspace.PolicyImmediate)
		env.Applying = true
		_, terr := bare.Dispatch(t.Context(), env, tools.Call{Name: "apps_post_update", Arguments: a.postArgs("hi"), Offered: offerApps})
		require.NotNil(t, terr)
		require.Equal(t, tools.CodeFailed, terr.Code)
		require.Contains(t, terr.Message, "not set up")
	})
}
