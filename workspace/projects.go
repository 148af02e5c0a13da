package workspace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"hub/storage"
)

// Project statuses: the values a project's status may take.
const (
	ProjectActive = "active"
	ProjectPaused = "paused"
	ProjectDone   = "done"
)

// ProjectStatuses lists them, in the order error messages name them.
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

// empty tells a patch that names no field to change, as TaskPatch.empty.
func (p ProjectPatch) empty() bool { return p.Name == nil && p.Status == nil && p.Description == nil }

func toProject(r storage.Project) Project {
	return Project{ID: r.ID, SpaceID: r.SpaceID, Name: r.Name, Status: r.Status, Description: r.Description,
		Revision: r.Revision, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// ProjectFilter narrows a project list, as TaskFilter does a task list.
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
	projects, total, next, err := projectRecords.list(ctx, s, actor, spaceID, f.Status, f.Query, f.Limit, f.Offset)
	if err != nil {
		return ProjectPage{}, err
	}
	return ProjectPage{Total: total, Projects: projects, NextOffset: next}, nil
}

// GetProject returns one project of the space.
func (s *Service) GetProject(ctx context.Context, actor Actor, spaceID, id string) (Project, error) {
	return projectRecords.get(ctx, s, actor, spaceID, id)
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
	created, err := projectRecords.create(ctx, s, actor, spaceID, []storage.Project{r})
	if err != nil {
		return Project{}, err
	}
	return created[0], nil
}

// UpdateProject changes a project's fields.
func (s *Service) UpdateProject(ctx context.Context, actor Actor, spaceID, id string, patch ProjectPatch) (Project, error) {
	return projectRecords.update(ctx, s, actor, spaceID, id, patch.empty(),
		"nothing to change: give name, status or description", patch.Revision,
		func(r *storage.Project) error { return s.applyProjectPatch(r, patch) })
}

// DeleteProject removes a project; its tasks stay, without a project. Each
// of those tasks is changed too (a new revision, an Undo entry, a Change),
// so Undo puts them back in the project.
func (s *Service) DeleteProject(ctx context.Context, actor Actor, spaceID, id string) (Project, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return Project{}, err
	}
	r, err := projectRecords.row(ctx, s, spaceID, id)
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
		if err := guarded(res, "delete project "+id, changedMeanwhile("project", r.Name, "deleted")); err != nil {
			return err
		}
		return s.recordChange(ctx, actor, spaceID, projectState(r), nil)
	})
	if err != nil {
		return Project{}, err
	}
	return toProject(r), nil
}

func (s *Service) applyProjectPatch(r *storage.Project, p ProjectPatch) error {
	var err error
	if p.Name != nil {
		if r.Name, err = requiredLine("/name", "a name", "a name is required", *p.Name, MaxTitleLength); err != nil {
			return err
		}
	}
	if p.Status != nil {
		if !slices.Contains(ProjectStatuses, *p.Status) {
			return invalid("/status", "status must be one of %s", strings.Join(ProjectStatuses, ", "))
		}
		r.Status = *p.Status
	}
	if p.Description != nil {
		if err = CheckText("/description", *p.Description); err != nil {
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
