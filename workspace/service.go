package workspace

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// Service is the workspace domain over one database. Its methods run in
// the transaction their context carries (storage.DB.InTx), or each write in
// one of its own.
type Service struct {
	root   *storage.DB
	now    func() time.Time
	shared *shared
	// undoGroup is the Undo group writes record their entries in; "" none.
	undoGroup string
}

// shared is what every Service derived from one NewService shares.
type shared struct {
	subscribers subscribers
	catalog     ModelCatalog // SetModels
	connector   AppConnector // SetAppConnector
}

// NewService returns a Service over db.
func NewService(db *storage.DB) *Service {
	return &Service{root: db, now: func() time.Time { return time.Now().UTC() }, shared: &shared{}}
}

// InTx runs fn in the transaction its context carries, beginning one when
// there is none (storage.DB.InTx), for the packages the layer map keeps
// from models. Its changes reach subscribers only once the outermost
// transaction has committed, and never when it rolls back.
func (s *Service) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return s.root.InTx(ctx, fn)
}

// txState is what the workspace keeps for one transaction: the changes to
// deliver once it has committed and the roles its checks read ("": none).
type txState struct {
	mu      sync.Mutex
	changes []Change
	roles   map[[2]string]Role
}

type txStateKey struct{}

// txOf is the state of the transaction ctx carries; nil outside one. Its
// first use arranges the delivery of the changes after the commit.
func (s *Service) txOf(ctx context.Context) *txState {
	v := storage.Local(ctx, txStateKey{}, func() any {
		st := &txState{}
		storage.AfterTx(ctx, func(err error) {
			ctx := storage.Detach(ctx)
			if err == nil {
				st.mu.Lock()
				changes := st.changes
				st.mu.Unlock()
				s.shared.subscribers.deliver(ctx, changes)
			}
		})
		return st
	})
	if v == nil {
		return nil
	}
	return v.(*txState)
}

// q is the transaction ctx carries, else the pool.
func (s *Service) q(ctx context.Context) *gorm.DB { return s.root.Q(ctx) }

// Access returns the person's role in a space, or ErrNotFound when they have
// none: a space the person cannot open does not exist for them.
func (s *Service) Access(ctx context.Context, personID, spaceID string) (Role, error) {
	if BadText(spaceID) {
		// No space has such an id; Postgres would refuse to look (22021).
		return "", &NotFoundError{Kind: "space", ID: spaceID}
	}
	if st := s.txOf(ctx); st != nil {
		// A write's checks read in its own transaction, once (accessInTx).
		return s.accessInTx(ctx, st, personID, spaceID)
	}
	m, err := takeOne[storage.Membership](s.q(ctx).Where("space_id = ? AND person_id = ?", spaceID, personID),
		&NotFoundError{Kind: "space", ID: spaceID}, "access "+spaceID)
	return Role(m.Role), err
}

// CanWrite returns nil when the person may change records in the space,
// ErrNotFound when they cannot open it and ErrForbidden when they only read.
func (s *Service) CanWrite(ctx context.Context, personID, spaceID string) error {
	role, err := s.Access(ctx, personID, spaceID)
	if err != nil {
		return err
	}
	if !role.CanWrite() {
		return fmt.Errorf("%s may not change records in this space: %w", WithArticle(string(role)), ErrForbidden)
	}
	return nil
}

// WithArticle puts "a" or "an" before a word: "an editor", "a viewer".
func WithArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
