package tools

import (
	"context"
	"fmt"
	"strings"

	"hub/workspace"
)

// ProjectData is a project as tool results carry it.
type ProjectData struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Status      string `json:"status"`
	Description string `json:"description,omitempty"`
	Revision    int    `json:"revision"`
}

func toProjectData(p workspace.Project) ProjectData {
	return ProjectData{ID: p.ID, Name: p.Name, Status: p.Status, Description: p.Description, Revision: p.Revision}
}

// projectRef names a project to people as workspace.ResolveRef does: its name,
// with its status as detail.
func projectRef(p workspace.Project) workspace.Ref {
	return workspace.Ref{Kind: workspace.KindProject, ID: p.ID, Label: p.Name, Detail: p.Status}
}

// ListProjectsInput filters hub_list_projects.
type ListProjectsInput struct {
	Status string `json:"status,omitempty" jsonschema:"enum=active,enum=paused,enum=done" jsonschema_description:"Only projects with this status."`
	Query  string `json:"query,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Words the name contains."`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200" jsonschema_description:"How many projects to return (default 50)."`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"How many matching projects to skip, to page on."`
}

// ListProjects is hub_list_projects: the space's projects with filters and
// paging.
var ListProjects = Define(Spec{
	Name: "hub_list_projects", Area: "projects",
	Description: "List this space's projects by name, with their ids, status, description and revision. Filter by status or name words; page with limit and offset. Use it to find the projectId task tools and hub_update_project need.",
}, func(ctx context.Context, env Env, in ListProjectsInput) (Result, error) {
	page, err := env.Workspace.ListProjects(ctx, env.Actor, env.SpaceID, workspace.ProjectFilter(in))
	if err != nil {
		return Result{}, err
	}
	projects, titled, refs := records(page.Projects, toProjectData, func(p workspace.Project) Titled { return Titled{Title: p.Name} }, projectRef)
	data := struct {
		Projects []ProjectData `json:"projects"`
		listPage
	}{projects, newListPage("hub_list_projects", "projects", page.Total, in.Offset, page.NextOffset)}
	return Result{Summary: pageSummary(int(page.Total), in.Offset, titled, "project", "projects"), Data: data, Refs: refs}, nil
})

// CreateProjectInput is hub_create_project's input.
type CreateProjectInput struct {
	Name        string `json:"name" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"The project's name."`
	Status      string `json:"status,omitempty" jsonschema:"enum=active,enum=paused,enum=done" jsonschema_description:"Defaults to active."`
	Description string `json:"description,omitempty" jsonschema:"maxLength=5000" jsonschema_description:"What the project is for, a few lines."`
}

// CreateProject is hub_create_project: adds one project through the same
// service call as POST /api/spaces/:spaceId/projects.
var CreateProject = Define(Spec{
	Name: "hub_create_project", Area: "projects", IsWrite: true, Risk: RiskLow, Undoable: true,
	Description: "Add a project to this space. Check hub_list_projects first when a project of that name may already exist.",
}, func(ctx context.Context, env Env, in CreateProjectInput) (Result, error) {
	p, err := env.Workspace.CreateProject(ctx, env.Actor, env.SpaceID, workspace.NewProject(in))
	if err != nil {
		return Result{}, err
	}
	return projectResult("Added", p), nil
})

// projectResult is the result of a write of one project: "Added 1 project: …".
func projectResult(verb string, p workspace.Project) Result {
	return Result{Summary: fmt.Sprintf("%s 1 project: %s.", verb, ListTitles([]Titled{{Title: p.Name}})),
		Data: struct {
			Project ProjectData `json:"project"`
		}{toProjectData(p)},
		Refs: []workspace.Ref{projectRef(p)}}
}

// UpdateProjectInput is hub_update_project's input.
type UpdateProjectInput struct {
	ID          string    `json:"id" jsonschema:"minLength=1" jsonschema_description:"The project's id, from hub_list_projects."`
	Revision    int       `json:"revision,omitempty" jsonschema:"minimum=1" jsonschema_description:"The project's revision as you read it. If the project changed since, the update fails as stale instead of overwriting newer work."`
	Name        string    `json:"name,omitempty" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"A new name."`
	Status      string    `json:"status,omitempty" jsonschema:"enum=active,enum=paused,enum=done"`
	Description Clearable `json:"description,omitzero" jsonschema_description:"A new description, replacing the old one whole; null or \"\" removes it."`
}

func (in UpdateProjectInput) patch() workspace.ProjectPatch {
	return workspace.ProjectPatch{Name: nonZero(in.Name), Status: nonZero(in.Status), Description: in.Description.patch(), Revision: nonZero(in.Revision)}
}

func (in UpdateProjectInput) checkChange() error {
	if in.Name == "" && in.Status == "" && !in.Description.Set {
		return &workspace.InvalidError{Path: "", Message: "say what to change: name, status or description"}
	}
	return nil
}

// UpdateProject is hub_update_project: changes a project through the same
// service call as PATCH /api/spaces/:spaceId/projects/:id.
var UpdateProject = Define(Spec{
	Name: "hub_update_project", Area: "projects", IsWrite: true, Risk: RiskLow, Undoable: true,
	Description: "Change a project by id (id and revision from hub_list_projects): name, status, description. Only the fields given change; null or \"\" clears the description. Give the revision you read, so a project someone changed since fails as stale instead of being overwritten.",
}, func(ctx context.Context, env Env, in UpdateProjectInput) (Result, error) {
	if err := in.checkChange(); err != nil {
		return Result{}, err
	}
	p, err := env.Workspace.UpdateProject(ctx, env.Actor, env.SpaceID, in.ID, in.patch())
	if err != nil {
		return Result{}, rooted(err, "", "/id", workspace.KindProject)
	}
	return projectResult("Updated", p), nil
}, Preview(func(ctx context.Context, env Env, in UpdateProjectInput) (string, error) {
	if err := in.checkChange(); err != nil {
		return "", err
	}
	p, err := env.Workspace.GetProject(ctx, env.Actor, env.SpaceID, in.ID)
	if err != nil {
		return "", rooted(err, "", "/id", workspace.KindProject)
	}
	parts := appendIf(nil, in.Name != "", "name “"+strings.TrimSpace(in.Name)+"”")
	parts = appendIf(parts, in.Status != "", "status "+in.Status)
	parts = appendIf(parts, in.Description.Set && in.Description.Value == "", "description cleared")
	parts = appendIf(parts, in.Description.Value != "", "new description")
	return fmt.Sprintf("Update project “%s”: %s.", p.Name, strings.Join(parts, ", ")), nil
}))

// containsWords tells whether text contains every word of query, ignoring
// case, as hub_list_tasks' query does.
func containsWords(text, query string) bool {
	lower := strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(lower, w) {
			return false
		}
	}
	return true
}

// pageOf cuts one page out of a list read whole: limit 0 means
// workspace.DefaultListLimit; next is 0 when nothing follows.
func pageOf[T any](items []T, limit, offset int) (page []T, next int) {
	if limit <= 0 {
		limit = workspace.DefaultListLimit
	}
	if offset >= len(items) {
		return nil, 0
	}
	end := min(offset+limit, len(items))
	if end < len(items) {
		next = end
	}
	return items[offset:end], next
}
