package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// snapshot is a record as an Undo entry keeps it.
type snapshot interface {
	kind() string
	recordID() string
	title() string
	revision() int
}

// taskSnapshot is storage.Task with stable JSON names; the conversion fails
// to compile until a column added to tasks is kept here too.
type taskSnapshot struct {
	ID         string    `json:"id"`
	SpaceID    string    `json:"spaceId"`
	ProjectID  *string   `json:"projectId"`
	Title      string    `json:"title"`
	Status     string    `json:"status"`
	DueDate    *string   `json:"dueDate"`
	Priority   string    `json:"priority"`
	AssigneeID *string   `json:"assigneeId"`
	Revision   int       `json:"revision"`
	CreatedBy  string    `json:"createdBy"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

func (t *taskSnapshot) kind() string     { return KindTask }
func (t *taskSnapshot) recordID() string { return t.ID }
func (t *taskSnapshot) title() string    { return t.Title }
func (t *taskSnapshot) revision() int    { return t.Revision }

// projectSnapshot is storage.Project with stable JSON names.
type projectSnapshot struct {
	ID          string    `json:"id"`
	SpaceID     string    `json:"spaceId"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	Description string    `json:"description"`
	Revision    int       `json:"revision"`
	CreatedBy   string    `json:"createdBy"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

func (p *projectSnapshot) kind() string     { return KindProject }
func (p *projectSnapshot) recordID() string { return p.ID }
func (p *projectSnapshot) title() string    { return p.Name }
func (p *projectSnapshot) revision() int    { return p.Revision }

func taskState(r storage.Task) snapshot {
	t := taskSnapshot(r)
	return &t
}

func projectState(r storage.Project) snapshot {
	p := projectSnapshot(r)
	return &p
}

// personSnapshot is a person's record in a space as an Undo entry keeps
// it: their membership with the name it showed.
type personSnapshot struct {
	ID        string    `json:"id"`
	SpaceID   string    `json:"spaceId"`
	Name      string    `json:"name"`
	FirstName string    `json:"firstName"`
	Role      string    `json:"role"`
	Revision  int       `json:"revision"`
	CreatedAt time.Time `json:"createdAt"`
}

func (p *personSnapshot) kind() string     { return KindPerson }
func (p *personSnapshot) recordID() string { return p.ID }
func (p *personSnapshot) title() string    { return p.Name }
func (p *personSnapshot) revision() int    { return p.Revision }

func personState(p storage.Person, m storage.Membership) snapshot {
	return &personSnapshot{ID: p.ID, SpaceID: m.SpaceID, Name: p.Name, FirstName: p.FirstName, Role: m.Role,
		Revision: m.Revision, CreatedAt: m.CreatedAt}
}

// sameSnapshot compares what a person can see and change of a record: not
// revisions, which Undo and Redo move on, nor times, which the engines keep
// at different precisions.
func sameSnapshot(a, b snapshot) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.kind() == b.kind() && reflect.DeepEqual(content(a), content(b))
}

// content is a snapshot's JSON fields without its revision and times.
func content(st snapshot) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(st) // strings, numbers and times: it cannot fail
	_ = json.Unmarshal(b, &m)
	for _, f := range []string{"revision", "createdAt", "updatedAt"} {
		delete(m, f)
	}
	return m
}

func encodeSnapshot(st snapshot) (*string, error) {
	if st == nil {
		return nil, nil
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encode %s %s: %w", st.kind(), st.recordID(), err)
	}
	s := string(b)
	return &s, nil
}

func decodeSnapshot(kind string, raw *string) (snapshot, error) {
	if raw == nil {
		return nil, nil
	}
	var st snapshot
	switch kind {
	case KindTask:
		st = &taskSnapshot{}
	case KindProject:
		st = &projectSnapshot{}
	case KindPerson:
		st = &personSnapshot{}
	default:
		return nil, fmt.Errorf("unknown record kind %q", kind)
	}
	if err := json.Unmarshal([]byte(*raw), st); err != nil {
		return nil, fmt.Errorf("decode %s: %w", kind, err)
	}
	return st, nil
}

// restore moves one record from r.cur to target (nil: absent) for Undo or
// Redo and tells subscribers; one that comes back continues after r.maxRevision.
func (s *Service) restore(ctx context.Context, actor Actor, spaceID string, r plannedRecord, target snapshot,
	verb, name string) (snapshot, error) {
	cur := r.cur
	if cur == nil && target == nil {
		return nil, nil
	}
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("cannot %s %s: %s: %w", verb, name, fmt.Sprintf(format, args...), ErrConflict)
	}
	if r.kind == KindPerson {
		// Who is in the space is the owners' to change, by Undo too.
		role, err := s.Access(ctx, actor.PersonID, spaceID)
		if err != nil {
			return nil, err
		}
		if role != RoleOwner {
			return nil, refuse("only an owner may change who is in this space")
		}
	}
	var next snapshot
	var err error
	if target == nil {
		err = s.deleteSnapshot(ctx, cur, refuse)
	} else {
		next, err = s.putSnapshot(ctx, spaceID, cur, target, r.maxRevision+1, refuse)
	}
	if err != nil {
		return nil, err
	}
	if err := s.recordChange(ctx, actor, spaceID, cur, next); err != nil {
		return nil, err
	}
	return next, nil
}

// loadSnapshot reads a record's current state; nil when it does not exist.
func (s *Service) loadSnapshot(ctx context.Context, kind, spaceID, id string) (snapshot, error) {
	switch kind {
	case KindTask:
		r, err := taskRecords.row(ctx, s, spaceID, id)
		return stateOf(r, err, taskState)
	case KindProject:
		r, err := projectRecords.row(ctx, s, spaceID, id)
		return stateOf(r, err, projectState)
	case KindPerson:
		p, m, err := s.spacePersonRow(ctx, spaceID, id)
		return stateOf(m, err, func(m storage.Membership) snapshot { return personState(p, m) })
	}
	return nil, fmt.Errorf("unknown record kind %q", kind)
}

// stateOf is the state of a row read with err; nil when it was not found.
func stateOf[R any](r R, err error, state func(R) snapshot) (snapshot, error) {
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return state(r), nil
}

func (s *Service) deleteSnapshot(ctx context.Context, cur snapshot, refuse func(string, ...any) error) error {
	var res *gorm.DB
	switch c := cur.(type) {
	case *taskSnapshot:
		res = s.q(ctx).Delete(&storage.Task{}, "id = ? AND revision = ?", c.ID, c.Revision)
	case *projectSnapshot:
		// The database would quietly take the project off tasks that joined
		// it after the group; those are not the group's to change.
		var t storage.Task
		err := s.q(ctx).Where("project_id = ?", c.ID).Order("created_at, id").Take(&t).Error
		if err == nil {
			return refuse("task %q was added to project %q since", t.Title, c.Name)
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("tasks of project %s: %w", c.ID, err)
		}
		res = s.q(ctx).Delete(&storage.Project{}, "id = ? AND revision = ?", c.ID, c.Revision)
	case *personSnapshot:
		if err := s.keepAnOwner(ctx, c.SpaceID, Role(c.Role), ""); err != nil {
			return err
		}
		s.forgetRoles(ctx) // no member from here on
		res = s.q(ctx).Where("space_id = ? AND person_id = ? AND revision = ?", c.SpaceID, c.ID, c.Revision).Delete(&storage.Membership{})
	default:
		return fmt.Errorf("delete %T", cur)
	}
	changed := refuse("%s %q changed while this ran", cur.kind(), cur.title())
	return guarded(res, "delete "+cur.kind()+" "+cur.recordID(), changed)
}

// putSnapshot brings a record to target: back into existence at revision
// when it no longer exists (cur nil), else changed from cur.
func (s *Service) putSnapshot(ctx context.Context, spaceID string, cur, target snapshot, revision int, refuse func(string, ...any) error) (snapshot, error) {
	switch t := target.(type) {
	case *taskSnapshot:
		r := storage.Task(*t)
		if err := s.checkTaskLinks(ctx, spaceID, &r, refuse); err != nil {
			return nil, err
		}
		return taskRecords.restore(ctx, s, cur, r, revision)
	case *projectSnapshot:
		return projectRecords.restore(ctx, s, cur, storage.Project(*t), revision)
	case *personSnapshot:
		if cur == nil {
			// The person row is never deleted (RemovePerson), so only the
			// membership comes back; their name is theirs as it is now.
			var p storage.Person
			if err := s.q(ctx).Take(&p, "id = ?", t.ID).Error; err != nil {
				return nil, fmt.Errorf("restore person %s: %w", t.ID, err)
			}
			s.forgetRoles(ctx) // a member again
			m := storage.Membership{SpaceID: spaceID, PersonID: t.ID, Role: t.Role, Revision: revision, CreatedAt: t.CreatedAt}
			if err := s.q(ctx).Create(&m).Error; err != nil {
				return nil, fmt.Errorf("restore person %s in %s: %w", t.ID, spaceID, err)
			}
			return personState(p, m), nil
		}
		c := cur.(*personSnapshot)
		if err := s.keepAnOwner(ctx, spaceID, Role(c.Role), Role(t.Role)); err != nil {
			return nil, err
		}
		p := storage.Person{ID: t.ID, Name: t.Name, FirstName: t.FirstName}
		m := storage.Membership{SpaceID: spaceID, PersonID: t.ID, Role: t.Role, Revision: c.Revision, CreatedAt: c.CreatedAt}
		if err := s.savePerson(ctx, p, &m, c.Name != t.Name || c.FirstName != t.FirstName); err != nil {
			return nil, err
		}
		return personState(p, m), nil
	}
	return nil, fmt.Errorf("restore %T", target)
}

// checkTaskLinks refuses to bring back a task whose project was deleted or
// whose assignee left the space since, checked as a change of them is.
func (s *Service) checkTaskLinks(ctx context.Context, spaceID string, r *storage.Task, refuse func(string, ...any) error) error {
	links := TaskPatch{ProjectID: r.ProjectID, AssigneeID: r.AssigneeID}
	var gone *NotFoundError
	switch err := s.applyPatch(ctx, spaceID, "", &storage.Task{}, links, refsFound{}); {
	case !errors.As(err, &gone):
		return err
	case gone.Kind == KindProject:
		return refuse("the project of task %q was deleted since", r.Title)
	}
	return refuse("the assignee of task %q has left this space since", r.Title)
}
