package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"hub/workspace"
)

// PersonData is a member of the space as tool results carry it, with the
// revision hub_update_person checks.
type PersonData struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	FirstName string `json:"firstName,omitempty"`
	Role      string `json:"role"`
	Revision  int    `json:"revision"`
}

func toPersonData(p workspace.Person) PersonData {
	return PersonData{ID: p.ID, Name: p.Name, FirstName: p.GivenName, Role: string(p.Role), Revision: p.Revision}
}

// personRef names a person as workspace.ResolveRef does: name, role as detail.
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
	Description: "List the people in this space by name, with their ids, roles (owner, editor, viewer, guest) and revisions. Filter by name words. Use it to find the assigneeId task tools need.",
}, func(ctx context.Context, env Env, in ListPeopleInput) (Result, error) {
	all, err := env.Workspace.ListPeople(ctx, env.Actor.PersonID, env.SpaceID)
	if err != nil {
		return Result{}, err
	}
	matches := slices.DeleteFunc(all, func(p workspace.Person) bool { return !containsWords(p.Name, in.Query) })
	page, next := pageOf(matches, in.Limit, in.Offset)
	people, titled, refs := records(page, toPersonData, func(p workspace.Person) Titled { return Titled{Title: p.Name} }, personRef)
	data := struct {
		People     []PersonData `json:"people"`
		Total      int          `json:"total"`
		Offset     int          `json:"offset"`
		NextOffset int          `json:"nextOffset,omitempty"`
	}{People: people, Total: len(matches), Offset: in.Offset, NextOffset: next}
	summary := "No people match."
	if len(page) > 0 {
		summary = fmt.Sprintf("Found %d %s: %s.", len(matches), Plural(len(matches), "person", "people"), ListTitles(titled))
	}
	return Result{Summary: summary, Data: data, Refs: refs}, nil
})

// Writes of the space's people always wait for Apply, and only owners are
// offered them: access is not something to change unread, least of all on
// the word of text a tool read.

func personResult(summary string, p workspace.Person) Result {
	return Result{Summary: summary, Data: struct {
		Person PersonData `json:"person"`
	}{toPersonData(p)}, Refs: []workspace.Ref{personRef(p)}}
}

// AddPersonInput is hub_add_person's input: a new person by name, or by
// personId someone from another of the person's spaces.
type AddPersonInput struct {
	Name      string `json:"name,omitempty" jsonschema:"maxLength=200" jsonschema_description:"The new person's full name."`
	FirstName string `json:"firstName,omitempty" jsonschema:"maxLength=50" jsonschema_description:"What the assistant calls them, one word; defaults to the first word of the name."`
	PersonID  string `json:"personId,omitempty" jsonschema_description:"Instead of a name: the id of someone already in another of your spaces."`
	Role      string `json:"role,omitempty" jsonschema:"enum=owner,enum=editor,enum=viewer,enum=guest" jsonschema_description:"Defaults to editor."`
}

func (in AddPersonInput) role() string { return cmp.Or(in.Role, string(workspace.DefaultPersonRole)) }

func (in AddPersonInput) person() workspace.NewPerson {
	return workspace.NewPerson{PersonID: in.PersonID, Name: in.Name, FirstName: in.FirstName, Role: workspace.Role(in.Role)}
}

// AddPerson is hub_add_person: adds someone to the space through the same
// service call as POST /api/spaces/:spaceId/people.
var AddPerson = Define(Spec{
	Name: "hub_add_person", Area: "people", IsWrite: true, Risk: RiskMedium, Undoable: true, AlwaysHold: true, OwnersOnly: true,
	Description: "Add a person to this space with a role (owner, editor, viewer, guest; default editor): a new person by name, or someone from another of your spaces by personId. Check hub_list_people first: someone already in the space is not added twice.",
}, func(ctx context.Context, env Env, in AddPersonInput) (Result, error) {
	p, err := env.Workspace.AddPerson(ctx, env.Actor, env.SpaceID, in.person())
	if err != nil {
		return Result{}, err
	}
	return personResult(fmt.Sprintf("Added %s as %s.", ListTitles([]Titled{{Title: p.Name}}), p.Role), p), nil
}, Preview(func(ctx context.Context, env Env, in AddPersonInput) (string, error) {
	if err := workspace.CheckNewPerson(in.person()); err != nil {
		return "", err
	}
	if in.PersonID != "" {
		name, ok := env.Known[in.PersonID]
		if !ok {
			name = "someone from another of your spaces"
		}
		return fmt.Sprintf("Add %s to this space as %s.", quoted(name), in.role()), nil
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return "", &workspace.InvalidError{Path: "/name", Message: "a name is required"}
	}
	return fmt.Sprintf("Add “%s” to this space as %s.", name, in.role()), nil
}))

// quoted puts a record's title in quotes, and leaves a description as is.
func quoted(name string) string {
	if strings.HasPrefix(name, "someone ") {
		return name
	}
	return "“" + name + "”"
}

// UpdatePersonInput is hub_update_person's input.
type UpdatePersonInput struct {
	ID        string    `json:"id" jsonschema:"minLength=1" jsonschema_description:"The person's id, from hub_list_people."`
	Revision  int       `json:"revision,omitempty" jsonschema:"minimum=1" jsonschema_description:"The person's revision as you read it; if their record changed since, the update fails as stale."`
	Name      string    `json:"name,omitempty" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"A new full name (only for someone in no other space, or yourself)."`
	FirstName Clearable `json:"firstName,omitzero" jsonschema_description:"A new first name, one word; null or \"\" removes it."`
	Role      string    `json:"role,omitempty" jsonschema:"enum=owner,enum=editor,enum=viewer,enum=guest" jsonschema_description:"A new role."`
}

func (in UpdatePersonInput) patch() workspace.PersonPatch {
	return workspace.PersonPatch{Name: nonZero(in.Name), FirstName: in.FirstName.patch(), Role: nonZero(workspace.Role(in.Role)), Revision: nonZero(in.Revision)}
}

// UpdatePerson is hub_update_person: changes a person through the same
// service call as PATCH /api/spaces/:spaceId/people/:id.
var UpdatePerson = Define(Spec{
	Name: "hub_update_person", Area: "people", IsWrite: true, Risk: RiskHigh, Undoable: true, AlwaysHold: true, OwnersOnly: true,
	Description: "Change a person of this space by id (id and revision from hub_list_people): role (owner, editor, viewer, guest), name or first name. Only the fields given change. Always waits for the person's Apply.",
}, func(ctx context.Context, env Env, in UpdatePersonInput) (Result, error) {
	p, err := env.Workspace.UpdatePerson(ctx, env.Actor, env.SpaceID, in.ID, in.patch())
	if err != nil {
		return Result{}, rooted(err, "", "/id", workspace.KindPerson)
	}
	return personResult(fmt.Sprintf("Updated %s: %s now.", ListTitles([]Titled{{Title: p.Name}}), p.Role), p), nil
}, Preview(func(ctx context.Context, env Env, in UpdatePersonInput) (string, error) {
	if in.Name == "" && in.Role == "" && !in.FirstName.Set {
		return "", &workspace.InvalidError{Path: "", Message: "say what to change: name, firstName or role"}
	}
	p, err := env.Workspace.GetSpacePerson(ctx, env.Actor, env.SpaceID, in.ID)
	if err != nil {
		return "", rooted(err, "", "/id", workspace.KindPerson)
	}
	parts := appendIf(nil, in.Role != "", fmt.Sprintf("role %s → %s", p.Role, in.Role))
	parts = appendIf(parts, in.Name != "", "name “"+strings.TrimSpace(in.Name)+"”")
	first := strings.TrimSpace(in.FirstName.Value)
	parts = appendIf(parts, in.FirstName.Set && first == "", "first name cleared")
	parts = appendIf(parts, first != "", "first name “"+first+"”")
	return fmt.Sprintf("Change “%s”: %s.", p.Name, strings.Join(parts, ", ")), nil
}))

// RemovePersonInput is hub_remove_person's input.
type RemovePersonInput struct {
	ID string `json:"id" jsonschema:"minLength=1" jsonschema_description:"The person's id, from hub_list_people."`
}

// RemovePerson is hub_remove_person: takes a person out of the space (they
// keep their other spaces) through the same service call as DELETE
// /api/spaces/:spaceId/people/:id.
var RemovePerson = Define(Spec{
	Name: "hub_remove_person", Area: "people", IsWrite: true, Risk: RiskHigh, Undoable: true, AlwaysHold: true, OwnersOnly: true,
	Description: "Remove a person from this space by id (from hub_list_people): they lose access to it and keep their other spaces. The last owner cannot be removed. Always waits for the person's Apply.",
}, func(ctx context.Context, env Env, in RemovePersonInput) (Result, error) {
	p, err := env.Workspace.RemovePerson(ctx, env.Actor, env.SpaceID, in.ID)
	if err != nil {
		return Result{}, rooted(err, "", "/id", workspace.KindPerson)
	}
	return personResult(fmt.Sprintf("Removed %s from this space.", ListTitles([]Titled{{Title: p.Name}})), p), nil
}, Preview(func(ctx context.Context, env Env, in RemovePersonInput) (string, error) {
	p, err := env.Workspace.GetSpacePerson(ctx, env.Actor, env.SpaceID, in.ID)
	if err != nil {
		return "", rooted(err, "", "/id", workspace.KindPerson)
	}
	return fmt.Sprintf("Remove “%s” (%s) from this space: they lose access to it.", p.Name, p.Role), nil
}))
