package workspace_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

func TestEnsureMemberIsIdempotent(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		spaceID, personID, err := f.svc.EnsureMember(ctx, "Acme", "Olive Owner", workspace.RoleOwner)
		require.NoError(t, err)
		require.Equal(t, f.acme, spaceID, "the space is found by its name")
		require.Equal(t, f.owner.PersonID, personID, "the person is found among the space's members")

		// Surrounding spaces are trimmed, so the same names find the same records.
		spaceID, personID, err = f.svc.EnsureMember(ctx, "  Acme ", " Olive Owner  ", workspace.RoleOwner)
		require.NoError(t, err)
		require.Equal(t, f.acme, spaceID)
		require.Equal(t, f.owner.PersonID, personID)

		spaces, err := f.svc.ListSpaces(ctx, f.owner.PersonID)
		require.NoError(t, err)
		require.Equal(t, []workspace.Space{{ID: f.acme, Name: "Acme", Role: workspace.RoleOwner}}, spaces, "no duplicate space or membership")
		people, err := f.svc.ListPeople(ctx, f.owner.PersonID, f.acme)
		require.NoError(t, err)
		require.Len(t, people, 4, "no duplicate person")

		// Asking again with another role changes the role of the membership.
		_, _, err = f.svc.EnsureMember(ctx, "Acme", "Vera Viewer", workspace.RoleEditor)
		require.NoError(t, err)
		role, err := f.svc.Access(ctx, f.viewer.PersonID, f.acme)
		require.NoError(t, err)
		require.Equal(t, workspace.RoleEditor, role)

		// A known person joins another space as the same person.
		otherID, personID, err := f.svc.EnsureMember(ctx, "Other", "Olive Owner", workspace.RoleViewer)
		require.NoError(t, err)
		require.Equal(t, f.other, otherID)
		require.Equal(t, f.owner.PersonID, personID)
		spaces, err = f.svc.ListSpaces(ctx, f.owner.PersonID)
		require.NoError(t, err)
		require.Equal(t, []workspace.Space{
			{ID: f.acme, Name: "Acme", Role: workspace.RoleOwner},
			{ID: f.other, Name: "Other", Role: workspace.RoleViewer},
		}, spaces, "by name")
	})
}

func TestEnsureMemberRefusesBadInput(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		for _, tc := range []struct {
			name          string
			space, person string
			role          workspace.Role
			path          string
		}{
			{"no space", " ", "Ann", workspace.RoleOwner, ""},
			{"no person", "Acme", "", workspace.RoleOwner, ""},
			{"unknown role", "Acme", "Ann", "admin", "/role"},
			{"empty role", "Acme", "Ann", "", "/role"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, _, err := f.svc.EnsureMember(t.Context(), tc.space, tc.person, tc.role)
				requireInvalid(t, err, tc.path)
			})
		}
		spaces, err := f.svc.ListSpaces(t.Context(), f.owner.PersonID)
		require.NoError(t, err)
		require.Len(t, spaces, 1, "nothing was created")
	})
}

func TestSpacesAndPeople(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		sp, err := f.svc.GetSpace(ctx, f.viewer.PersonID, f.acme)
		require.NoError(t, err)
		require.Equal(t, workspace.Space{ID: f.acme, Name: "Acme", Role: workspace.RoleViewer}, sp)

		_, err = f.svc.GetSpace(ctx, f.outsider.PersonID, f.acme)
		requireNotFound(t, err, "space", "")
		_, err = f.svc.GetSpace(ctx, f.owner.PersonID, "space_missing")
		requireNotFound(t, err, "space", "")

		people, err := f.svc.ListPeople(ctx, f.guest.PersonID, f.acme)
		require.NoError(t, err)
		for i := range people {
			require.False(t, people[i].JoinedAt.IsZero())
			people[i].JoinedAt = time.Time{}
		}
		require.Equal(t, []workspace.Person{
			{ID: f.editor.PersonID, Name: "Eddie Editor", Role: workspace.RoleEditor, Revision: 1},
			{ID: f.guest.PersonID, Name: "Gus Guest", Role: workspace.RoleGuest, Revision: 1},
			{ID: f.owner.PersonID, Name: "Olive Owner", Role: workspace.RoleOwner, Revision: 1},
			{ID: f.viewer.PersonID, Name: "Vera Viewer", Role: workspace.RoleViewer, Revision: 1},
		}, people, "members by name, with their roles")

		_, err = f.svc.ListPeople(ctx, f.outsider.PersonID, f.acme)
		requireNotFound(t, err, "space", "")

		p, err := f.svc.GetPerson(ctx, f.owner.PersonID)
		require.NoError(t, err)
		require.Equal(t, "Olive Owner", p.Name)
		require.Equal(t, "Olive", p.FirstName())
		_, err = f.svc.GetPerson(ctx, "person_missing")
		requireNotFound(t, err, "person", "")

		none, err := f.svc.ListSpaces(ctx, "person_missing")
		require.NoError(t, err)
		require.Empty(t, none)
	})
}

func TestFirstName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"Mira Chen":         "Mira",
		"  Mira   Chen ":    "Mira",
		"Cher":              "Cher",
		"":                  "",
		"Jean-Luc Picard":   "Jean-Luc",
		"\tÉlodie\nDurand ": "Élodie",
	} {
		require.Equal(t, want, workspace.Person{Name: name}.FirstName(), "%q", name)
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		role     string
		ok       bool
		canWrite bool
	}{
		{"owner", true, true},
		{"editor", true, true},
		{"guest", true, true},
		{"viewer", true, false},
		{"Owner", false, false},
		{"", false, false},
		{"admin", false, false},
	} {
		r, err := workspace.ParseRole(tc.role)
		if !tc.ok {
			requireInvalid(t, err, "/role")
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.canWrite, r.CanWrite(), tc.role)
	}
	require.False(t, workspace.Role("").CanWrite())
}

func TestAccess(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		for _, tc := range []struct {
			name     string
			actor    workspace.Actor
			space    string
			role     workspace.Role
			writeErr error
		}{
			{"owner", f.owner, f.acme, workspace.RoleOwner, nil},
			{"editor", f.editor, f.acme, workspace.RoleEditor, nil},
			{"guest", f.guest, f.acme, workspace.RoleGuest, nil},
			{"viewer", f.viewer, f.acme, workspace.RoleViewer, workspace.ErrForbidden},
			{"outsider", f.outsider, f.acme, "", workspace.ErrNotFound},
			{"missing space", f.owner, "space_missing", "", workspace.ErrNotFound},
		} {
			t.Run(tc.name, func(t *testing.T) {
				role, err := f.svc.Access(ctx, tc.actor.PersonID, tc.space)
				if tc.role == "" {
					requireNotFound(t, err, "space", "")
				} else {
					require.NoError(t, err)
					require.Equal(t, tc.role, role)
				}
				err = f.svc.CanWrite(ctx, tc.actor.PersonID, tc.space)
				if tc.writeErr == nil {
					require.NoError(t, err)
				} else {
					require.ErrorIs(t, err, tc.writeErr)
				}
			})
		}
	})
}

func TestFindMemberCreatesNothing(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		spaceID, personID, err := f.svc.FindMember(ctx, " Acme ", "Olive Owner")
		require.NoError(t, err)
		require.Equal(t, f.acme, spaceID)
		require.Equal(t, f.owner.PersonID, personID)

		spaceID, personID, err = f.svc.FindMember(ctx, "Acme Typo", "Olive Owner")
		require.ErrorIs(t, err, workspace.ErrNotFound)
		require.EqualError(t, err, `no space is named "Acme Typo": not found`)
		require.Empty(t, spaceID+personID)
		_, personID, err = f.svc.FindMember(ctx, "Acme", "Nobody Here")
		require.ErrorIs(t, err, workspace.ErrNotFound)
		require.EqualError(t, err, `no member of "Acme" is named "Nobody Here": not found`)
		require.Empty(t, personID)
		_, _, err = f.svc.FindMember(ctx, "Acme", " ")
		require.ErrorIs(t, err, workspace.ErrInvalid)
	})
}
