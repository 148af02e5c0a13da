package tools_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/hub"
	"hub/models"
	"hub/tools"
)

// fixture is a migrated database with a space Acme (an owner and a viewer)
// and a space Other, and the Hub tools.
type fixture struct {
	db    *models.DB
	svc   *hub.Service
	reg   *tools.Registry
	acme  string
	other string

	owner, viewer, outsider hub.Actor
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
	f := &fixture{db: db, svc: hub.NewService(db), reg: tools.Hub()}
	member := func(space, person string, role hub.Role) (string, hub.Actor) {
		spaceID, personID, err := f.svc.EnsureMember(ctx, space, person, role)
		require.NoError(t, err)
		return spaceID, hub.Actor{PersonID: personID, Via: hub.ViaAssistant}
	}
	f.acme, f.owner = member("Acme", "Olive Owner", hub.RoleOwner)
	_, f.viewer = member("Acme", "Vera Viewer", hub.RoleViewer)
	f.other, f.outsider = member("Other", "Otto Outsider", hub.RoleOwner)
	return f
}

// env is what a tool call of the actor in Acme runs with.
func (f *fixture) env(actor hub.Actor, role hub.Role) tools.Env {
	return tools.Env{Hub: f.svc, Actor: actor, SpaceID: f.acme, Role: role}
}

// offerAll offers every tool of the registry.
var offerAll = []string{"hub_list_tasks", "hub_create_tasks"}

func (f *fixture) dispatch(t *testing.T, env tools.Env, name, args string) (tools.Result, *tools.Error) {
	t.Helper()
	return f.reg.Dispatch(t.Context(), env, tools.Call{Name: name, Arguments: args, Offered: offerAll})
}

func (f *fixture) taskCount(t *testing.T) int64 {
	t.Helper()
	var n int64
	require.NoError(t, f.db.Model(&models.Task{}).Count(&n).Error)
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
