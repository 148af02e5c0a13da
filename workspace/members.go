package workspace

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"hub/storage"
)

// RemoveMember ends a person's membership of a space (RemovePerson). From
// the moment this commits, the person reads nothing of the space: every
// read checks their current membership.
func (s *Service) RemoveMember(ctx context.Context, actorID, spaceID, personID string) error {
	_, err := s.RemovePerson(ctx, Actor{PersonID: actorID, Via: ViaREST}, spaceID, personID)
	return err
}

// SetMemberRole changes a member's role in a space and returns the member:
// UpdatePerson with only a role and no revision check.
func (s *Service) SetMemberRole(ctx context.Context, actorID, spaceID, personID string, role Role) (Person, error) {
	return s.UpdatePerson(ctx, Actor{PersonID: actorID, Via: ViaREST}, spaceID, personID, PersonPatch{Role: &role})
}

// lockedSpace runs fn in one transaction after locking the space row and
// checking the actor can open the space (and owns it, when ownerOnly; what
// names the refused action). Changes of the space's members take turns, so
// two owners demoting each other at once cannot both pass the last-owner
// check.
func (s *Service) lockedSpace(ctx context.Context, actorID, spaceID string, ownerOnly bool, what string, fn func(ctx context.Context) error) error {
	if BadText(spaceID) {
		return &NotFoundError{Kind: "space", ID: spaceID}
	}
	return s.InTx(ctx, func(ctx context.Context) error {
		if err := s.lockRow(ctx, &storage.Space{}, spaceID); err != nil {
			return fmt.Errorf("lock space %s: %w", spaceID, err)
		}
		role, err := s.Access(ctx, actorID, spaceID)
		if err != nil {
			return err
		}
		if ownerOnly && role != RoleOwner {
			return fmt.Errorf("only an owner may %s this space: %w", what, ErrForbidden)
		}
		return fn(ctx)
	})
}

// lockRow takes the write lock of one row for the rest of the transaction:
// a change that counts rows it owns locks the owner first, so a racing
// change waits and then counts what this one added. A no-op update works
// on both engines (SQLite has no row locks).
func (s *Service) lockRow(ctx context.Context, model any, id string) error {
	return s.q(ctx).Model(model).Where("id = ?", id).UpdateColumn("id", gorm.Expr("id")).Error
}

// keepAnOwner refuses to take away the space's last owner: a change of a
// person's role from one to another (to "": removed).
func (s *Service) keepAnOwner(ctx context.Context, spaceID string, from, to Role) error {
	if from != RoleOwner || to == RoleOwner {
		return nil
	}
	what := "change the role of"
	if to == "" {
		what = "remove"
	}
	var owners int64
	if err := s.q(ctx).Model(&storage.Membership{}).Where("space_id = ? AND role = ?", spaceID, string(RoleOwner)).
		Count(&owners).Error; err != nil {
		return fmt.Errorf("count owners of %s: %w", spaceID, err)
	}
	if owners <= 1 {
		return fmt.Errorf("cannot %s the space's last owner; make someone else an owner first: %w", what, ErrConflict)
	}
	return nil
}
