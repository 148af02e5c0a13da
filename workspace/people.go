package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// A person's record in a space is their membership seen with their person
// row: name and first name (the person's, in every space), role and
// revision (the space's).

// MaxPersonName bounds a person's name, in characters.
const MaxPersonName = 200

// DefaultPersonRole is the role of someone added without one.
const DefaultPersonRole = RoleEditor

// NewPerson is who AddPerson adds: a new person by Name (and FirstName), or
// by PersonID someone the actor shares another space with. Role "" is
// DefaultPersonRole.
type NewPerson struct {
	PersonID  string
	Name      string
	FirstName string
	Role      Role
}

// PersonPatch changes the fields that are set; Revision, when set, is the
// revision the caller read (a different current one is ErrStale).
type PersonPatch struct {
	Name      *string
	FirstName *string
	Role      *Role
	Revision  *int
}

func (p PersonPatch) empty() bool { return p.Name == nil && p.FirstName == nil && p.Role == nil }

// GetSpacePerson returns one person of a space the actor can open.
func (s *Service) GetSpacePerson(ctx context.Context, actor Actor, spaceID, id string) (Person, error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return Person{}, err
	}
	p, m, err := s.spacePersonRow(ctx, spaceID, id)
	if err != nil {
		return Person{}, err
	}
	return toSpacePerson(p, m), nil
}

// CheckNewPerson checks what AddPerson checks before it reads anything, so a
// proposal to add someone is refused at its path, not at Apply.
func CheckNewPerson(in NewPerson) error {
	_, err := checkNewPerson(in)
	return err
}

// checkNewPerson is CheckNewPerson, returning a new person's row.
func checkNewPerson(in NewPerson) (storage.Person, error) {
	if in.Role != "" {
		if _, err := ParseRole(string(in.Role)); err != nil {
			return storage.Person{}, err
		}
	}
	switch {
	case in.PersonID != "" && (in.Name != "" || in.FirstName != ""):
		return storage.Person{}, invalid("/personId", "give personId (someone from another of your spaces) or a name, not both")
	case in.PersonID == "":
		p := storage.Person{ID: storage.NewID("person")}
		return p, setNames(&p, &in.Name, &in.FirstName)
	case BadText(in.PersonID):
		return storage.Person{}, &NotFoundError{Kind: KindPerson, ID: in.PersonID, Path: "/personId"}
	}
	return storage.Person{}, nil
}

// AddPerson adds a person to the space with a role; only an owner may.
// Someone in the space already is ErrConflict; a personId the actor shares
// no space with is ErrNotFound at /personId.
func (s *Service) AddPerson(ctx context.Context, actor Actor, spaceID string, in NewPerson) (Person, error) {
	role := in.Role
	if role == "" {
		role = DefaultPersonRole
	}
	fresh, err := checkNewPerson(in)
	if err != nil {
		return Person{}, err
	}
	var out Person
	err = s.lockedSpace(ctx, actor.PersonID, spaceID, true, "add people to", func(ctx context.Context) error {
		p := fresh
		if in.PersonID != "" {
			var err error
			if p, err = s.knownPerson(ctx, actor.PersonID, in.PersonID); err != nil {
				return err
			}
			if _, _, err := s.spacePersonRow(ctx, spaceID, p.ID); err == nil {
				return fmt.Errorf("%q is in this space already: %w", p.Name, ErrConflict)
			} else if !errors.Is(err, ErrNotFound) {
				return err
			}
		} else if err := s.q(ctx).Create(&p).Error; err != nil {
			return fmt.Errorf("add person: %w", err)
		}
		// Microseconds, as Postgres keeps them: the answer reads back the same.
		m := storage.Membership{SpaceID: spaceID, PersonID: p.ID, Role: string(role), Revision: 1, CreatedAt: s.now().Truncate(time.Microsecond)}
		s.forgetRoles(ctx) // the person is a member now
		if err := s.q(ctx).Create(&m).Error; err != nil {
			return fmt.Errorf("add %s to %s: %w", p.ID, spaceID, err)
		}
		out = toSpacePerson(p, m)
		if err := s.audit(ctx, actor, spaceID, AuditPerson, AuditCreated, p.ID, fmt.Sprintf("Added “%s” as %s", p.Name, m.Role),
			map[string]any{"role": map[string]any{"after": m.Role}}); err != nil {
			return err
		}
		return s.recordChange(ctx, actor, spaceID, nil, personState(p, m))
	})
	return out, err
}

// UpdatePerson changes a person's record in the space. Only an owner changes
// a role (the last owner cannot step down: ErrConflict). A name or first
// name is the person's own, shown in every space: an owner may change it
// only while the person is in no other space, else ErrForbidden. A name
// change moves on the person's records in their other spaces too.
func (s *Service) UpdatePerson(ctx context.Context, actor Actor, spaceID, id string, patch PersonPatch) (Person, error) {
	if patch.empty() {
		return Person{}, invalid("", "say what to change: name, firstName or role")
	}
	if patch.Role != nil {
		if _, err := ParseRole(string(*patch.Role)); err != nil {
			return Person{}, err
		}
	}
	var names storage.Person
	if err := setNames(&names, patch.Name, patch.FirstName); err != nil {
		return Person{}, err
	}
	self := actor.PersonID == id
	var out Person
	err := s.lockedSpace(ctx, actor.PersonID, spaceID, patch.Role != nil || !self, "change people in", func(ctx context.Context) error {
		p, m, err := s.spacePersonRow(ctx, spaceID, id)
		if err != nil {
			return err
		}
		if err := checkRevision("person", p.Name, m.Revision, patch.Revision); err != nil {
			return err
		}
		before := personState(p, m)
		if patch.Role != nil {
			if err := s.keepAnOwner(ctx, spaceID, Role(m.Role), *patch.Role); err != nil {
				return err
			}
			m.Role = string(*patch.Role)
		}
		renamed := patch.Name != nil || patch.FirstName != nil
		if renamed && !self {
			if err := s.onlyHere(ctx, p, spaceID); err != nil {
				return err
			}
		}
		if patch.Name != nil {
			p.Name = names.Name
		}
		if patch.FirstName != nil {
			p.FirstName = names.FirstName
		}
		if err := s.savePerson(ctx, p, &m, renamed); err != nil {
			return err
		}
		out = toSpacePerson(p, m)
		if changes := personChanges(before, personState(p, m)); len(changes) > 0 {
			if err := s.audit(ctx, actor, spaceID, AuditPerson, AuditUpdated, p.ID, fmt.Sprintf("Changed “%s”", p.Name), changes); err != nil {
				return err
			}
		}
		return s.recordChange(ctx, actor, spaceID, before, personState(p, m))
	})
	return out, err
}

// RemovePerson takes a person out of the space and returns who it was. Only
// an owner may remove someone; any member may leave. The last owner cannot
// leave or be removed (ErrConflict). Only the membership goes (the person
// row is theirs, and their tasks keep them as assignee), so Undo can bring
// it back.
func (s *Service) RemovePerson(ctx context.Context, actor Actor, spaceID, id string) (Person, error) {
	var out Person
	err := s.lockedSpace(ctx, actor.PersonID, spaceID, actor.PersonID != id, "remove people from", func(ctx context.Context) error {
		p, m, err := s.spacePersonRow(ctx, spaceID, id)
		if err != nil {
			return err
		}
		if err := s.keepAnOwner(ctx, spaceID, Role(m.Role), ""); err != nil {
			return err
		}
		s.forgetRoles(ctx) // the person is no member from here on
		res := s.q(ctx).Where("space_id = ? AND person_id = ? AND revision = ?", spaceID, id, m.Revision).Delete(&storage.Membership{})
		stale := fmt.Errorf("person %q changed while being removed; read it again: %w", p.Name, ErrStale)
		if err := guarded(res, "remove "+id+" from "+spaceID, stale); err != nil {
			return err
		}
		out = toSpacePerson(p, m)
		if err := s.audit(ctx, actor, spaceID, AuditPerson, AuditDeleted, p.ID, fmt.Sprintf("Removed “%s” (%s)", p.Name, m.Role),
			map[string]any{"role": map[string]any{"before": m.Role}}); err != nil {
			return err
		}
		return s.recordChange(ctx, actor, spaceID, personState(p, m), nil)
	})
	return out, err
}

// spacePersonRow reads a person of the space with their membership.
func (s *Service) spacePersonRow(ctx context.Context, spaceID, id string) (storage.Person, storage.Membership, error) {
	var p storage.Person
	if BadText(id) {
		return p, storage.Membership{}, &NotFoundError{Kind: KindPerson, ID: id}
	}
	m, err := takeOne[storage.Membership](s.q(ctx).Where("space_id = ? AND person_id = ?", spaceID, id),
		&NotFoundError{Kind: KindPerson, ID: id}, fmt.Sprintf("person %s of %s", id, spaceID))
	if err != nil {
		return p, m, err
	}
	if err := s.q(ctx).Take(&p, "id = ?", id).Error; err != nil {
		return p, m, fmt.Errorf("person %s: %w", id, err)
	}
	return p, m, nil
}

// knownPerson reads a person the actor shares some space with, or one who
// signed in through the identity provider (in no space until added);
// anyone else is ErrNotFound at /personId, so an id tells nothing about
// people the actor cannot see.
func (s *Service) knownPerson(ctx context.Context, actorID, id string) (storage.Person, error) {
	q := s.q(ctx).Table("people").Select("people.*").
		Where("people.id = ?", id).
		Where("EXISTS (SELECT 1 FROM memberships theirs JOIN memberships mine ON mine.space_id = theirs.space_id "+
			"WHERE theirs.person_id = people.id AND mine.person_id = ?) "+
			"OR EXISTS (SELECT 1 FROM oidc_subjects WHERE oidc_subjects.person_id = people.id)", actorID)
	return takeOne[storage.Person](q, &NotFoundError{Kind: KindPerson, ID: id, Path: "/personId"}, "person "+id)
}

// onlyHere refuses an owner's change of the name of someone who is in
// another space too: that name is theirs, and other spaces show it.
func (s *Service) onlyHere(ctx context.Context, p storage.Person, spaceID string) error {
	var n int64
	if err := s.q(ctx).Model(&storage.Membership{}).Where("person_id = ? AND space_id <> ?", p.ID, spaceID).Count(&n).Error; err != nil {
		return fmt.Errorf("spaces of %s: %w", p.ID, err)
	}
	if n > 0 {
		return fmt.Errorf("%q is in other spaces too: only they can change their name: %w", p.Name, ErrForbidden)
	}
	return nil
}

// savePerson writes a person's record in the space, guarded by the
// membership's revision as read, and moves it on; renamed also writes the
// person row and moves on their records in other spaces.
func (s *Service) savePerson(ctx context.Context, p storage.Person, m *storage.Membership, renamed bool) error {
	s.forgetRoles(ctx) // the role may change
	prev := m.Revision
	res := s.q(ctx).Model(&storage.Membership{}).Where("space_id = ? AND person_id = ? AND revision = ?", m.SpaceID, m.PersonID, prev).
		Updates(map[string]any{"role": m.Role, "revision": prev + 1})
	what := "update person " + m.PersonID + " in " + m.SpaceID
	if err := guarded(res, what, changedMeanwhile("person", p.Name, "updated")); err != nil {
		return err
	}
	m.Revision = prev + 1
	if !renamed {
		return nil
	}
	if err := s.q(ctx).Model(&storage.Person{}).Where("id = ?", p.ID).
		Updates(map[string]any{"name": p.Name, "first_name": p.FirstName}).Error; err != nil {
		return fmt.Errorf("rename person %s: %w", p.ID, err)
	}
	if err := s.q(ctx).Model(&storage.Membership{}).Where("person_id = ? AND space_id <> ?", p.ID, m.SpaceID).
		Update("revision", gorm.Expr("revision + 1")).Error; err != nil {
		return fmt.Errorf("rename person %s: %w", p.ID, err)
	}
	return nil
}

// setNames checks the names that are set and copies them onto p.
func setNames(p *storage.Person, name, first *string) (err error) {
	if name != nil {
		if p.Name, err = requiredLine("/name", "a name", "a name is required", *name, MaxPersonName); err != nil {
			return err
		}
	}
	if first != nil {
		p.FirstName, err = checkFirstName(*first)
	}
	return err
}

func checkFirstName(raw string) (string, error) {
	first, err := CheckLine("/firstName", "a first name", raw, MaxFirstName)
	if err != nil {
		return "", err
	}
	if strings.ContainsAny(first, " \t") {
		return "", invalid("/firstName", "a first name is one word")
	}
	return first, nil
}

func toSpacePerson(p storage.Person, m storage.Membership) Person {
	out := toPerson(p)
	out.Role, out.Revision, out.JoinedAt = Role(m.Role), m.Revision, m.CreatedAt
	return out
}
