package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/storage"
)

// Space is a workspace as the person sees it, with their role in it.
type Space struct {
	ID   string
	Name string
	Role Role
}

// Person is someone in a space.
type Person struct {
	ID   string
	Name string
	Role Role
	// GivenName is the first name the person set ("": none), Persona their
	// sentence about their work; GetPerson fills both.
	GivenName string
	Persona   string
	// Revision is the revision of their record in the space, JoinedAt when
	// they joined it (ListPeople, GetSpacePerson and the people writes).
	Revision int
	JoinedAt time.Time
	// RootTokenID is the full or operator token a request authenticated with,
	// or that its stream token or session derives from; the stream tokens the
	// request makes derive from it, and an open stream rechecks it
	// (TokenAlive). RootTokenExpiresAt is its expiry (nil: never), which
	// theirs never passes.
	RootTokenID        string
	RootTokenExpiresAt *time.Time
}

// FirstName is what the assistant calls the person: the first name they
// set, else the first word of their name; "" for a placeholder account
// name (DevOwnerName), which is no one's name.
func (p Person) FirstName() string {
	if p.GivenName != "" {
		return p.GivenName
	}
	if slices.Contains(placeholderNames, p.Name) {
		return ""
	}
	if f := strings.Fields(p.Name); len(f) > 0 {
		return f[0]
	}
	return p.Name
}

// ListSpaces returns the spaces the person belongs to, by name.
func (s *Service) ListSpaces(ctx context.Context, personID string) ([]Space, error) {
	out := []Space{}
	err := s.q(ctx).Table("spaces").
		Select("spaces.id, spaces.name, memberships.role").
		Joins("JOIN memberships ON memberships.space_id = spaces.id").
		Where("memberships.person_id = ?", personID).
		Order("spaces.name, spaces.id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list spaces: %w", err)
	}
	return out, nil
}

// GetSpace returns one space the person can open.
func (s *Service) GetSpace(ctx context.Context, personID, spaceID string) (Space, error) {
	role, err := s.Access(ctx, personID, spaceID)
	if err != nil {
		return Space{}, err
	}
	var row storage.Space
	if err := s.q(ctx).Take(&row, "id = ?", spaceID).Error; err != nil {
		return Space{}, fmt.Errorf("get space %s: %w", spaceID, err)
	}
	return Space{ID: row.ID, Name: row.Name, Role: role}, nil
}

// SpaceNames returns the names of spaces by id (an unknown id is left out).
// It checks no access: a caller names spaces among ids it has checked.
func (s *Service) SpaceNames(ctx context.Context, ids []string) (map[string]string, error) {
	var rows []storage.Space
	if err := s.q(ctx).Select("id", "name").Where("id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("space names: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}

// GetPerson returns a person by id.
func (s *Service) GetPerson(ctx context.Context, personID string) (Person, error) {
	row, err := s.personRow(ctx, personID)
	if err != nil {
		return Person{}, err
	}
	return toPerson(row), nil
}

// toPerson is the person of a row, in no space.
func toPerson(p storage.Person) Person {
	return Person{ID: p.ID, Name: p.Name, GivenName: p.FirstName, Persona: p.Persona}
}

// ListPeople returns the members of a space the person can open.
func (s *Service) ListPeople(ctx context.Context, personID, spaceID string) ([]Person, error) {
	if _, err := s.Access(ctx, personID, spaceID); err != nil {
		return nil, err
	}
	out := []Person{}
	err := s.q(ctx).Table("people").
		Select("people.id, people.name, people.first_name AS given_name, memberships.role, memberships.revision, "+
			"memberships.created_at AS joined_at").
		Joins("JOIN memberships ON memberships.person_id = people.id").
		Where("memberships.space_id = ?", spaceID).
		Order("people.name, people.id").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list people: %w", err)
	}
	return out, nil
}

// EnsureMember makes sure a space and a person with these names exist and
// that the person has the role there, creating what is missing (`hub token
// create`, `hub dev`). A person is found by name among the space's
// members. Calls racing from several processes all find the same space,
// person and membership.
func (s *Service) EnsureMember(ctx context.Context, spaceName, personName string, role Role) (spaceID, personID string, err error) {
	spaceName, personName = strings.TrimSpace(spaceName), strings.TrimSpace(personName)
	if spaceName == "" || personName == "" {
		return "", "", invalid("", "a space name and a person name are required")
	}
	if BadText(spaceName) || BadText(personName) {
		return "", "", invalid("", "a space name and a person name must be valid UTF-8 without a NUL character")
	}
	if _, err := ParseRole(string(role)); err != nil {
		return "", "", err
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		sp, err := s.ensureSpace(ctx, spaceName)
		if err != nil {
			return fmt.Errorf("space %q: %w", spaceName, err)
		}
		p, err := s.ensurePerson(ctx, sp.ID, personName)
		if err != nil {
			return fmt.Errorf("person %q: %w", personName, err)
		}
		s.forgetRoles(ctx)
		m := storage.Membership{SpaceID: sp.ID, PersonID: p.ID, Role: string(role), Revision: 1}
		err = s.q(ctx).Clauses(clause.OnConflict{
			Columns: []clause.Column{{Name: "space_id"}, {Name: "person_id"}},
			// A seeded role change is a change of the person's record too;
			// seeding the role they have is none.
			DoUpdates: clause.Set{{Column: clause.Column{Name: "role"}, Value: string(role)},
				{Column: clause.Column{Name: "revision"},
					Value: gorm.Expr("CASE WHEN memberships.role = excluded.role THEN memberships.revision ELSE memberships.revision + 1 END")}},
		}).Create(&m).Error
		if err != nil {
			return fmt.Errorf("membership: %w", err)
		}
		spaceID, personID = sp.ID, p.ID
		return nil
	})
	return spaceID, personID, err
}

// FindMember finds a space by its exact name and a person by name among its
// members, creating nothing, so a mistyped name is an error wrapping
// ErrNotFound.
func (s *Service) FindMember(ctx context.Context, spaceName, personName string) (spaceID, personID string, err error) {
	spaceName, personName = strings.TrimSpace(spaceName), strings.TrimSpace(personName)
	if spaceName == "" || personName == "" {
		return "", "", invalid("", "a space name and a person name are required")
	}
	sp, err := takeOne[storage.Space](s.q(ctx).Where("name = ?", spaceName),
		fmt.Errorf("no space is named %q: %w", spaceName, ErrNotFound), "find space "+spaceName)
	if err != nil {
		return "", "", err
	}
	q := s.q(ctx).Table("people").Select("people.*").Joins("JOIN memberships ON memberships.person_id = people.id").
		Where("memberships.space_id = ? AND people.name = ?", sp.ID, personName).Order("people.created_at")
	p, err := takeOne[storage.Person](q, fmt.Errorf("no member of %q is named %q: %w", spaceName, personName, ErrNotFound),
		"find member "+personName)
	if err != nil {
		return "", "", err
	}
	return sp.ID, p.ID, nil
}

// ensureSpace inserts the space unless one has the name (the unique index
// makes a second insert nothing), then reads it. As the transaction's first
// statement the insert takes SQLite's write lock before anything is read;
// on Postgres it waits for a racing insert of the name to commit.
func (s *Service) ensureSpace(ctx context.Context, name string) (storage.Space, error) {
	err := s.q(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoNothing: true}).
		Create(&storage.Space{ID: storage.NewID("space"), Name: name}).Error
	if err != nil {
		return storage.Space{}, err
	}
	var sp storage.Space
	err = s.q(ctx).Where("name = ?", name).Take(&sp).Error
	return sp, err
}

// ensurePerson finds the person by name among the space's members, else the
// oldest person of that name, else creates one. Names are not unique, so on
// Postgres a transaction lock on the name makes a racing call wait and find
// this one's person (SQLite writes one transaction at a time).
func (s *Service) ensurePerson(ctx context.Context, spaceID, name string) (storage.Person, error) {
	if s.root.Dialect == storage.Postgres {
		if err := s.q(ctx).Exec("SELECT pg_advisory_xact_lock(hashtext(?))", "hub.person:"+name).Error; err != nil {
			return storage.Person{}, err
		}
	}
	var p storage.Person
	err := s.q(ctx).Table("people").Select("people.*").
		Joins("JOIN memberships ON memberships.person_id = people.id").
		Where("memberships.space_id = ? AND people.name = ?", spaceID, name).
		Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		err = s.q(ctx).Where("name = ?", name).Order("created_at").Take(&p).Error
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		p = storage.Person{ID: storage.NewID("person"), Name: name}
		err = s.q(ctx).Create(&p).Error
	}
	return p, err
}
