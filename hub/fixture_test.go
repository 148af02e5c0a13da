package hub_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/hub"
	"hub/models"
)

// fixture is a migrated database with two spaces: Acme, where one person
// holds each role, and Other, where only the outsider is a member.
type fixture struct {
	db  *models.DB
	svc *hub.Service

	acme, other string // space ids

	owner, editor, viewer, guest, outsider hub.Actor
}

// each runs fn on a fresh fixture per engine.
func each(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		fn(t, newFixture(t, url))
	})
}

func newFixture(t *testing.T, url string) *fixture {
	t.Helper()
	ctx := t.Context()
	db := dbtest.Open(t, url)
	f := &fixture{db: db, svc: hub.NewService(db)}
	member := func(space, person string, role hub.Role) (string, hub.Actor) {
		spaceID, personID, err := f.svc.EnsureMember(ctx, space, person, role)
		require.NoError(t, err)
		return spaceID, hub.Actor{PersonID: personID, Via: hub.ViaREST}
	}
	f.acme, f.owner = member("Acme", "Olive Owner", hub.RoleOwner)
	_, f.editor = member("Acme", "Eddie Editor", hub.RoleEditor)
	_, f.viewer = member("Acme", "Vera Viewer", hub.RoleViewer)
	_, f.guest = member("Acme", "Gus Guest", hub.RoleGuest)
	f.other, f.outsider = member("Other", "Otto Outsider", hub.RoleOwner)
	return f
}

// task creates one task in Acme as the owner.
func (f *fixture) task(t *testing.T, in hub.NewTask) hub.Task {
	t.Helper()
	out, err := f.svc.CreateTasks(t.Context(), f.owner, f.acme, "/tasks", []hub.NewTask{in})
	require.NoError(t, err)
	return out[0]
}

// project creates a project in a space as the given actor.
func (f *fixture) project(t *testing.T, actor hub.Actor, spaceID, name string) hub.Project {
	t.Helper()
	p, err := f.svc.CreateProject(t.Context(), actor, spaceID, hub.NewProject{Name: name})
	require.NoError(t, err)
	return p
}

// requireInvalid checks err is an InvalidError at path.
func requireInvalid(t *testing.T, err error, path string) {
	t.Helper()
	require.ErrorIs(t, err, hub.ErrInvalid)
	var inv *hub.InvalidError
	require.ErrorAs(t, err, &inv)
	require.Equal(t, path, inv.Path, "path of %v", err)
	require.NotEmpty(t, inv.Message)
}

// requireNotFound checks err is a NotFoundError of the kind, at path.
func requireNotFound(t *testing.T, err error, kind, path string) {
	t.Helper()
	require.ErrorIs(t, err, hub.ErrNotFound)
	require.NotErrorIs(t, err, hub.ErrForbidden)
	var nf *hub.NotFoundError
	require.ErrorAs(t, err, &nf)
	require.Equal(t, kind, nf.Kind, "kind of %v", err)
	require.Equal(t, path, nf.Path, "path of %v", err)
}

func ptr[T any](v T) *T { return &v }
