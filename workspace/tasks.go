package workspace

import (
	"context"
	"errors"
	"fmt"
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

// TaskStatuses and Priorities list them, in the order error messages name
// them.
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

// TaskPatch changes the fields that are set. An empty string clears an
// optional field (due date, project, assignee). Revision, when set, must be
// the task's current revision, or the update fails with ErrStale instead of
// overwriting newer work.
type TaskPatch struct {
	Title      *string
	Status     *string
	DueDate    *string
	Priority   *string
	ProjectID  *string
	AssigneeID *string
	Revision   *int
}

// empty tells a patch that names no field to change: refused, so that
// nothing moves the revision on without a change (an empty PATCH would make
// every other editor's next save a conflict).
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
	t := Task{ID: r.ID, SpaceID: r.SpaceID, Title: r.Title, Status: r.Status, Priority: r.Priority,
		Revision: r.Revision, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.DueDate != nil {
		t.DueDate = *r.DueDate
	}
	if r.ProjectID != nil {
		t.ProjectID = *r.ProjectID
	}
	if r.AssigneeID != nil {
		t.AssigneeID = *r.AssigneeID
	}
	return t
}

// ListTasks returns a page of the space's tasks, oldest first.
func (s *Service) ListTasks(ctx context.Context, actor Actor, spaceID string, f TaskFilter) (TaskPage, error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return TaskPage{}, err
	}
	if f.Status != "" && !oneOf(f.Status, TaskStatuses) {
		return TaskPage{}, invalid("/status", "status must be one of %s", strings.Join(TaskStatuses, ", "))
	}
	limit, err := pageLimit(f.Limit, f.Offset)
	if err != nil {
		return TaskPage{}, err
	}
	f.Limit = limit
	matching := func() *gorm.DB {
		q := s.q(ctx).Model(&storage.Task{}).Where("space_id = ?", spaceID)
		if f.Status != "" {
			q = q.Where("status = ?", f.Status)
		}
		if f.ProjectID != "" {
			q = q.Where("project_id = ?", f.ProjectID)
		}
		if f.AssigneeID != "" {
			q = q.Where("assignee_id = ?", f.AssigneeID)
		}
		// The database lowers both sides: Go's ToLower on the words alone would
		// turn "Öl" into "öl", which an engine whose LOWER knows only ASCII
		// (SQLite, Postgres in the C locale) never finds in "Öl".
		for _, w := range strings.Fields(f.Query) {
			q = q.Where(s.containsWord("title"), "%"+escapeLike(w)+"%")
		}
		return q
	}
	var rows []storage.Task
	if err := matching().Order("created_at, id").Limit(f.Limit).Offset(f.Offset).Find(&rows).Error; err != nil {
		return TaskPage{}, fmt.Errorf("list tasks: %w", err)
	}
	total, err := pageTotal(matching(), f.Offset, f.Limit, len(rows))
	if err != nil {
		return TaskPage{}, fmt.Errorf("list tasks: %w", err)
	}
	page := TaskPage{Total: total, Tasks: make([]Task, len(rows)), NextOffset: nextOffset(f.Offset, len(rows), total)}
	for i, r := range rows {
		page.Tasks[i] = toTask(r)
	}
	return page, nil
}

// GetTask returns one task of the space.
func (s *Service) GetTask(ctx context.Context, actor Actor, spaceID, id string) (Task, error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return Task{}, err
	}
	r, err := s.taskRow(ctx, spaceID, id)
	if err != nil {
		return Task{}, err
	}
	return toTask(r), nil
}

func (s *Service) taskRow(ctx context.Context, spaceID, id string) (storage.Task, error) {
	var r storage.Task
	if BadText(id) {
		return r, &NotFoundError{Kind: "task", ID: id}
	}
	err := s.q(ctx).Where("space_id = ? AND id = ?", spaceID, id).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return r, &NotFoundError{Kind: "task", ID: id}
	}
	if err != nil {
		return r, fmt.Errorf("get task %s: %w", id, err)
	}
	return r, nil
}

// CreateTasks adds tasks to a space, all or none. pathPrefix is the JSON
// pointer of the list in the caller's input ("/tasks"), so an error names the
// exact field ("/tasks/1/dueDate").
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
		// Lists are oldest first: a microsecond apart (the finest time both
		// engines keep), the tasks of one call list in the order given
		// rather than by their random ids.
		r := storage.Task{ID: storage.NewID("task"), SpaceID: spaceID, Status: TaskTodo, Priority: PriorityNone, Revision: 1,
			CreatedBy: actor.PersonID, CreatedAt: now.Add(time.Duration(i) * time.Microsecond)}
		patch := TaskPatch{Title: &t.Title, Status: nonEmpty(t.Status), DueDate: nonEmpty(t.DueDate),
			Priority: nonEmpty(t.Priority), ProjectID: nonEmpty(t.ProjectID), AssigneeID: nonEmpty(t.AssigneeID)}
		if err := s.applyPatch(ctx, spaceID, p, &r, patch, found); err != nil {
			return nil, err
		}
		rows[i] = r
	}
	err := s.InTx(ctx, func(ctx context.Context) error {
		if err := s.q(ctx).Create(&rows).Error; err != nil {
			return fmt.Errorf("create tasks: %w", err)
		}
		for _, r := range rows {
			if err := s.recordChange(ctx, actor, spaceID, nil, taskState(r)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Task, len(rows))
	for i, r := range rows {
		out[i] = toTask(r)
	}
	return out, nil
}

// UpdateTask changes a task's fields; see TaskPatch for stale revisions.
func (s *Service) UpdateTask(ctx context.Context, actor Actor, spaceID, id string, patch TaskPatch) (Task, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return Task{}, err
	}
	r, err := s.taskRow(ctx, spaceID, id)
	if err != nil {
		return Task{}, err
	}
	if patch.empty() {
		return Task{}, invalid("", "nothing to change: give title, status, dueDate, priority, projectId or assigneeId")
	}
	if err := checkRevision("task", r.Title, r.Revision, patch.Revision); err != nil {
		return Task{}, err
	}
	before := taskState(r)
	if err := s.applyPatch(ctx, spaceID, "", &r, patch, refsFound{}); err != nil {
		return Task{}, err
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		if err := s.saveRevision(ctx, "task", r.Title, r.ID, &r, &r.Revision,
			"title", "status", "due_date", "priority", "project_id", "assignee_id"); err != nil {
			return err
		}
		return s.recordChange(ctx, actor, spaceID, before, taskState(r))
	})
	if err != nil {
		return Task{}, err
	}
	return toTask(r), nil
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
		// One statement finds and deletes the task (RETURNING: Postgres,
		// SQLite since 3.35), where a read and a delete guarded by its
		// revision were two: the row returned is the task as it was
		// deleted, what the Undo entry must keep.
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
// project, or for one assignee, reads it once rather than once a task, each
// read a statement (and on Postgres a commit) of its own before the write's
// transaction.
type refsFound map[string]bool

// applyPatch validates the set fields and copies them onto the row. Every id
// is resolved in the space: an id from another space is not found. found
// remembers the ids resolved, for the next patch of the same call.
func (s *Service) applyPatch(ctx context.Context, spaceID, path string, r *storage.Task, p TaskPatch, found refsFound) error {
	if p.Title != nil {
		title, err := CheckLine(path+"/title", "a title", *p.Title, MaxTitleLength)
		if err != nil {
			return err
		}
		if title == "" {
			return invalid(path+"/title", "a title is required")
		}
		r.Title = title
	}
	if p.Status != nil {
		if !oneOf(*p.Status, TaskStatuses) {
			return invalid(path+"/status", "status must be one of %s", strings.Join(TaskStatuses, ", "))
		}
		r.Status = *p.Status
	}
	if p.Priority != nil {
		if !oneOf(*p.Priority, Priorities) {
			return invalid(path+"/priority", "priority must be one of %s", strings.Join(Priorities, ", "))
		}
		r.Priority = *p.Priority
	}
	if p.DueDate != nil {
		if *p.DueDate == "" {
			r.DueDate = nil
		} else {
			if _, err := time.Parse(time.DateOnly, *p.DueDate); err != nil {
				return invalid(path+"/dueDate", "a due date is a calendar date like 2026-03-31, not %q", *p.DueDate)
			}
			d := *p.DueDate
			r.DueDate = &d
		}
	}
	if p.ProjectID != nil {
		if *p.ProjectID == "" {
			r.ProjectID = nil
		} else {
			err := s.refExists(ctx, found, "project", *p.ProjectID, path+"/projectId",
				s.q(ctx).Model(&storage.Project{}).Where("space_id = ? AND id = ?", spaceID, *p.ProjectID))
			if err != nil {
				return err
			}
			id := *p.ProjectID
			r.ProjectID = &id
		}
	}
	if p.AssigneeID != nil {
		if *p.AssigneeID == "" {
			r.AssigneeID = nil
		} else {
			err := s.refExists(ctx, found, "person", *p.AssigneeID, path+"/assigneeId",
				s.q(ctx).Model(&storage.Membership{}).Where("space_id = ? AND person_id = ?", spaceID, *p.AssigneeID))
			if err != nil {
				return err
			}
			id := *p.AssigneeID
			r.AssigneeID = &id
		}
	}
	r.UpdatedAt = s.now()
	return nil
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// containsWord is the condition that column contains a search word (the
// argument, a LIKE pattern) in any case. On SQLite it lowers with
// storage.UnicodeLower, since SQLite's own lower() folds only ASCII; on
// Postgres lower() follows the database's locale (a UTF-8 one folds every
// letter).
func (s *Service) containsWord(column string) string {
	lower := "LOWER"
	if s.root.Dialect != storage.Postgres {
		lower = storage.UnicodeLower
	}
	return fmt.Sprintf(`%[1]s(%[2]s) LIKE %[1]s(CAST(? AS TEXT)) ESCAPE '\'`, lower, column)
}

// escapeLike makes % and _ in a search word match themselves.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// pageTotal is the total of a list whose page at offset, asked for limit
// rows, came back with rows of them. A page that is not full ends the list,
// so its total is known without counting: offset + rows (an empty page at
// offset 0: nothing matches). Only a full page, or an empty one past the
// end, counts with matching (the list's conditions without its paging), a
// statement of its own. Most lists are one page: one statement, where a
// count and a page were two (issue 14). The total is not read with the page
// (count(*) OVER ()): a window over the whole match is computed before
// LIMIT, so every page would read and sort every matching row (387 ms for a
// page of 50 among 200,000 tasks on SQLite, against 13 ms for the page and
// an index-only count).
func pageTotal(matching *gorm.DB, offset, limit, rows int) (int64, error) {
	if rows < limit && (rows > 0 || offset == 0) {
		return int64(offset + rows), nil
	}
	var n int64
	if err := matching.Count(&n).Error; err != nil {
		return 0, err
	}
	return n, nil
}

// nextOffset is where the page after one of rows rows at offset starts, or
// 0 when that page holds every match left.
func nextOffset(offset, rows int, total int64) int {
	if next := offset + rows; int64(next) < total {
		return next
	}
	return 0
}

// pageLimit checks a list's paging and returns the limit to use: 0 means
// DefaultListLimit, and more than MaxListLimit is MaxListLimit (a client
// asking for much gets the most one page holds, not an error).
func pageLimit(limit, offset int) (int, error) {
	switch {
	case limit < 0:
		return 0, invalid("/limit", "limit must not be negative")
	case offset < 0:
		return 0, invalid("/offset", "offset must not be negative")
	case limit == 0:
		return DefaultListLimit, nil
	}
	return min(limit, MaxListLimit), nil
}

// refExists checks that a record a task names (its project, its assignee:
// kind and id, at path in the request) is there, by counting what query
// matches; found remembers those already checked in this call, so a create
// of many tasks reads each once.
func (s *Service) refExists(ctx context.Context, found map[string]bool, kind, id, path string, query *gorm.DB) error {
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
