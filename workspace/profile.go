package workspace

import (
	"context"
	"fmt"

	"hub/storage"
)

// Limits of the profile's fields, in characters.
const (
	// MaxPersona is one sentence about the person's work: every system message
	// carries it.
	MaxPersona = 200
	// MaxFirstName is a first name, as the assistant addresses the person.
	MaxFirstName = 50
)

// DevOwnerName is the name `hub dev` gives the owner it seeds: a
// placeholder, which the assistant never calls anyone.
const DevOwnerName = "Demo Owner"

// placeholderNames are account names that are no one's name.
var placeholderNames = []string{DevOwnerName}

// Profile is what the assistant knows about the person from the person.
type Profile struct {
	Name string
	// FirstName is what the person set, "" when none (Person.FirstName is
	// what the assistant uses).
	FirstName string
	Persona   string
}

// ProfilePatch changes the set fields; "" clears one.
type ProfilePatch struct {
	FirstName *string
	Persona   *string
}

// GetProfile returns the person's profile.
func (s *Service) GetProfile(ctx context.Context, personID string) (Profile, error) {
	r, err := s.personRow(ctx, personID)
	if err != nil {
		return Profile{}, err
	}
	return Profile{Name: r.Name, FirstName: r.FirstName, Persona: r.Persona}, nil
}

// UpdateProfile checks and saves the set fields, all or none.
func (s *Service) UpdateProfile(ctx context.Context, personID string, p ProfilePatch) (Profile, error) {
	r, err := s.personRow(ctx, personID)
	if err != nil {
		return Profile{}, err
	}
	if p.Persona != nil {
		// One sentence: the length, not the full stops, keeps it one ("Smith & Co. in Berlin").
		if r.Persona, err = CheckLine("/persona", "the persona", *p.Persona, MaxPersona); err != nil {
			return Profile{}, err
		}
	}
	if p.FirstName != nil {
		if r.FirstName, err = checkFirstName(*p.FirstName); err != nil {
			return Profile{}, err
		}
	}
	if err := s.q(ctx).Model(&storage.Person{}).Where("id = ?", personID).
		Updates(map[string]any{"persona": r.Persona, "first_name": r.FirstName}).Error; err != nil {
		return Profile{}, fmt.Errorf("update profile of %s: %w", personID, err)
	}
	return Profile{Name: r.Name, FirstName: r.FirstName, Persona: r.Persona}, nil
}

func (s *Service) personRow(ctx context.Context, personID string) (storage.Person, error) {
	return takeOne[storage.Person](s.q(ctx).Where("id = ?", personID), &NotFoundError{Kind: "person", ID: personID},
		"get person "+personID)
}
