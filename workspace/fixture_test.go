package workspace_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/storage"
	"hub/workspace"
)

// fixture is a migrated database with two spaces: Acme, where one person
// holds each role, and Other, where only the outsider is a member.
type fixture struct {
	db  *storage.DB
	svc *workspace.Service

	acme, other string // space ids

	owner, editor, viewer, guest, outsider workspace.Actor
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
	f := &fixture{db: db, svc: workspace.NewService(db)}
	member := func(space, person string, role workspace.Role) (string, workspace.Actor) {
		spaceID, personID, err := f.svc.EnsureMember(ctx, space, person, role)
		require.NoError(t, err)
		return spaceID, workspace.Actor{PersonID: personID, Via: workspace.ViaREST}
	}
	f.acme, f.owner = member("Acme", "Olive Owner", workspace.RoleOwner)
	_, f.editor = member("Acme", "Eddie Editor", workspace.RoleEditor)
	_, f.viewer = member("Acme", "Vera Viewer", workspace.RoleViewer)
	_, f.guest = member("Acme", "Gus Guest", workspace.RoleGuest)
	f.other, f.outsider = member("Other", "Otto Outsider", workspace.RoleOwner)
	return f
}

// task creates one task in Acme as the owner.
func (f *fixture) task(t *testing.T, in workspace.NewTask) workspace.Task {
	t.Helper()
	out, err := f.svc.CreateTasks(t.Context(), f.owner, f.acme, "/tasks", []workspace.NewTask{in})
	require.NoError(t, err)
	return out[0]
}

// project creates a project in a space as the given actor.
func (f *fixture) project(t *testing.T, actor workspace.Actor, spaceID, name string) workspace.Project {
	t.Helper()
	p, err := f.svc.CreateProject(t.Context(), actor, spaceID, workspace.NewProject{Name: name})
	require.NoError(t, err)
	return p
}

// requireInvalid checks err is an InvalidError at path.
func requireInvalid(t *testing.T, err error, path string) {
	t.Helper()
	require.ErrorIs(t, err, workspace.ErrInvalid)
	var inv *workspace.InvalidError
	require.ErrorAs(t, err, &inv)
	require.Equal(t, path, inv.Path, "path of %v", err)
	require.NotEmpty(t, inv.Message)
}

// requireNotFound checks err is a NotFoundError of the kind, at path.
func requireNotFound(t *testing.T, err error, kind, path string) {
	t.Helper()
	require.ErrorIs(t, err, workspace.ErrNotFound)
	require.NotErrorIs(t, err, workspace.ErrForbidden)
	var nf *workspace.NotFoundError
	require.ErrorAs(t, err, &nf)
	require.Equal(t, kind, nf.Kind, "kind of %v", err)
	require.Equal(t, path, nf.Path, "path of %v", err)
}

func ptr[T any](v T) *T { return &v }
