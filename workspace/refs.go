package workspace

import (
	"context"
	"fmt"
)

// Ref names a record by kind, id and the title a person reads. Ids are for
// tool calls and links; people read labels.
type Ref struct {
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	Label  string `json:"label"`
	Detail string `json:"detail,omitempty"`
	// SpaceID is set on a record found in another space than the
	// conversation's, so a client knows where to open it.
	SpaceID string `json:"spaceId,omitempty"`
}

// Record kinds a mention or a ref can name.
const (
	KindTask    = "task"
	KindProject = "project"
	KindPerson  = "person"
)

// ResolveRef looks a record up by kind and id in the space: an id of another
// space is not found.
func (s *Service) ResolveRef(ctx context.Context, actor Actor, spaceID, kind, id string) (Ref, error) {
	src, ok := refSources[kind]
	if !ok {
		return Ref{}, invalid("/kind", "kind must be task, project or person, not %q", kind)
	}
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return Ref{}, err
	}
	var rows []refRow
	if !BadText(id) {
		if err := s.q(ctx).Raw("SELECT * FROM ("+src+") r WHERE id = ?", spaceID, id).Scan(&rows).Error; err != nil {
			return Ref{}, fmt.Errorf("get %s %s: %w", kind, id, err)
		}
	}
	if len(rows) == 0 {
		return Ref{}, &NotFoundError{Kind: kind, ID: id}
	}
	return rows[0].ref(), nil
}

// TaskRef names a task by its title, with its status and due date.
func TaskRef(t Task) Ref {
	detail := t.Status
	if t.DueDate != "" {
		detail = fmt.Sprintf("%s, due %s", t.Status, t.DueDate)
	}
	return Ref{Kind: KindTask, ID: t.ID, Label: t.Title, Detail: detail}
}
