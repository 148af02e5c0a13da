package workspace

import (
	"context"
	"fmt"

	"hub/storage"
)

// forgetRoles drops the roles the transaction ctx carries has read: called
// by every change of memberships in it, so its later checks read again.
func (s *Service) forgetRoles(ctx context.Context) {
	if st := s.txOf(ctx); st != nil {
		st.mu.Lock()
		st.roles = nil
		st.mu.Unlock()
	}
}

// accessInTx is Access inside a transaction, read in it so a person removed
// or made a viewer since the activity started is refused at the write. On
// Postgres a removal committing meanwhile is ordered after the write. The
// answer is kept for the transaction's later checks.
func (s *Service) accessInTx(ctx context.Context, st *txState, personID, spaceID string) (Role, error) {
	key := [2]string{personID, spaceID}
	st.mu.Lock()
	role, ok := st.roles[key]
	st.mu.Unlock()
	if !ok {
		var rows []storage.Membership
		if err := s.q(ctx).Select("role").Where("space_id = ? AND person_id = ?", spaceID, personID).Limit(1).Find(&rows).Error; err != nil {
			return "", fmt.Errorf("access %s: %w", spaceID, err)
		}
		if len(rows) == 1 {
			role = Role(rows[0].Role)
		}
		st.mu.Lock()
		if st.roles == nil {
			st.roles = map[[2]string]Role{}
		}
		st.roles[key] = role
		st.mu.Unlock()
	}
	if role == "" {
		return "", &NotFoundError{Kind: "space", ID: spaceID}
	}
	return role, nil
}
