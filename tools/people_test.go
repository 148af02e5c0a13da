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
			{ID: f.editor.PersonID, Name: "Eddie Editor", Role: "editor"},
			{ID: f.guest.PersonID, Name: "Gus Guest", Role: "guest"},
			{ID: f.owner.PersonID, Name: "Olive Owner", Role: "owner"},
			{ID: f.viewer.PersonID, Name: "Vera Viewer", Role: "viewer"},
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
