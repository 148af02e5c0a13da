package tools

import (
	"context"
	"fmt"

	"hub/workspace"
)

// PersonData is a member of the space as tool results carry it.
type PersonData struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
}

// personRef names a person to people as workspace.ResolveRef does: their name,
// with their role as detail.
func personRef(p workspace.Person) workspace.Ref {
	return workspace.Ref{Kind: workspace.KindPerson, ID: p.ID, Label: p.Name, Detail: string(p.Role)}
}

// ListPeopleInput filters hub_list_people.
type ListPeopleInput struct {
	Query  string `json:"query,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Words the person's name contains."`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200" jsonschema_description:"How many people to return (default 50)."`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"How many matching people to skip, to page on."`
}

// ListPeople is hub_list_people: the space's members with their roles,
// through the same service call as GET /api/spaces/:spaceId/people.
var ListPeople = Define(Spec{
	Name: "hub_list_people", Area: "people",
	Description: "List the people in this space by name, with their ids and roles (owner, editor, viewer, guest). Filter by name words. Use it to find the assigneeId task tools need.",
}, func(ctx context.Context, env Env, in ListPeopleInput) (Result, error) {
	all, err := env.Workspace.ListPeople(ctx, env.Actor.PersonID, env.SpaceID)
	if err != nil {
		return Result{}, err
	}
	var matches []workspace.Person
	for _, p := range all {
		if containsWords(p.Name, in.Query) {
			matches = append(matches, p)
		}
	}
	page, next := pageOf(matches, in.Limit, in.Offset)
	data := struct {
		People     []PersonData `json:"people"`
		Total      int          `json:"total"`
		Offset     int          `json:"offset"`
		NextOffset int          `json:"nextOffset,omitempty"`
	}{People: make([]PersonData, len(page)), Total: len(matches), Offset: in.Offset, NextOffset: next}
	titled := make([]Titled, len(page))
	refs := make([]workspace.Ref, len(page))
	for i, p := range page {
		data.People[i] = PersonData{ID: p.ID, Name: p.Name, Role: string(p.Role)}
		titled[i] = Titled{Title: p.Name}
		refs[i] = personRef(p)
	}
	summary := "No people match."
	if len(page) > 0 {
		summary = fmt.Sprintf("Found %d %s: %s.", len(matches), Plural(len(matches), "person", "people"), ListTitles(titled))
	}
	return Result{Summary: summary, Data: data, Refs: refs}, nil
})
