package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	invopop "github.com/invopop/jsonschema"

	"hub/workspace"
)

// TaskData is a task as tool results carry it.
type TaskData struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Status     string `json:"status"`
	DueDate    string `json:"dueDate,omitempty"`
	Priority   string `json:"priority"`
	ProjectID  string `json:"projectId,omitempty"`
	AssigneeID string `json:"assigneeId,omitempty"`
	Revision   int    `json:"revision"`
}

func toTaskData(t workspace.Task) TaskData {
	return TaskData{ID: t.ID, Title: t.Title, Status: t.Status, DueDate: t.DueDate, Priority: t.Priority,
		ProjectID: t.ProjectID, AssigneeID: t.AssigneeID, Revision: t.Revision}
}

// taskTitled names a task in a summary: its title, told apart from a
// namesake by its due date.
func taskTitled(t workspace.Task) Titled { return Titled{Title: t.Title, DueDate: t.DueDate} }

// taskRecords are tasks as a result carries them.
func taskRecords(ts []workspace.Task) ([]TaskData, []Titled, []workspace.Ref) {
	return records(ts, toTaskData, taskTitled, workspace.TaskRef)
}

// ListTasksInput filters hub_list_tasks.
type ListTasksInput struct {
	Status     string `json:"status,omitempty" jsonschema:"enum=todo,enum=doing,enum=done" jsonschema_description:"Only tasks with this status."`
	ProjectID  string `json:"projectId,omitempty" jsonschema_description:"Only tasks of this project (id from hub_list_projects)."`
	AssigneeID string `json:"assigneeId,omitempty" jsonschema_description:"Only tasks assigned to this person (id from hub_list_people)."`
	Query      string `json:"query,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Words the title contains."`
	Limit      int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200" jsonschema_description:"How many tasks to return (default 50)."`
	Offset     int    `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"How many matching tasks to skip, to page on."`
}

// ListTasks is hub_list_tasks: the space's tasks with filters and paging.
var ListTasks = Define(Spec{
	Name: "hub_list_tasks", Area: "tasks",
	Description: "List tasks in this space, oldest first, with their ids, status, due date, priority, project, assignee and revision. Filter by status, project, assignee or title words; page with limit and offset. Use it to find the ids hub_update_tasks and hub_delete_tasks need.",
}, func(ctx context.Context, env Env, in ListTasksInput) (Result, error) {
	page, err := env.Workspace.ListTasks(ctx, env.Actor, env.SpaceID, workspace.TaskFilter(in))
	if err != nil {
		return Result{}, err
	}
	tasks, titled, refs := taskRecords(page.Tasks)
	data := struct {
		Tasks []TaskData `json:"tasks"`
		listPage
	}{tasks, newListPage("hub_list_tasks", "tasks", page.Total, in.Offset, page.NextOffset)}
	return Result{Summary: pageSummary(int(page.Total), in.Offset, titled, "task", "tasks"), Data: data, Refs: refs}, nil
})

// NewTaskInput is one task hub_create_tasks adds.
type NewTaskInput struct {
	Title      string `json:"title" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"The task's title, a short line."`
	Status     string `json:"status,omitempty" jsonschema:"enum=todo,enum=doing,enum=done" jsonschema_description:"Defaults to todo."`
	DueDate    string `json:"dueDate,omitempty" jsonschema:"format=date" jsonschema_description:"Calendar date YYYY-MM-DD."`
	Priority   string `json:"priority,omitempty" jsonschema:"enum=none,enum=low,enum=medium,enum=high"`
	ProjectID  string `json:"projectId,omitempty" jsonschema_description:"Project id from hub_list_projects."`
	AssigneeID string `json:"assigneeId,omitempty" jsonschema_description:"Person id from hub_list_people."`
}

// CreateTasksInput is hub_create_tasks' input.
type CreateTasksInput struct {
	Tasks []NewTaskInput `json:"tasks" jsonschema:"minItems=1,maxItems=50" jsonschema_description:"The tasks to add, all at once."`
}

// CreateTasks is hub_create_tasks: adds one or more tasks, all or none.
var CreateTasks = Define(Spec{
	Name: "hub_create_tasks", Area: "tasks", IsWrite: true, Risk: RiskLow, Undoable: true,
	Description: "Add one or more tasks to this space in one call, all or none. Look up project and person ids first when the request names them.",
}, func(ctx context.Context, env Env, in CreateTasksInput) (Result, error) {
	news := make([]workspace.NewTask, len(in.Tasks))
	for i, t := range in.Tasks {
		news[i] = workspace.NewTask(t)
	}
	created, err := env.Workspace.CreateTasks(ctx, env.Actor, env.SpaceID, "/tasks", news)
	if err != nil {
		return Result{}, err
	}
	return tasksResult("Added", created), nil
})

// tasksResult is the result of a write of tasks: "Added 2 tasks: …".
func tasksResult(verb string, ts []workspace.Task) Result {
	data, titled, refs := taskRecords(ts)
	return Result{Summary: fmt.Sprintf("%s %d %s: %s.", verb, len(ts), Plural(len(ts), "task", "tasks"), ListTitles(titled)),
		Data: struct {
			Tasks []TaskData `json:"tasks"`
		}{data}, Refs: refs}
}

// Clearable is an optional field of an update that can also be cleared:
// left out, the field stays; a value sets it; null or "" clears it (models
// write "clear" both ways, the REST PATCH takes null).
type Clearable struct {
	Set   bool   // the field was in the input
	Value string // "" clears
}

// UnmarshalJSON records that the field was sent; null clears.
func (c *Clearable) UnmarshalJSON(b []byte) error {
	c.Set = true
	if string(b) == "null" {
		c.Value = ""
		return nil
	}
	return json.Unmarshal(b, &c.Value)
}

// MarshalJSON writes a clear as null, so a held input reads back as meant.
func (c Clearable) MarshalJSON() ([]byte, error) {
	if c.Value == "" {
		return []byte("null"), nil
	}
	return json.Marshal(c.Value)
}

// IsZero makes `omitzero` leave out a field that was not sent.
func (c Clearable) IsZero() bool { return !c.Set }

// JSONSchema says a Clearable is a string or null.
func (Clearable) JSONSchema() *invopop.Schema {
	return &invopop.Schema{AnyOf: []*invopop.Schema{{Type: "string"}, {Type: "null"}}}
}

// patch is the domain's form: nil leaves the field, "" clears it.
func (c Clearable) patch() *string {
	if !c.Set {
		return nil
	}
	return &c.Value
}

// TaskChange is one task hub_update_tasks changes.
type TaskChange struct {
	ID         string    `json:"id" jsonschema:"minLength=1" jsonschema_description:"The task's id, from hub_list_tasks."`
	Revision   int       `json:"revision,omitempty" jsonschema:"minimum=1" jsonschema_description:"The task's revision as you read it. If the task changed since, the update fails as stale instead of overwriting newer work."`
	Title      string    `json:"title,omitempty" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"A new title."`
	Status     string    `json:"status,omitempty" jsonschema:"enum=todo,enum=doing,enum=done"`
	DueDate    Clearable `json:"dueDate,omitzero" jsonschema_description:"Calendar date YYYY-MM-DD; null or \"\" removes the due date."`
	Priority   string    `json:"priority,omitempty" jsonschema:"enum=none,enum=low,enum=medium,enum=high"`
	ProjectID  Clearable `json:"projectId,omitzero" jsonschema_description:"Project id from hub_list_projects; null or \"\" takes the task out of its project."`
	AssigneeID Clearable `json:"assigneeId,omitzero" jsonschema_description:"Person id from hub_list_people; null or \"\" unassigns the task."`
}

func (c TaskChange) patch() workspace.TaskPatch {
	return workspace.TaskPatch{Title: nonZero(c.Title), Status: nonZero(c.Status), Priority: nonZero(c.Priority),
		DueDate: c.DueDate.patch(), ProjectID: c.ProjectID.patch(), AssigneeID: c.AssigneeID.patch(), Revision: nonZero(c.Revision)}
}

func (c TaskChange) changesNothing() bool {
	return c.Title == "" && c.Status == "" && c.Priority == "" && !c.DueDate.Set && !c.ProjectID.Set && !c.AssigneeID.Set
}

// UpdateTasksInput is hub_update_tasks' input.
type UpdateTasksInput struct {
	Tasks []TaskChange `json:"tasks" jsonschema:"minItems=1,maxItems=50" jsonschema_description:"One entry per task to change; each entry changes only the fields it gives."`
}

// checkChanges refuses a change that changes nothing and a task named twice
// (its second entry would fail as stale against the first, or silently
// undo it).
func (in UpdateTasksInput) checkChanges() error {
	first := map[string]int{}
	for i, c := range in.Tasks {
		if c.changesNothing() {
			return &workspace.InvalidError{Path: fmt.Sprintf("/tasks/%d", i), Message: "say what to change: title, status, dueDate, priority, projectId or assigneeId"}
		}
		if j, dup := first[c.ID]; dup {
			return &workspace.InvalidError{Path: fmt.Sprintf("/tasks/%d/id", i), Message: fmt.Sprintf("this task is already changed at /tasks/%d; put every change of one task in one entry", j)}
		}
		first[c.ID] = i
	}
	return nil
}

// UpdateTasks is hub_update_tasks: changes tasks by id through the same
// service call as PATCH /api/spaces/:spaceId/tasks/:id, all or none.
var UpdateTasks = Define(Spec{
	Name: "hub_update_tasks", Area: "tasks", IsWrite: true, Risk: RiskLow, Undoable: true,
	Description: "Change one or more tasks by id (ids and revisions from hub_list_tasks): title, status, due date, priority, project, assignee. Only the fields given change; null or \"\" clears dueDate, projectId or assigneeId. Give the revision you read, so a task someone changed since fails as stale instead of being overwritten. All or none.",
}, func(ctx context.Context, env Env, in UpdateTasksInput) (Result, error) {
	if err := in.checkChanges(); err != nil {
		return Result{}, err
	}
	updated, err := eachTask(ctx, env, "tasks", "/id", in.Tasks, func(ctx context.Context, c TaskChange) (workspace.Task, error) {
		return env.Workspace.UpdateTask(ctx, env.Actor, env.SpaceID, c.ID, c.patch())
	})
	if err != nil {
		return Result{}, err
	}
	return tasksResult("Updated", updated), nil
}, Preview(previewTaskChanges))

// eachTask writes one task per entry of the input's list field, all or
// none in one transaction; an entry's error points at its place in the
// input (self: the field naming the task itself).
func eachTask[E any](ctx context.Context, env Env, field, self string, entries []E, write func(context.Context, E) (workspace.Task, error)) ([]workspace.Task, error) {
	done := make([]workspace.Task, 0, len(entries))
	err := env.Workspace.InTx(ctx, func(ctx context.Context) error {
		for i, e := range entries {
			t, err := write(ctx, e)
			if err != nil {
				return rooted(err, fmt.Sprintf("/%s/%d", field, i), self, workspace.KindTask)
			}
			done = append(done, t)
		}
		return nil
	})
	return done, err
}

// previewTaskChanges names each task by its current title and says what
// changes, with project and person names instead of ids.
func previewTaskChanges(ctx context.Context, env Env, in UpdateTasksInput) (string, error) {
	if err := in.checkChanges(); err != nil {
		return "", err
	}
	people := sync.OnceValues(func() ([]workspace.Person, error) {
		return env.Workspace.ListPeople(ctx, env.Actor.PersonID, env.SpaceID)
	})
	personName := func(id string) (string, error) {
		list, err := people()
		if err != nil {
			return "", err
		}
		if i := slices.IndexFunc(list, func(p workspace.Person) bool { return p.ID == id }); i >= 0 {
			return list[i].Name, nil
		}
		return "", &workspace.NotFoundError{Kind: workspace.KindPerson, ID: id, Path: "/assigneeId"}
	}
	projectName := func(id string) (string, error) {
		p, err := env.Workspace.GetProject(ctx, env.Actor, env.SpaceID, id)
		return "“" + p.Name + "”", err
	}
	phrases := make([]string, len(in.Tasks))
	for i, c := range in.Tasks {
		at := fmt.Sprintf("/tasks/%d", i)
		t, err := env.Workspace.GetTask(ctx, env.Actor, env.SpaceID, c.ID)
		if err != nil {
			return "", rooted(err, at, "/id", workspace.KindTask)
		}
		project, err := nameOf(c.ProjectID, projectName)
		if err != nil {
			return "", rooted(err, at, "/projectId", workspace.KindProject)
		}
		assignee, err := nameOf(c.AssigneeID, personName)
		if err != nil {
			return "", rooted(err, at, "/assigneeId", workspace.KindPerson)
		}
		parts := appendIf(nil, c.Title != "", "title “"+strings.TrimSpace(c.Title)+"”")
		parts = appendIf(parts, c.Status != "", "status "+c.Status)
		parts = appendIf(parts, c.DueDate.Set, setOrCleared("due date", c.DueDate.Value))
		parts = appendIf(parts, c.Priority != "", "priority "+c.Priority)
		parts = appendIf(parts, c.ProjectID.Set, setOrCleared("project", project))
		parts = appendIf(parts, c.AssigneeID.Set, setOrCleared("assignee", assignee))
		phrases[i] = "“" + t.Title + "” (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("Update %d %s: %s.", len(in.Tasks), Plural(len(in.Tasks), "task", "tasks"), joinNames(phrases)), nil
}

// nameOf names the record a change sets; "" when it clears or keeps it.
func nameOf(c Clearable, name func(id string) (string, error)) (string, error) {
	if c.Value == "" {
		return "", nil
	}
	return name(c.Value)
}

func setOrCleared(field, value string) string {
	if value == "" {
		return field + " cleared"
	}
	return field + " " + value
}

// appendIf appends a preview's phrase for a field the change gives.
func appendIf(parts []string, given bool, phrase string) []string {
	if given {
		return append(parts, phrase)
	}
	return parts
}

// maxDeleteTasks bounds one delete call: what a person can check in one
// preview and one Apply transaction removes (one page of a task list).
const maxDeleteTasks = workspace.MaxListLimit

// maxDeletedListed bounds the tasks a delete's data lists (docs/decisions.md,
// "Tool input conventions"): the rest are counted, so a big delete's result
// is not cut like a page the model should read on.
const maxDeletedListed = 50

// DeleteTasksInput is hub_delete_tasks' input: ids, or all with filters.
// Prepare turns all into ids, so the input Apply runs has ids only.
type DeleteTasksInput struct {
	IDs        []string `json:"ids,omitempty" jsonschema:"minItems=1,maxItems=200" jsonschema_description:"The complete list of tasks to delete, by id from hub_list_tasks: exactly these are deleted."`
	All        bool     `json:"all,omitempty" jsonschema_description:"Delete every task matching the filters below instead of listing ids (at most 200). Without filters, every task in the space."`
	Status     string   `json:"status,omitempty" jsonschema:"enum=todo,enum=doing,enum=done" jsonschema_description:"With all: only tasks with this status."`
	ProjectID  string   `json:"projectId,omitempty" jsonschema_description:"With all: only tasks of this project (id from hub_list_projects)."`
	AssigneeID string   `json:"assigneeId,omitempty" jsonschema_description:"With all: only tasks assigned to this person (id from hub_list_people)."`
	Query      string   `json:"query,omitempty" jsonschema:"maxLength=200" jsonschema_description:"With all: only tasks whose title contains these words."`
}

func (in DeleteTasksInput) hasFilters() bool {
	return in.Status != "" || in.ProjectID != "" || in.AssigneeID != "" || in.Query != ""
}

// prepareDelete fixes the exact tasks a call deletes: "all matching" becomes
// the ids that match now, so a held call's Apply deletes what was previewed.
// Repeated ids are dropped.
func prepareDelete(ctx context.Context, env Env, in DeleteTasksInput) (DeleteTasksInput, error) {
	switch {
	case in.All && len(in.IDs) > 0:
		return in, &workspace.InvalidError{Path: "/all", Message: "give either ids or all with filters, not both"}
	case !in.All && len(in.IDs) == 0:
		return in, &workspace.InvalidError{Path: "/ids", Message: "name the tasks to delete by ids, or set all (with filters) to delete every matching task"}
	case !in.All && in.hasFilters():
		return in, &workspace.InvalidError{Path: "/all", Message: "filters choose tasks only with all: true; to delete listed tasks give only their ids"}
	}
	if !in.All {
		seen := map[string]bool{}
		ids := slices.DeleteFunc(slices.Clone(in.IDs), func(id string) bool {
			dup := seen[id]
			seen[id] = true
			return dup
		})
		return DeleteTasksInput{IDs: ids}, nil
	}
	f := workspace.TaskFilter{Status: in.Status, ProjectID: in.ProjectID, AssigneeID: in.AssigneeID, Query: in.Query, Limit: workspace.MaxListLimit}
	var ids []string
	for {
		page, err := env.Workspace.ListTasks(ctx, env.Actor, env.SpaceID, f)
		if err != nil {
			return in, err
		}
		for _, t := range page.Tasks {
			ids = append(ids, t.ID)
		}
		if page.Total > maxDeleteTasks || len(ids) > maxDeleteTasks {
			return in, Errorf(CodeRefused, "%d tasks match; one call deletes at most %d. Narrow the filters, or delete them in parts by ids from hub_list_tasks", max(page.Total, int64(len(ids))), maxDeleteTasks)
		}
		// Each page moves on (NextOffset grows) and the count is capped
		// above, so this reads at most two pages.
		if page.NextOffset == 0 {
			break
		}
		f.Offset = page.NextOffset
	}
	if len(ids) == 0 {
		return in, Errorf(CodeNotFound, "no task matches these filters; nothing to delete")
	}
	return DeleteTasksInput{IDs: ids}, nil
}

// previewDelete names the tasks a held delete removes, by title.
func previewDelete(ctx context.Context, env Env, in DeleteTasksInput) (string, error) {
	titled := make([]Titled, len(in.IDs))
	for i, id := range in.IDs {
		t, err := env.Workspace.GetTask(ctx, env.Actor, env.SpaceID, id)
		if err != nil {
			return "", rooted(err, fmt.Sprintf("/ids/%d", i), "", workspace.KindTask)
		}
		titled[i] = taskTitled(t)
	}
	return fmt.Sprintf("Delete %d %s: %s.", len(titled), Plural(len(titled), "task", "tasks"), ListTitles(titled)), nil
}

// DeleteTasks is hub_delete_tasks: deletes tasks by id, all or none, through
// the same service call as DELETE /api/spaces/:spaceId/tasks/:id.
var DeleteTasks = Define(Spec{
	Name: "hub_delete_tasks", Area: "tasks", IsWrite: true, Risk: RiskMedium, Undoable: true,
	Description: "Delete tasks, all or none: by ids (from hub_list_tasks), or with all: true and the same filters as hub_list_tasks (status, projectId, assigneeId, query) to delete every matching task, at most 200.",
}, func(ctx context.Context, env Env, in DeleteTasksInput) (Result, error) {
	if in.All || len(in.IDs) == 0 { // an input that skipped Prepare
		return Result{}, &workspace.InvalidError{Path: "/ids", Message: "name the tasks to delete by ids"}
	}
	deleted, err := eachTask(ctx, env, "ids", "", in.IDs, func(ctx context.Context, id string) (workspace.Task, error) {
		return env.Workspace.DeleteTask(ctx, env.Actor, env.SpaceID, id)
	})
	if err != nil {
		return Result{}, err
	}
	type gone struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	data := struct {
		Count   int    `json:"count"`
		Deleted []gone `json:"deleted"`
		More    string `json:"more,omitempty"`
	}{Count: len(deleted)}
	for _, t := range deleted[:min(len(deleted), maxDeletedListed)] {
		data.Deleted = append(data.Deleted, gone{ID: t.ID, Title: t.Title})
	}
	if n := len(deleted) - maxDeletedListed; n > 0 {
		data.More = fmt.Sprintf("and %d more deleted tasks, not listed", n)
	}
	res := tasksResult("Deleted", deleted)
	res.Data = data // the tasks' ids and titles, at most maxDeletedListed
	return res, nil
}, Prepare(prepareDelete), Preview(previewDelete))

// rooted re-roots a domain error at the place in the tool's input it comes
// from: "/dueDate" of entry 1 becomes "/tasks/1/dueDate", the entry's own
// record not found points at at+self, a stale revision at its revision.
func rooted(err error, at, self, kind string) error {
	var inv *workspace.InvalidError
	if errors.As(err, &inv) {
		return &workspace.InvalidError{Path: at + inv.Path, Message: inv.Message}
	}
	var nf *workspace.NotFoundError
	if errors.As(err, &nf) && nf.Kind != "space" {
		path := at + nf.Path
		if nf.Path == "" && nf.Kind == kind {
			path = at + self
		}
		return &workspace.NotFoundError{Kind: nf.Kind, ID: nf.ID, Path: path}
	}
	if errors.Is(err, workspace.ErrStale) {
		return &Error{Code: CodeStale, Message: err.Error(), Path: at + "/revision"}
	}
	return err
}

// nonZero is a patch's field: nil (left as it is) for the zero value.
func nonZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
