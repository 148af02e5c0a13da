package workspace

import (
	"context"
	"fmt"
	"sync"

	"hub/storage"
)

// forgetRoles drops the roles the transaction ctx carries has read: called
// by every change of memberships in it, so its later checks read again.
func (s *Service) forgetRoles(ctx context.Context) {
	if st := s.txOf(ctx); st != nil {
		r := &st.roles
		r.mu.Lock()
		r.roles = nil
		r.mu.Unlock()
	}
}

// txRoles are the roles a transaction read (txState).
type txRoles struct {
	mu    sync.Mutex
	roles map[[2]string]Role // "" for none
}

// accessInTx is Access inside a transaction, read in it so a person removed
// or made a viewer since the activity started is refused at the write. On
// Postgres a removal committing meanwhile is ordered after the write. The
// answer is kept for the transaction's later checks.
func (s *Service) accessInTx(ctx context.Context, roles *txRoles, personID, spaceID string) (Role, error) {
	key := [2]string{personID, spaceID}
	roles.mu.Lock()
	role, ok := roles.roles[key]
	roles.mu.Unlock()
	if !ok {
		var rows []storage.Membership
		if err := s.q(ctx).Select("role").Where("space_id = ? AND person_id = ?", spaceID, personID).Limit(1).Find(&rows).Error; err != nil {
			return "", fmt.Errorf("access %s: %w", spaceID, err)
		}
		if len(rows) == 1 {
			role = Role(rows[0].Role)
		}
		roles.mu.Lock()
		if roles.roles == nil {
			roles.roles = map[[2]string]Role{}
		}
		roles.roles[key] = role
		roles.mu.Unlock()
	}
	if role == "" {
		return "", &NotFoundError{Kind: "space", ID: spaceID}
	}
	return role, nil
}
