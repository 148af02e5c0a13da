package workspace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/storage"
)

// Task limits and values.
const (
	MaxTitleLength   = 500 // characters; a title is a line, not a document
	MaxTasksPerCall  = 50  // tasks one create call may add
	DefaultListLimit = 50
	MaxListLimit     = 200
)

// Task statuses and priorities: the values a task's status and priority
// may take. A new task is todo with priority none unless it says otherwise.
const (
	TaskTodo  = "todo"
	TaskDoing = "doing"
	TaskDone  = "done"

	PriorityNone   = "none"
	PriorityLow    = "low"
	PriorityMedium = "medium"
	PriorityHigh   = "high"
)

// TaskStatuses and Priorities list them, in the order errors name them.
var (
	TaskStatuses = []string{TaskTodo, TaskDoing, TaskDone}
	Priorities   = []string{PriorityNone, PriorityLow, PriorityMedium, PriorityHigh}
)

// Task is a to-do as the domain sees it.
type Task struct {
	ID         string
	SpaceID    string
	Title      string
	Status     string
	DueDate    string // "YYYY-MM-DD" or ""
	Priority   string
	ProjectID  string
	AssigneeID string
	Revision   int
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// NewTask is what a create call sends; empty fields take their defaults.
type NewTask struct {
	Title      string
	Status     string
	DueDate    string
	Priority   string
	ProjectID  string
	AssigneeID string
}

// TaskPatch changes the fields that are set; "" clears an optional one.
// Revision, when set, must be the current one, else ErrStale.
type TaskPatch struct {
	Title      *string
	Status     *string
	DueDate    *string
	Priority   *string
	ProjectID  *string
	AssigneeID *string
	Revision   *int
}

// empty tells a patch that names no field to change (recordKind.update).
func (p TaskPatch) empty() bool {
	return p.Title == nil && p.Status == nil && p.DueDate == nil && p.Priority == nil && p.ProjectID == nil && p.AssigneeID == nil
}

// TaskFilter narrows a task list. Limit 0 means DefaultListLimit.
type TaskFilter struct {
	Status     string
	ProjectID  string
	AssigneeID string
	Query      string // words the title contains, case-insensitive
	Limit      int
	Offset     int
}

// TaskPage is one page of a task list; Total counts every match.
type TaskPage struct {
	Tasks      []Task
	Total      int64
	NextOffset int // 0 when there is nothing more
}

func toTask(r storage.Task) Task {
	return Task{ID: r.ID, SpaceID: r.SpaceID, Title: r.Title, Status: r.Status, DueDate: deref(r.DueDate), Priority: r.Priority,
		ProjectID: deref(r.ProjectID), AssigneeID: deref(r.AssigneeID), Revision: r.Revision, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// ListTasks returns a page of the space's tasks, oldest first.
func (s *Service) ListTasks(ctx context.Context, actor Actor, spaceID string, f TaskFilter) (TaskPage, error) {
	tasks, total, next, err := taskRecords.list(ctx, s, actor, spaceID, f.Status, f.Query, f.Limit, f.Offset,
		[2]string{"project_id", f.ProjectID}, [2]string{"assignee_id", f.AssigneeID})
	if err != nil {
		return TaskPage{}, err
	}
	return TaskPage{Total: total, Tasks: tasks, NextOffset: next}, nil
}

// GetTask returns one task of the space.
func (s *Service) GetTask(ctx context.Context, actor Actor, spaceID, id string) (Task, error) {
	return taskRecords.get(ctx, s, actor, spaceID, id)
}

// CreateTasks adds tasks to a space, all or none. pathPrefix is the list's
// JSON pointer in the input ("/tasks"), for errors ("/tasks/1/dueDate").
func (s *Service) CreateTasks(ctx context.Context, actor Actor, spaceID, pathPrefix string, in []NewTask) ([]Task, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, invalid(pathPrefix, "at least one task is required")
	}
	if len(in) > MaxTasksPerCall {
		return nil, invalid(pathPrefix, "at most %d tasks at once", MaxTasksPerCall)
	}
	rows := make([]storage.Task, len(in))
	now := s.now()
	found := refsFound{}
	for i, t := range in {
		p := fmt.Sprintf("%s/%d", pathPrefix, i)
		// A microsecond apart (the finest time both engines keep), the tasks
		// of one call list in the order given, not by their random ids.
		r := storage.Task{ID: storage.NewID("task"), SpaceID: spaceID, Status: TaskTodo, Priority: PriorityNone, Revision: 1,
			CreatedBy: actor.PersonID, CreatedAt: now.Add(time.Duration(i) * time.Microsecond)}
		patch := TaskPatch{Title: &t.Title, Status: nonEmpty(t.Status), DueDate: nonEmpty(t.DueDate),
			Priority: nonEmpty(t.Priority), ProjectID: nonEmpty(t.ProjectID), AssigneeID: nonEmpty(t.AssigneeID)}
		if err := s.applyPatch(ctx, spaceID, p, &r, patch, found); err != nil {
			return nil, err
		}
		rows[i] = r
	}
	return taskRecords.create(ctx, s, actor, spaceID, rows)
}

// UpdateTask changes a task's fields; see TaskPatch for stale revisions.
func (s *Service) UpdateTask(ctx context.Context, actor Actor, spaceID, id string, patch TaskPatch) (Task, error) {
	return taskRecords.update(ctx, s, actor, spaceID, id, patch.empty(),
		"nothing to change: give title, status, dueDate, priority, projectId or assigneeId", patch.Revision,
		func(r *storage.Task) error { return s.applyPatch(ctx, spaceID, "", r, patch, refsFound{}) })
}

// DeleteTask removes a task.
func (s *Service) DeleteTask(ctx context.Context, actor Actor, spaceID, id string) (Task, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return Task{}, err
	}
	if BadText(id) {
		return Task{}, &NotFoundError{Kind: "task", ID: id}
	}
	var r storage.Task
	err := s.InTx(ctx, func(ctx context.Context) error {
		// One statement (RETURNING) finds and deletes the task: the row
		// returned is the task as it was deleted, what Undo must keep.
		var gone []storage.Task
		err := s.q(ctx).Clauses(clause.Returning{}).Where("space_id = ? AND id = ?", spaceID, id).Delete(&gone).Error
		if err != nil {
			return fmt.Errorf("delete task %s: %w", id, err)
		}
		if len(gone) == 0 {
			return &NotFoundError{Kind: "task", ID: id}
		}
		r = gone[0]
		return s.recordChange(ctx, actor, spaceID, taskState(r), nil)
	})
	if err != nil {
		return Task{}, err
	}
	return toTask(r), nil
}

// refsFound holds the project and person ids one call has already found in
// the space ("project "+id, "person "+id): a create of many tasks in one
// project reads it once, not once a task.
type refsFound map[string]bool

// applyPatch validates the set fields and copies them onto the row. Ids are
// resolved in the space (found remembers them for the call's next patch).
func (s *Service) applyPatch(ctx context.Context, spaceID, path string, r *storage.Task, p TaskPatch, found refsFound) error {
	var err error
	if p.Title != nil {
		if r.Title, err = requiredLine(path+"/title", "a title", "a title is required", *p.Title, MaxTitleLength); err != nil {
			return err
		}
	}
	if p.Status != nil {
		if !slices.Contains(TaskStatuses, *p.Status) {
			return invalid(path+"/status", "status must be one of %s", strings.Join(TaskStatuses, ", "))
		}
		r.Status = *p.Status
	}
	if p.Priority != nil {
		if !slices.Contains(Priorities, *p.Priority) {
			return invalid(path+"/priority", "priority must be one of %s", strings.Join(Priorities, ", "))
		}
		r.Priority = *p.Priority
	}
	if p.DueDate != nil {
		if _, err := time.Parse(time.DateOnly, *p.DueDate); *p.DueDate != "" && err != nil {
			return invalid(path+"/dueDate", "a due date is a calendar date like 2026-03-31, not %q", *p.DueDate)
		}
		r.DueDate = nonEmpty(*p.DueDate)
	}
	if p.ProjectID != nil {
		if err = s.refExists(ctx, found, "project", *p.ProjectID, path+"/projectId",
			s.q(ctx).Model(&storage.Project{}).Where("space_id = ? AND id = ?", spaceID, *p.ProjectID)); err != nil {
			return err
		}
		r.ProjectID = nonEmpty(*p.ProjectID)
	}
	if p.AssigneeID != nil {
		if err = s.refExists(ctx, found, "person", *p.AssigneeID, path+"/assigneeId",
			s.q(ctx).Model(&storage.Membership{}).Where("space_id = ? AND person_id = ?", spaceID, *p.AssigneeID)); err != nil {
			return err
		}
		r.AssigneeID = nonEmpty(*p.AssigneeID)
	}
	r.UpdatedAt = s.now()
	return nil
}

// nonEmpty is a field's optional column: nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is an optional column's field: "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// refExists checks that a record a task names (kind and id, at path in the
// request; "" names none) is there, by counting what query matches; found
// remembers those already checked in this call.
func (s *Service) refExists(ctx context.Context, found map[string]bool, kind, id, path string, query *gorm.DB) error {
	if id == "" {
		return nil
	}
	if BadText(id) {
		return &NotFoundError{Kind: kind, ID: id, Path: path}
	}
	key := kind + " " + id
	if found[key] {
		return nil
	}
	var n int64
	if err := query.Count(&n).Error; err != nil {
		return fmt.Errorf("check %s: %w", kind, err)
	}
	if n == 0 {
		return &NotFoundError{Kind: kind, ID: id, Path: path}
	}
	found[key] = true
	return nil
}
