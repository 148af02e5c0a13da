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
	// SpaceID is set on a record found in a space other than the
	// conversation's (a turn across spaces), so a client knows where to
	// open it.
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
	switch kind {
	case KindTask:
		t, err := s.GetTask(ctx, actor, spaceID, id)
		if err != nil {
			return Ref{}, err
		}
		return TaskRef(t), nil
	case KindProject:
		p, err := s.GetProject(ctx, actor, spaceID, id)
		if err != nil {
			return Ref{}, err
		}
		return Ref{Kind: KindProject, ID: p.ID, Label: p.Name, Detail: p.Status}, nil
	case KindPerson:
		p, err := s.GetSpacePerson(ctx, actor, spaceID, id)
		if err != nil {
			return Ref{}, err
		}
		return Ref{Kind: KindPerson, ID: p.ID, Label: p.Name, Detail: string(p.Role)}, nil
	}
	return Ref{}, invalid("/kind", "kind must be task, project or person, not %q", kind)
}

// TaskRef is how a task is named to people: its title, with its status and
// due date as detail.
func TaskRef(t Task) Ref {
	detail := t.Status
	if t.DueDate != "" {
		detail = fmt.Sprintf("%s, due %s", t.Status, t.DueDate)
	}
	return Ref{Kind: KindTask, ID: t.ID, Label: t.Title, Detail: detail}
}
