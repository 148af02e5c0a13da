package tools_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/workspace"
)

// peopleList is hub_list_people's data as the model reads it.
type peopleList struct {
	People     []tools.PersonData `json:"people"`
	Total      int                `json:"total"`
	NextOffset int                `json:"nextOffset"`
}

func TestListPeople(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		res, err := f.dispatch(t, f.env(f.viewer, workspace.RoleViewer), "hub_list_people", `{}`)
		require.Nil(t, err)
		require.Equal(t, "Found 4 people: “Eddie Editor”, “Gus Guest”, “Olive Owner” and “Vera Viewer”.", res.Summary,
			"members of this space only, by name")
		list := dataOf[peopleList](t, res)
		require.Equal(t, []tools.PersonData{
			{ID: f.editor.PersonID, Name: "Eddie Editor", Role: "editor", Revision: 1},
			{ID: f.guest.PersonID, Name: "Gus Guest", Role: "guest", Revision: 1},
			{ID: f.owner.PersonID, Name: "Olive Owner", Role: "owner", Revision: 1},
			{ID: f.viewer.PersonID, Name: "Vera Viewer", Role: "viewer", Revision: 1},
		}, list.People)
		require.Equal(t, workspace.Ref{Kind: "person", ID: f.editor.PersonID, Label: "Eddie Editor", Detail: "editor"}, res.Refs[0])
		require.NotContains(t, res.Summary, f.editor.PersonID)

		res, err = f.dispatch(t, f.env(f.owner, workspace.RoleOwner), "hub_list_people", `{"query":"olive"}`)
		require.Nil(t, err)
		require.Equal(t, "Found 1 person: “Olive Owner”.", res.Summary)

		res, err = f.dispatch(t, f.env(f.owner, workspace.RoleOwner), "hub_list_people", `{"limit":3}`)
		require.Nil(t, err)
		list = dataOf[peopleList](t, res)
		require.Len(t, list.People, 3)
		require.Equal(t, 4, list.Total)
		require.Equal(t, 3, list.NextOffset)

		res, err = f.dispatch(t, f.env(f.owner, workspace.RoleOwner), "hub_list_people", `{"query":"Otto"}`)
		require.Nil(t, err)
		require.Equal(t, "No people match.", res.Summary, "a person of another space is not listed")

		// A space the actor cannot open is not found.
		_, err = f.reg.Dispatch(t.Context(), tools.Env{Workspace: f.svc, Actor: f.owner, SpaceID: f.other, Role: workspace.RoleOwner},
			tools.Call{Name: "hub_list_people", Arguments: `{}`, Offered: offerAll})
		require.NotNil(t, err)
		require.Equal(t, tools.CodeNotFound, err.Code)
	})
}

// The people writes: summaries and previews name people, errors point at
// the field, and only an owner may use them.
func TestPeopleWrites(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		owner := f.env(f.owner, workspace.RoleOwner)
		res, err := f.dispatch(t, owner, "hub_add_person", `{"name":"Ann Lee"}`)
		require.Nil(t, err)
		require.True(t, res.Held, "adding someone waits for Apply under immediate")
		require.Equal(t, "Add “Ann Lee” to this space as editor.", res.Summary)
		applyingOwner := owner
		applyingOwner.Applying = true
		res, err = f.dispatch(t, applyingOwner, "hub_add_person", `{"name":"Ann Lee"}`)
		require.Nil(t, err)
		require.Equal(t, "Added “Ann Lee” as editor.", res.Summary, "editor by default")
		ann := dataOf[struct{ Person tools.PersonData }](t, res).Person
		require.Equal(t, tools.PersonData{ID: ann.ID, Name: "Ann Lee", Role: "editor", Revision: 1}, ann)
		require.Equal(t, []workspace.Ref{{Kind: workspace.KindPerson, ID: ann.ID, Label: "Ann Lee", Detail: "editor"}}, res.Refs)

		preview := with(owner, workspace.PolicyPreview)
		res, err = f.dispatch(t, preview, "hub_add_person", `{"name":"Bo Berg","role":"guest"}`)
		require.Nil(t, err)
		require.True(t, res.Held)
		require.Equal(t, "Add “Bo Berg” to this space as guest.", res.Summary)
		res, err = f.dispatch(t, preview, "hub_add_person", `{"personId":"`+f.outsider.PersonID+`"}`)
		require.Nil(t, err)
		require.Equal(t, "Add someone from another of your spaces to this space as editor.", res.Summary)

		// Held whatever the policy; previews say what changes.
		res, err = f.dispatch(t, owner, "hub_update_person", `{"id":"`+ann.ID+`","role":"viewer","revision":1}`)
		require.Nil(t, err)
		require.True(t, res.Held, "a role change waits for Apply under immediate")
		require.Equal(t, "Change “Ann Lee”: role editor → viewer.", res.Summary)
		res, err = f.dispatch(t, owner, "hub_remove_person", `{"id":"`+ann.ID+`"}`)
		require.Nil(t, err)
		require.True(t, res.Held)
		require.Equal(t, "Remove “Ann Lee” (editor) from this space: they lose access to it.", res.Summary)

		// Applied.
		applying := owner
		applying.Applying = true
		res, err = f.dispatch(t, applying, "hub_update_person", `{"id":"`+ann.ID+`","role":"viewer","firstName":"Annie","revision":1}`)
		require.Nil(t, err)
		require.Equal(t, "Updated “Ann Lee”: viewer now.", res.Summary)
		require.Equal(t, 2, dataOf[struct{ Person tools.PersonData }](t, res).Person.Revision)
		_, err = f.dispatch(t, applying, "hub_update_person", `{"id":"`+ann.ID+`","role":"editor","revision":1}`)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeStale, err.Code)
		require.Equal(t, "/revision", err.Path)
		_, err = f.dispatch(t, applying, "hub_update_person", `{"id":"`+f.outsider.PersonID+`","role":"editor"}`)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeNotFound, err.Code, "another space's person")
		require.Equal(t, "/id", err.Path)
		_, err = f.dispatch(t, applying, "hub_remove_person", `{"id":"`+f.owner.PersonID+`"}`)
		require.NotNil(t, err)
		require.Equal(t, tools.CodeRefused, err.Code, "the last owner stays")
		require.Contains(t, err.Message, "last owner")
		res, err = f.dispatch(t, applying, "hub_remove_person", `{"id":"`+ann.ID+`"}`)
		require.Nil(t, err)
		require.Equal(t, "Removed “Ann Lee” from this space.", res.Summary)

		// Bad input at its path; only owners.
		for args, path := range map[string]string{`{"name":"A\u0000"}`: "/name", `{"name":"Cy","role":"admin"}`: "/role",
			`{"name":"Cy","firstName":"C D"}`: "/firstName", `{}`: "/name", `{"name":"Cy","personId":"x"}`: "/personId"} {
			_, err = f.dispatch(t, owner, "hub_add_person", args)
			require.NotNil(t, err, args)
			require.Equal(t, tools.CodeInvalidPayload, err.Code, args)
			require.Equal(t, path, err.Path, args)
		}
		for _, who := range []struct {
			actor workspace.Actor
			role  workspace.Role
		}{{f.editor, workspace.RoleEditor}, {f.guest, workspace.RoleGuest}, {f.viewer, workspace.RoleViewer}} {
			_, err = f.dispatch(t, f.env(who.actor, who.role), "hub_add_person", `{"name":"Cy"}`)
			require.NotNil(t, err)
			require.Equal(t, tools.CodeForbidden, err.Code, who.role)
		}
		people, serr := f.svc.ListPeople(t.Context(), f.owner.PersonID, f.acme)
		require.NoError(t, serr)
		require.Len(t, people, 4, "only Ann was added, and she was removed")
	})
}
