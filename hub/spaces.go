package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"hub/models"
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
}

// FirstName is what the assistant calls the person.
func (p Person) FirstName() string {
	if f := strings.Fields(p.Name); len(f) > 0 {
		return f[0]
	}
	return p.Name
}

// ListSpaces returns the spaces the person belongs to, by name.
func (s *Service) ListSpaces(ctx context.Context, personID string) ([]Space, error) {
	var rows []struct {
		ID, Name, Role string
	}
	err := s.q(ctx).Table("spaces").
		Select("spaces.id, spaces.name, memberships.role").
		Joins("JOIN memberships ON memberships.space_id = spaces.id").
		Where("memberships.person_id = ?", personID).
		Order("spaces.name, spaces.id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list spaces: %w", err)
	}
	out := make([]Space, len(rows))
	for i, r := range rows {
		out[i] = Space{ID: r.ID, Name: r.Name, Role: Role(r.Role)}
	}
	return out, nil
}

// GetSpace returns one space the person can open.
func (s *Service) GetSpace(ctx context.Context, personID, spaceID string) (Space, error) {
	role, err := s.Access(ctx, personID, spaceID)
	if err != nil {
		return Space{}, err
	}
	var row models.Space
	if err := s.q(ctx).Take(&row, "id = ?", spaceID).Error; err != nil {
		return Space{}, fmt.Errorf("get space %s: %w", spaceID, err)
	}
	return Space{ID: row.ID, Name: row.Name, Role: role}, nil
}

// GetPerson returns a person by id.
func (s *Service) GetPerson(ctx context.Context, personID string) (Person, error) {
	var row models.Person
	err := s.q(ctx).Take(&row, "id = ?", personID).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Person{}, &NotFoundError{Kind: "person", ID: personID}
	}
	if err != nil {
		return Person{}, fmt.Errorf("get person %s: %w", personID, err)
	}
	return Person{ID: row.ID, Name: row.Name}, nil
}

// ListPeople returns the members of a space the person can open.
func (s *Service) ListPeople(ctx context.Context, personID, spaceID string) ([]Person, error) {
	if _, err := s.Access(ctx, personID, spaceID); err != nil {
		return nil, err
	}
	var rows []struct {
		ID, Name, Role string
	}
	err := s.q(ctx).Table("people").
		Select("people.id, people.name, memberships.role").
		Joins("JOIN memberships ON memberships.person_id = people.id").
		Where("memberships.space_id = ?", spaceID).
		Order("people.name, people.id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list people: %w", err)
	}
	out := make([]Person, len(rows))
	for i, r := range rows {
		out[i] = Person{ID: r.ID, Name: r.Name, Role: Role(r.Role)}
	}
	return out, nil
}

// EnsureMember makes sure a space and a person with these names exist and
// that the person has the role there, creating what is missing. It is how
// `hub token create` and `hub dev` seed a workspace. Names identify spaces
// exactly; a person is found by name among the space's members, or created.
func (s *Service) EnsureMember(ctx context.Context, spaceName, personName string, role Role) (spaceID, personID string, err error) {
	spaceName, personName = strings.TrimSpace(spaceName), strings.TrimSpace(personName)
	if spaceName == "" || personName == "" {
		return "", "", invalid("", "a space name and a person name are required")
	}
	if _, err := ParseRole(string(role)); err != nil {
		return "", "", err
	}
	err = s.Tx(ctx, func(tx *Service) error {
		var sp models.Space
		err := tx.q(ctx).Where("name = ?", spaceName).Take(&sp).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			sp = models.Space{ID: models.NewID("space"), Name: spaceName}
			err = tx.q(ctx).Create(&sp).Error
		}
		if err != nil {
			return fmt.Errorf("space %q: %w", spaceName, err)
		}
		var p models.Person
		err = tx.q(ctx).Table("people").Select("people.*").
			Joins("JOIN memberships ON memberships.person_id = people.id").
			Where("memberships.space_id = ? AND people.name = ?", sp.ID, personName).
			Take(&p).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			err = tx.q(ctx).Where("name = ?", personName).Order("created_at").Take(&p).Error
		}
		if errors.Is(err, gorm.ErrRecordNotFound) {
			p = models.Person{ID: models.NewID("person"), Name: personName}
			err = tx.q(ctx).Create(&p).Error
		}
		if err != nil {
			return fmt.Errorf("person %q: %w", personName, err)
		}
		m := models.Membership{SpaceID: sp.ID, PersonID: p.ID, Role: string(role)}
		err = tx.q(ctx).Where("space_id = ? AND person_id = ?", sp.ID, p.ID).
			Assign(models.Membership{Role: string(role)}).FirstOrCreate(&m).Error
		if err != nil {
			return fmt.Errorf("membership: %w", err)
		}
		spaceID, personID = sp.ID, p.ID
		return nil
	})
	return spaceID, personID, err
}
