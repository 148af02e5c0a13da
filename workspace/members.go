package workspace

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"hub/models"
)

// RemoveMember ends a person's membership of a space. Only an owner may
// remove someone; any member may remove themselves (leave). The space's
// last owner cannot leave or be removed (ErrConflict): a space nobody can
// manage would be stuck. A person who is no member is ErrNotFound, and so
// is the whole request for someone who cannot open the space.
//
// From the moment this commits, the person reads nothing of the space: every
// read of its records, conversations, turns, streams, Applies and Undo
// groups checks their current membership.
func (s *Service) RemoveMember(ctx context.Context, actorID, spaceID, personID string) error {
	return s.changeMember(ctx, actorID, spaceID, personID, actorID != personID, "remove people from", func(tx *Service, m models.Membership) error {
		if Role(m.Role) == RoleOwner {
			if err := tx.keepAnOwner(ctx, spaceID, "remove"); err != nil {
				return err
			}
		}
		return tx.q(ctx).Where("space_id = ? AND person_id = ?", spaceID, personID).Delete(&models.Membership{}).Error
	})
}

// SetMemberRole changes a member's role in a space and returns the member.
// Only an owner may change roles, their own included; the last owner
// cannot step down (ErrConflict). An unknown role is invalid at /role.
func (s *Service) SetMemberRole(ctx context.Context, actorID, spaceID, personID string, role Role) (Person, error) {
	if _, err := ParseRole(string(role)); err != nil {
		return Person{}, err
	}
	var out Person
	err := s.changeMember(ctx, actorID, spaceID, personID, true, "change roles in", func(tx *Service, m models.Membership) error {
		if Role(m.Role) == RoleOwner && role != RoleOwner {
			if err := tx.keepAnOwner(ctx, spaceID, "change the role of"); err != nil {
				return err
			}
		}
		if err := tx.q(ctx).Model(&models.Membership{}).Where("space_id = ? AND person_id = ?", spaceID, personID).
			Update("role", string(role)).Error; err != nil {
			return err
		}
		p, err := tx.GetPerson(ctx, personID)
		out, out.Role = p, role
		return err
	})
	return out, err
}

// changeMember runs fn on the membership of personID in one transaction,
// after checking the actor can open the space (and owns it, when
// ownerOnly; what names the refused action). The transaction first locks
// the space row: every change of the space's members waits
// for the one before, so two owners demoting each other at once cannot both
// pass the last-owner check (on SQLite the same write takes the database's
// write lock before anything is read).
func (s *Service) changeMember(ctx context.Context, actorID, spaceID, personID string, ownerOnly bool, what string, fn func(tx *Service, m models.Membership) error) error {
	err := s.Tx(ctx, func(tx *Service) error {
		res := tx.q(ctx).Model(&models.Space{}).Where("id = ?", spaceID).Update("name", gorm.Expr("name"))
		if res.Error != nil {
			return fmt.Errorf("lock space %s: %w", spaceID, res.Error)
		}
		role, err := tx.Access(ctx, actorID, spaceID)
		if err != nil {
			return err
		}
		if ownerOnly && role != RoleOwner {
			return fmt.Errorf("only an owner may %s this space: %w", what, ErrForbidden)
		}
		var m models.Membership
		err = tx.q(ctx).Where("space_id = ? AND person_id = ?", spaceID, personID).Take(&m).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return &NotFoundError{Kind: "member", ID: personID}
		}
		if err != nil {
			return fmt.Errorf("member %s: %w", personID, err)
		}
		return fn(tx, m)
	})
	return err
}

// keepAnOwner refuses to take away the space's last owner.
func (s *Service) keepAnOwner(ctx context.Context, spaceID, what string) error {
	var owners int64
	if err := s.q(ctx).Model(&models.Membership{}).Where("space_id = ? AND role = ?", spaceID, string(RoleOwner)).
		Count(&owners).Error; err != nil {
		return fmt.Errorf("count owners of %s: %w", spaceID, err)
	}
	if owners <= 1 {
		return fmt.Errorf("cannot %s the space's last owner; make someone else an owner first: %w", what, ErrConflict)
	}
	return nil
}
