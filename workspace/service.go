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

// Service is the workspace domain over one database handle. A Service made
// by Tx runs every call in that transaction.
type Service struct {
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
	// tx is the transaction this Service runs in (Tx), for other stores
	// to join; nil outside any Tx.
	tx *models.Tx
	// connector checks and seals MCP connections; shared by every copy.
	connector *connectorRef
	// txRoles are the memberships read in the Tx this Service runs in
	// (shared with its savepoints); nil outside any Tx.
	txRoles *txRoles
}

type connectorRef struct{ c AppConnector }

// NewService returns a Service over db.
func NewService(db *models.DB) *Service {
	return &Service{db: db.DB, now: func() time.Time { return time.Now().UTC() }, subscribers: &subscribers{}, models: &modelsHolder{}, connector: &connectorRef{}}
}

// withDB returns a Service that runs on the given handle. It keeps the
// receiver's subscribers, Undo group and, inside a Tx, that Tx's pending
// changes.
func (s *Service) withDB(db *gorm.DB) *Service {
	c := *s
	c.db = db
	return &c
}

// Tx runs fn in one database transaction; inside another Tx it is a
// savepoint of that one. The changes fn makes reach subscribers only once the
// outermost Tx has committed, and never when it (or this savepoint) rolls
// back: a subscriber never hears of a record that does not exist.
func (s *Service) Tx(ctx context.Context, fn func(tx *Service) error) error {
	batch := &changeBatch{}
	roles := s.txRoles
	if roles == nil {
		roles = &txRoles{}
	}
	err := models.Transaction(ctx, s.db, func(t *models.Tx) error {
		tx := s.withDB(t.Handle())
		tx.batch, tx.tx, tx.txRoles = batch, t, roles
		return fn(tx)
	})
	if s.tx == nil && roles.forgot {
		// Committed or rolled back: what the activity remembered while
		// this transaction ran may be the state before its changes.
		s.forgetAccess(ctx)
	}
	if err != nil {
		return err
	}
	if s.batch != nil {
		// A savepoint released: its changes now belong to the enclosing Tx.
		s.batch.add(batch.take()...)
		return nil
	}
	s.subscribers.deliver(ctx, batch.take())
	return nil
}

// Shared returns the transaction this Service runs in, for another store to
// write its rows in it (chat.Store.In: a tool call's outcome commits with
// the records the call changed); nil outside any Tx. The changes made in it
// reach subscribers once the outermost Tx has committed, as every other
// change of that Tx does.
func (s *Service) Shared() *models.Tx { return s.tx }

func (s *Service) q(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

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
