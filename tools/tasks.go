package tools

import (
	"context"
	"fmt"

	"hub/hub"
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

func toTaskData(t hub.Task) TaskData {
	return TaskData{ID: t.ID, Title: t.Title, Status: t.Status, DueDate: t.DueDate, Priority: t.Priority,
		ProjectID: t.ProjectID, AssigneeID: t.AssigneeID, Revision: t.Revision}
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
	Description: "List tasks in this space, oldest first, with their ids, status, due date, priority, project and assignee. Filter by status, project, assignee or title words; page with limit and offset.",
}, func(ctx context.Context, env Env, in ListTasksInput) (Result, error) {
	page, err := env.Hub.ListTasks(ctx, env.Actor, env.SpaceID, hub.TaskFilter{Status: in.Status, ProjectID: in.ProjectID,
		AssigneeID: in.AssigneeID, Query: in.Query, Limit: in.Limit, Offset: in.Offset})
	if err != nil {
		return Result{}, err
	}
	data := struct {
		Tasks      []TaskData `json:"tasks"`
		Total      int64      `json:"total"`
		Offset     int        `json:"offset"`
		NextOffset int        `json:"nextOffset,omitempty"`
	}{Tasks: []TaskData{}, Total: page.Total, Offset: in.Offset, NextOffset: page.NextOffset}
	titled := make([]Titled, len(page.Tasks))
	refs := make([]hub.Ref, len(page.Tasks))
	for i, t := range page.Tasks {
		data.Tasks = append(data.Tasks, toTaskData(t))
		titled[i] = Titled{Title: t.Title, DueDate: t.DueDate}
		refs[i] = hub.TaskRef(t)
	}
	summary := "No tasks match."
	if len(page.Tasks) > 0 {
		summary = fmt.Sprintf("Found %d %s: %s.", page.Total, Plural(int(page.Total), "task", "tasks"), ListTitles(titled))
	}
	return Result{Summary: summary, Data: data, Refs: refs}, nil
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
	news := make([]hub.NewTask, len(in.Tasks))
	for i, t := range in.Tasks {
		news[i] = hub.NewTask{Title: t.Title, Status: t.Status, DueDate: t.DueDate, Priority: t.Priority,
			ProjectID: t.ProjectID, AssigneeID: t.AssigneeID}
	}
	created, err := env.Hub.CreateTasks(ctx, env.Actor, env.SpaceID, "/tasks", news)
	if err != nil {
		return Result{}, err
	}
	data := struct {
		Tasks []TaskData `json:"tasks"`
	}{}
	titled := make([]Titled, len(created))
	refs := make([]hub.Ref, len(created))
	for i, t := range created {
		data.Tasks = append(data.Tasks, toTaskData(t))
		titled[i] = Titled{Title: t.Title, DueDate: t.DueDate}
		refs[i] = hub.TaskRef(t)
	}
	summary := fmt.Sprintf("Added %d %s: %s.", len(created), Plural(len(created), "task", "tasks"), ListTitles(titled))
	return Result{Summary: summary, Data: data, Refs: refs}, nil
})

// Hub returns the registry of every Hub tool.
func Hub() *Registry { return NewRegistry(ListTasks, CreateTasks) }
