package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/storage"
	"hub/tools"
	"hub/workspace"
)

// fixture is a migrated database with a space Acme (one person in each
// role) and a space Other, and the Hub tools.
type fixture struct {
	db    *storage.DB
	svc   *workspace.Service
	reg   *tools.Registry
	acme  string
	other string

	owner, editor, viewer, guest, outsider workspace.Actor
}

func each(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		fn(t, newFixture(t, url))
	})
}

func newFixture(t testing.TB, url string) *fixture {
	t.Helper()
	ctx := context.Background()
	db := dbtest.Open(t, url)
	f := &fixture{db: db, svc: workspace.NewService(db), reg: tools.Hub(nil)}
	member := func(space, person string, role workspace.Role) (string, workspace.Actor) {
		spaceID, personID, err := f.svc.EnsureMember(ctx, space, person, role)
		require.NoError(t, err)
		return spaceID, workspace.Actor{PersonID: personID, Via: workspace.ViaAssistant}
	}
	f.acme, f.owner = member("Acme", "Olive Owner", workspace.RoleOwner)
	_, f.viewer = member("Acme", "Vera Viewer", workspace.RoleViewer)
	_, f.editor = member("Acme", "Eddie Editor", workspace.RoleEditor)
	_, f.guest = member("Acme", "Gus Guest", workspace.RoleGuest)
	f.other, f.outsider = member("Other", "Otto Outsider", workspace.RoleOwner)
	return f
}

// env is what a tool call of the actor in Acme runs with.
func (f *fixture) env(actor workspace.Actor, role workspace.Role) tools.Env {
	return tools.Env{Workspace: f.svc, Actor: actor, SpaceID: f.acme, Role: role}
}

// offerAll offers every tool of the registry.
var offerAll = func() []string {
	var names []string
	for _, d := range tools.Hub(nil).Granted(workspace.RoleOwner) {
		names = append(names, d.Name)
	}
	return names
}()

func (f *fixture) dispatch(t *testing.T, env tools.Env, name, args string) (tools.Result, *tools.Error) {
	t.Helper()
	return f.reg.Dispatch(t.Context(), env, tools.Call{Name: name, Arguments: args, Offered: offerAll})
}

func (f *fixture) taskCount(t *testing.T) int64 {
	t.Helper()
	var n int64
	require.NoError(t, f.db.Model(&storage.Task{}).Count(&n).Error)
	return n
}

// probeInput is the input of the probe tool the contract tests register.
type probeInput struct {
	N    int    `json:"n,omitempty" jsonschema:"minimum=0"`
	Mode string `json:"mode,omitempty" jsonschema:"enum=ok,enum=panic,enum=error"`
}

// probe is a tool that counts its runs and does what its input says.
type probe struct {
	runs atomic.Int64
	err  error // returned when mode is "error"
}

func (p *probe) definition(name string, write bool) *tools.Definition {
	return tools.Define(tools.Spec{Name: name, Area: "test", Description: "A probe.", IsWrite: write},
		func(ctx context.Context, env tools.Env, in probeInput) (tools.Result, error) {
			p.runs.Add(1)
			switch in.Mode {
			case "panic":
				panic("probe panicked")
			case "error":
				return tools.Result{}, p.err
			}
			return tools.Result{Summary: "ran", Data: in}, nil
		})
}

func mustJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &v), "valid JSON: %s", s)
	return v
}

// rest is the actor as the screen (REST) acts: the same person, through the
// same service, so a test can compare the two paths.
func rest(a workspace.Actor) workspace.Actor {
	return workspace.Actor{PersonID: a.PersonID, Via: workspace.ViaREST}
}

// task creates a task in Acme through the service, as the owner on the screen.
func (f *fixture) task(t *testing.T, in workspace.NewTask) workspace.Task {
	t.Helper()
	out, err := f.svc.CreateTasks(t.Context(), rest(f.owner), f.acme, "/tasks", []workspace.NewTask{in})
	require.NoError(t, err)
	return out[0]
}

// project creates a project in Acme through the service, as the owner.
func (f *fixture) project(t *testing.T, in workspace.NewProject) workspace.Project {
	t.Helper()
	p, err := f.svc.CreateProject(t.Context(), rest(f.owner), f.acme, in)
	require.NoError(t, err)
	return p
}

// getTask reads a task as the screen does; ok is false when it is gone.
func (f *fixture) getTask(t *testing.T, id string) (workspace.Task, bool) {
	t.Helper()
	got, err := f.svc.GetTask(t.Context(), rest(f.owner), f.acme, id)
	if errors.Is(err, workspace.ErrNotFound) {
		return workspace.Task{}, false
	}
	require.NoError(t, err)
	return got, true
}

// with returns env under a write policy.
func with(env tools.Env, policy string) tools.Env {
	env.Settings.WritePolicy = policy
	return env
}

// dataOf decodes a result's data the way the model reads it (JSON).
func dataOf[T any](t *testing.T, res tools.Result) T {
	t.Helper()
	var out T
	b, err := json.Marshal(res.Data)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}
