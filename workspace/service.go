package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/models"
)

// Service is the workspace domain over one database. Its methods run in
// the transaction their context carries (models.DB.InTx); a Service made
// by Tx runs every call in that transaction.
type Service struct {
	root *models.DB
	// db is the transaction a Service made by Tx runs in; nil outside.
	db  *gorm.DB
	now func() time.Time
	// subscribers is shared by every Service derived from one NewService,
	// so a write through any copy reaches every subscriber.
	subscribers *subscribers
	// models is the operator's model catalog (SetModels), shared the same
	// way.
	models *modelsHolder
	// batch holds the changes made inside the Tx this Service runs in until
	// that Tx ends; nil outside any Tx.
	batch *changeBatch
	// undoGroup is the Undo group writes record their entries in; "" records
	// none (a person's own writes on a screen).
	undoGroup string
	// connector checks and seals MCP connections; shared by every copy.
	connector *connectorRef
	// txRoles are the memberships read in the Tx this Service runs in
	// (shared with its savepoints); nil outside any Tx.
	txRoles *txRoles
}

type connectorRef struct{ c AppConnector }

// NewService returns a Service over db.
func NewService(db *models.DB) *Service {
	return &Service{root: db, now: func() time.Time { return time.Now().UTC() }, subscribers: &subscribers{}, models: &modelsHolder{}, connector: &connectorRef{}}
}

// withDB returns a Service that runs on the given handle. It keeps the
// receiver's subscribers, Undo group and, inside a Tx, that Tx's pending
// changes.
func (s *Service) withDB(db *gorm.DB) *Service {
	c := *s
	c.db = db
	return &c
}

// Tx runs fn in one database transaction: the one ctx carries
// (models.DB.InTx), or one of its own; inside another Tx it is a savepoint
// of that one. The changes fn makes reach subscribers only once the
// outermost transaction has committed, and never when it (or this
// savepoint) rolls back: a subscriber never hears of a record that does
// not exist.
func (s *Service) Tx(ctx context.Context, fn func(tx *Service) error) error {
	if s.db != nil {
		return s.savepoint(ctx, fn)
	}
	if !s.root.InTxNow(ctx) {
		return s.root.InTx(ctx, func(ctx context.Context) error { return s.Tx(ctx, fn) })
	}
	batch, roles := &changeBatch{}, &txRoles{}
	tx := s.withDB(s.root.Q(ctx))
	tx.batch, tx.txRoles = batch, roles
	err := fn(tx)
	models.AfterTx(ctx, func(txErr error) {
		ctx := models.Detach(ctx)
		if roles.forgot {
			// Committed or rolled back: what the activity remembered while
			// this transaction ran may be the state before its changes.
			s.forgetAccess(ctx)
		}
		if err == nil && txErr == nil {
			s.subscribers.deliver(ctx, batch.take())
		}
	})
	return err
}

// InTx runs fn in the database's one unit of work (models.DB.InTx): a
// transaction fn's context carries, which every store called with it
// joins. It is here for the packages the layer map keeps from models
// (toolrun: a Hub write and its outcome row commit together).
func (s *Service) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return s.root.InTx(ctx, fn)
}

// savepoint is Tx inside another: its changes join the enclosing Tx's
// once it is released.
func (s *Service) savepoint(ctx context.Context, fn func(tx *Service) error) error {
	batch := &changeBatch{}
	err := s.db.WithContext(ctx).Transaction(func(g *gorm.DB) error {
		tx := s.withDB(g)
		tx.batch = batch
		return fn(tx)
	})
	if err != nil {
		return err
	}
	s.batch.add(batch.take()...)
	return nil
}

// q is the handle the Service queries through: its Tx's, else the
// transaction ctx carries, else the pool.
func (s *Service) q(ctx context.Context) *gorm.DB {
	if s.db != nil {
		return s.db.WithContext(ctx)
	}
	return s.root.Q(ctx)
}

// Access returns the person's role in a space, or ErrNotFound when they have
// none: a space the person cannot open does not exist for them.
func (s *Service) Access(ctx context.Context, personID, spaceID string) (Role, error) {
	var m models.Membership
	if BadText(spaceID) {
		// No space has such an id; Postgres would refuse to look (22021).
		return "", &NotFoundError{Kind: "space", ID: spaceID}
	}
	if s.txRoles != nil {
		// A write's checks read in its own transaction, once (accessInTx),
		// never from an activity's earlier read.
		return s.accessInTx(ctx, personID, spaceID)
	}
	if memo := memoFrom(ctx); memo != nil {
		return s.accessOnce(ctx, memo, personID, spaceID) // an activity's one read (CheckAccessOnce)
	}
	err := s.q(ctx).Where("space_id = ? AND person_id = ?", spaceID, personID).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", &NotFoundError{Kind: "space", ID: spaceID}
	}
	if err != nil {
		return "", fmt.Errorf("access %s: %w", spaceID, err)
	}
	return Role(m.Role), nil
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

// startedOf is what the activity's start read, in its memo; nil inside a
// Tx, whose reads are the transaction's, or without a memo. The lock is
// held until done is called.
func (s *Service) startedOf(ctx context.Context) (st *started, done func()) {
	if s.txRoles != nil {
		return nil, func() {}
	}
	st, mu := startedIn(ctx)
	if st == nil {
		return nil, func() {}
	}
	mu.Lock()
	return st, mu.Unlock
}

// startName is a space's name as the activity's start read it.
func (s *Service) startName(ctx context.Context, spaceID string) (string, bool) {
	st, done := s.startedOf(ctx)
	defer done()
	if st == nil {
		return "", false
	}
	name, ok := st.spaceNames[spaceID]
	return name, ok
}

// startPerson is a person as the activity's start read them.
func (s *Service) startPerson(ctx context.Context, personID string) (Person, bool) {
	st, done := s.startedOf(ctx)
	defer done()
	if st == nil {
		return Person{}, false
	}
	p, ok := st.people[personID]
	return p, ok
}

// WithArticle puts "a" or "an" before a word for people to read: "an
// editor", "a viewer", "an owner".
func WithArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
