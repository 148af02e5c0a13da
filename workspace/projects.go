package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"hub/storage"
)

// Project statuses: the values a project's status may take.
const (
	ProjectActive = "active"
	ProjectPaused = "paused"
	ProjectDone   = "done"
)

// ProjectStatuses lists the project statuses, in the order error messages
// name them.
var ProjectStatuses = []string{ProjectActive, ProjectPaused, ProjectDone}

// MaxDescriptionLength bounds a project description, in characters.
const MaxDescriptionLength = 5000

// Project groups tasks.
type Project struct {
	ID          string
	SpaceID     string
	Name        string
	Status      string
	Description string
	Revision    int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// NewProject is what a create call sends.
type NewProject struct {
	Name        string
	Status      string
	Description string
}

// ProjectPatch changes the fields that are set; Revision as in TaskPatch.
type ProjectPatch struct {
	Name        *string
	Status      *string
	Description *string
	Revision    *int
}

// empty tells a patch that names no field to change (see TaskPatch.empty).
func (p ProjectPatch) empty() bool { return p.Name == nil && p.Status == nil && p.Description == nil }

func toProject(r storage.Project) Project {
	return Project{ID: r.ID, SpaceID: r.SpaceID, Name: r.Name, Status: r.Status, Description: r.Description,
		Revision: r.Revision, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// ProjectFilter narrows a project list, as TaskFilter does a task list.
// Limit 0 means DefaultListLimit; above MaxListLimit it is MaxListLimit.
type ProjectFilter struct {
	Status string
	Query  string // words the name contains, case-insensitive
	Limit  int
	Offset int
}

// ProjectPage is one page of a project list; Total counts every match.
type ProjectPage struct {
	Projects   []Project
	Total      int64
	NextOffset int // 0 when there is nothing more
}

// ListProjects returns a page of the space's projects, by name.
func (s *Service) ListProjects(ctx context.Context, actor Actor, spaceID string, f ProjectFilter) (ProjectPage, error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return ProjectPage{}, err
	}
	if f.Status != "" && !oneOf(f.Status, ProjectStatuses) {
		return ProjectPage{}, invalid("/status", "status must be one of %s", strings.Join(ProjectStatuses, ", "))
	}
	limit, err := pageLimit(f.Limit, f.Offset)
	if err != nil {
		return ProjectPage{}, err
	}
	f.Limit = limit
	matching := func() *gorm.DB {
		q := s.q(ctx).Model(&storage.Project{}).Where("space_id = ?", spaceID)
		if f.Status != "" {
			q = q.Where("status = ?", f.Status)
		}
		// As in ListTasks, the database lowers both sides.
		for _, w := range strings.Fields(f.Query) {
			q = q.Where(s.containsWord("name"), "%"+escapeLike(w)+"%")
		}
		return q
	}
	// The total from the page when it is not full, as in ListTasks.
	var rows []storage.Project
	if err := matching().Order("name, id").Limit(f.Limit).Offset(f.Offset).Find(&rows).Error; err != nil {
		return ProjectPage{}, fmt.Errorf("list projects: %w", err)
	}
	total, err := pageTotal(matching(), f.Offset, f.Limit, len(rows))
	if err != nil {
		return ProjectPage{}, fmt.Errorf("list projects: %w", err)
	}
	page := ProjectPage{Total: total, Projects: make([]Project, len(rows)), NextOffset: nextOffset(f.Offset, len(rows), total)}
	for i, r := range rows {
		page.Projects[i] = toProject(r)
	}
	return page, nil
}

// GetProject returns one project of the space.
func (s *Service) GetProject(ctx context.Context, actor Actor, spaceID, id string) (Project, error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return Project{}, err
	}
	r, err := s.projectRow(ctx, spaceID, id)
	return toProject(r), err
}

func (s *Service) projectRow(ctx context.Context, spaceID, id string) (storage.Project, error) {
	var r storage.Project
	if BadText(id) {
		return r, &NotFoundError{Kind: "project", ID: id}
	}
	err := s.q(ctx).Where("space_id = ? AND id = ?", spaceID, id).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return r, &NotFoundError{Kind: "project", ID: id}
	}
	if err != nil {
		return r, fmt.Errorf("get project %s: %w", id, err)
	}
	return r, nil
}

// CreateProject adds a project to the space.
func (s *Service) CreateProject(ctx context.Context, actor Actor, spaceID string, in NewProject) (Project, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return Project{}, err
	}
	r := storage.Project{ID: storage.NewID("proj"), SpaceID: spaceID, Status: ProjectActive, Revision: 1, CreatedBy: actor.PersonID}
	if err := s.applyProjectPatch(&r, ProjectPatch{Name: &in.Name, Status: nonEmpty(in.Status), Description: &in.Description}); err != nil {
		return Project{}, err
	}
	err := s.InTx(ctx, func(ctx context.Context) error {
		if err := s.q(ctx).Create(&r).Error; err != nil {
			return fmt.Errorf("create project: %w", err)
		}
		return s.recordChange(ctx, actor, spaceID, nil, projectState(r))
	})
	if err != nil {
		return Project{}, err
	}
	return toProject(r), nil
}

// UpdateProject changes a project's fields.
func (s *Service) UpdateProject(ctx context.Context, actor Actor, spaceID, id string, patch ProjectPatch) (Project, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return Project{}, err
	}
	r, err := s.projectRow(ctx, spaceID, id)
	if err != nil {
		return Project{}, err
	}
	if patch.empty() {
		return Project{}, invalid("", "nothing to change: give name, status or description")
	}
	if err := checkRevision("project", r.Name, r.Revision, patch.Revision); err != nil {
		return Project{}, err
	}
	before := projectState(r)
	if err := s.applyProjectPatch(&r, patch); err != nil {
		return Project{}, err
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		if err := s.saveRevision(ctx, "project", r.Name, r.ID, &r, &r.Revision, "name", "status", "description"); err != nil {
			return err
		}
		return s.recordChange(ctx, actor, spaceID, before, projectState(r))
	})
	if err != nil {
		return Project{}, err
	}
	return toProject(r), nil
}

// DeleteProject removes a project; its tasks stay, without a project. Each
// of those tasks is changed too (a new revision, an Undo entry, a Change),
// so Undo puts them back in the project.
func (s *Service) DeleteProject(ctx context.Context, actor Actor, spaceID, id string) (Project, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return Project{}, err
	}
	r, err := s.projectRow(ctx, spaceID, id)
	if err != nil {
		return Project{}, err
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		var tasks []storage.Task
		if err := s.q(ctx).Where("project_id = ?", r.ID).Order("created_at, id").Find(&tasks).Error; err != nil {
			return fmt.Errorf("delete project %s: %w", id, err)
		}
		for _, t := range tasks {
			before := taskState(t)
			t.ProjectID, t.UpdatedAt = nil, s.now()
			if err := s.saveRevision(ctx, "task", t.Title, t.ID, &t, &t.Revision, "project_id"); err != nil {
				return err
			}
			if err := s.recordChange(ctx, actor, spaceID, before, taskState(t)); err != nil {
				return err
			}
		}
		res := s.q(ctx).Delete(&storage.Project{}, "id = ? AND revision = ?", r.ID, r.Revision)
		if res.Error != nil {
			return fmt.Errorf("delete project %s: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("project %q changed while it was being deleted; read it again: %w", r.Name, ErrStale)
		}
		return s.recordChange(ctx, actor, spaceID, projectState(r), nil)
	})
	if err != nil {
		return Project{}, err
	}
	return toProject(r), nil
}

func (s *Service) applyProjectPatch(r *storage.Project, p ProjectPatch) error {
	if p.Name != nil {
		name, err := CheckLine("/name", "a name", *p.Name, MaxTitleLength)
		if err != nil {
			return err
		}
		if name == "" {
			return invalid("/name", "a name is required")
		}
		r.Name = name
	}
	if p.Status != nil {
		if !oneOf(*p.Status, ProjectStatuses) {
			return invalid("/status", "status must be one of %s", strings.Join(ProjectStatuses, ", "))
		}
		r.Status = *p.Status
	}
	if p.Description != nil {
		if err := CheckText("/description", *p.Description); err != nil {
			return err
		}
		if utf8.RuneCountInString(*p.Description) > MaxDescriptionLength {
			return invalid("/description", "a description has at most %d characters", MaxDescriptionLength)
		}
		r.Description = *p.Description
	}
	r.UpdatedAt = s.now()
	return nil
}
