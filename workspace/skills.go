package workspace

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"hub/storage"
)

// KindSkill is the ref kind of a personal skill.
const KindSkill = "skill"

// Limits of personal skills, in characters (counts of skills per person).
const (
	MaxSkillName        = 80  // a label in a list and in the instructions
	MaxSkillDescription = 200 // one line saying when the skill applies; every system message lists it
	// MaxSkillInstructions is what hub_read_skill returns whole, within a
	// tool result's 6,000 characters (tools.MaxResultChars).
	MaxSkillInstructions = 4_000
	MaxSkillPurpose      = 40
	// MaxSkills is how many skills one person keeps.
	MaxSkills = 100
)

// skillPurpose is a purpose: a lower-case slug ("morning-brief").
var skillPurpose = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Skill is one of a person's own saved instructions, read only by them.
// Version counts its changes from 1. A skill with a Purpose belongs to runs
// of that purpose and is never listed in a chat's instructions.
type Skill struct {
	ID           string
	Name         string
	Description  string
	Instructions string
	Enabled      bool
	Purpose      string
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Ref names the skill to people and the model.
func (k Skill) Ref() Ref { return Ref{Kind: KindSkill, ID: k.ID, Label: k.Name} }

// NewSkill is what adding a skill sends; Enabled nil means enabled.
type NewSkill struct {
	Name, Description, Instructions string
	Enabled                         *bool
	Purpose                         string
}

// SkillPatch changes the set fields of the skill at Version, which is
// required: a change made against an older version is ErrStale.
type SkillPatch struct {
	Version                         *int
	Name, Description, Instructions *string
	Enabled                         *bool
	Purpose                         *string
}

func toSkill(r storage.Skill) Skill {
	return Skill{ID: r.ID, Name: r.Name, Description: r.Description, Instructions: r.Instructions,
		Enabled: r.Enabled, Purpose: r.Purpose, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// skillNotFound is the answer for a skill that does not exist and for
// another person's: nobody learns that someone else's exists.
func skillNotFound(id string) error {
	return fmt.Errorf("you have no skill with this id: %w", ErrNotFound)
}

// CreateSkill saves a new skill of the person, enabled unless told
// otherwise. A name the person already uses, in any case, is ErrConflict.
func (s *Service) CreateSkill(ctx context.Context, personID string, in NewSkill) (Skill, error) {
	r := storage.Skill{ID: storage.NewID("skill"), PersonID: personID, Enabled: in.Enabled == nil || *in.Enabled, Version: 1}
	err := patchSkill(&r, SkillPatch{Name: &in.Name, Description: &in.Description, Instructions: &in.Instructions, Purpose: &in.Purpose})
	if err != nil {
		return Skill{}, err
	}
	r.CreatedAt = s.now()
	r.UpdatedAt = r.CreatedAt
	full := func(n int) error {
		return fmt.Errorf("you have %d skills, the most one person keeps; delete one first: %w", n, ErrConflict)
	}
	err = insertNamed(ctx, s, "create skill", &storage.Person{}, personID, "person_id", MaxSkills, full, skillNameTaken, &r, r.Name)
	if err != nil {
		return Skill{}, err
	}
	return toSkill(r), nil
}

func skillNameTaken(name string) error {
	return fmt.Errorf("you already have a skill named %q: %w", name, ErrConflict)
}

// ListSkills returns the person's skills by name.
func (s *Service) ListSkills(ctx context.Context, personID string) ([]Skill, error) {
	return s.skills(ctx, "list skills", s.q(ctx).Where("person_id = ?", personID))
}

// InstructionSkills are the person's enabled skills without a purpose.
func (s *Service) InstructionSkills(ctx context.Context, personID string) ([]Skill, error) {
	return s.skills(ctx, "list enabled skills", s.q(ctx).Where("person_id = ? AND enabled = ? AND purpose = ''", personID, true))
}

func (s *Service) skills(ctx context.Context, what string, q *gorm.DB) ([]Skill, error) {
	var rows []storage.Skill
	if err := q.Order("lower(name), id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return mapRows(rows, toSkill), nil
}

// GetSkill returns one skill of the person (another's: ErrNotFound).
func (s *Service) GetSkill(ctx context.Context, personID, id string) (Skill, error) {
	r, err := s.skillRow(ctx, personID, id)
	if err != nil {
		return Skill{}, err
	}
	return toSkill(r), nil
}

// UpdateSkill changes the set fields, guarded by the patch's Version.
func (s *Service) UpdateSkill(ctx context.Context, personID, id string, p SkillPatch) (Skill, error) {
	r, err := s.skillRow(ctx, personID, id)
	if err != nil {
		return Skill{}, err
	}
	if p.Version == nil {
		return Skill{}, invalid("/version", "version is required: send the version you read (the skill is at version %d)", r.Version)
	}
	if *p.Version != r.Version {
		return Skill{}, staleSkill(r.Name, r.Version, *p.Version)
	}
	if err := patchSkill(&r, p); err != nil {
		return Skill{}, err
	}
	prev := r.Version
	r.Version, r.UpdatedAt = prev+1, s.now()
	err = updateNamed[storage.Skill](ctx, s, "skill", "person_id", personID, id, r.Name, prev, skillNameTaken,
		map[string]any{"name": r.Name, "description": r.Description, "instructions": r.Instructions,
			"enabled": r.Enabled, "purpose": r.Purpose, "version": r.Version, "updated_at": r.UpdatedAt})
	if err != nil {
		return Skill{}, err
	}
	return toSkill(r), nil
}

// patchSkill checks the set fields of p and copies them onto r.
func patchSkill(r *storage.Skill, p SkillPatch) error {
	var err error
	if p.Name != nil {
		if r.Name, err = requiredLine("/name", "a skill's name", "a skill needs a name", *p.Name, MaxSkillName); err != nil {
			return err
		}
	}
	if p.Description != nil {
		if r.Description, err = requiredLine("/description", "a skill's description",
			"a skill needs a description: one line saying when it applies", *p.Description, MaxSkillDescription); err != nil {
			return err
		}
	}
	if p.Instructions != nil {
		if r.Instructions, err = checkSkillInstructions(*p.Instructions); err != nil {
			return err
		}
	}
	if p.Purpose != nil {
		if r.Purpose, err = checkPurpose(*p.Purpose); err != nil {
			return err
		}
	}
	if p.Enabled != nil {
		r.Enabled = *p.Enabled
	}
	return nil
}

// staleSkill says a change was made against an older version.
func staleSkill(name string, current, sent int) error {
	return fmt.Errorf("skill %q is at version %d, not %d: it was changed since you read it; read it again and redo your change: %w",
		name, current, sent, ErrStale)
}

// DeleteSkill removes the skill; version, when set, must be the current one.
func (s *Service) DeleteSkill(ctx context.Context, personID, id string, version *int) error {
	r, err := s.skillRow(ctx, personID, id)
	if err != nil {
		return err
	}
	if version != nil && *version != r.Version {
		return staleSkill(r.Name, r.Version, *version)
	}
	if err := s.q(ctx).Delete(&storage.Skill{}, "id = ? AND person_id = ?", id, personID).Error; err != nil {
		return fmt.Errorf("delete skill %s: %w", id, err)
	}
	return nil
}

func (s *Service) skillRow(ctx context.Context, personID, id string) (storage.Skill, error) {
	if BadText(id) {
		return storage.Skill{}, skillNotFound(id)
	}
	return takeOne[storage.Skill](s.q(ctx).Where("id = ? AND person_id = ?", id, personID), skillNotFound(id), "get skill "+id)
}

func checkSkillInstructions(raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if err := CheckText("/instructions", v); err != nil {
		return "", err
	}
	if v == "" {
		return "", invalid("/instructions", "a skill needs instructions")
	}
	if n := utf8.RuneCountInString(v); n > MaxSkillInstructions {
		return "", invalid("/instructions", "a skill's instructions have at most %d characters, not %d", MaxSkillInstructions, n)
	}
	return v, nil
}

func checkPurpose(raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if v == "" {
		return "", nil
	}
	if len(v) > MaxSkillPurpose || !skillPurpose.MatchString(v) {
		return "", invalid("/purpose", "a purpose is a short lower-case name like morning-brief (letters, digits and dashes, at most %d)", MaxSkillPurpose)
	}
	return v, nil
}
