package hub

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"hub/models"
)

// Service is the workspace domain over one database handle. A Service made
// by Tx runs every call in that transaction.
type Service struct {
	db  *gorm.DB
	now func() time.Time
}

// NewService returns a Service over db.
func NewService(db *models.DB) *Service {
	return &Service{db: db.DB, now: func() time.Time { return time.Now().UTC() }}
}

// WithDB returns a Service that runs on the given handle, typically a
// transaction the caller shares with its own writes (a tool call's receipt
// is written in the same transaction as the records it changed).
func (s *Service) WithDB(db *gorm.DB) *Service {
	c := *s
	c.db = db
	return &c
}

// Tx runs fn in one database transaction.
func (s *Service) Tx(ctx context.Context, fn func(tx *Service) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(s.WithDB(tx))
	})
}

// DB exposes the handle, for callers that write their own rows in the same
// transaction.
func (s *Service) DB() *gorm.DB { return s.db }

func (s *Service) q(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

// Access returns the person's role in a space, or ErrNotFound when they have
// none: a space the person cannot open does not exist for them.
func (s *Service) Access(ctx context.Context, personID, spaceID string) (Role, error) {
	var m models.Membership
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
		return fmt.Errorf("a %s may not change records in this space: %w", role, ErrForbidden)
	}
	return nil
}
