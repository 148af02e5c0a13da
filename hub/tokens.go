package hub

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/models"
)

// ErrUnauthenticated: no token, an unknown token, an expired one, or one
// whose scope does not cover the request.
var ErrUnauthenticated = errors.New("unauthenticated")

// StreamScope is the scope of a token that may only read one turn's stream.
func StreamScope(turnID string) string { return "stream:" + turnID }

// CreateToken makes a new bearer token for the person and returns it; only
// its hash is stored. scope "" is a full token; a scoped token with a ttl
// expires.
func (s *Service) CreateToken(ctx context.Context, personID, scope string, ttl time.Duration) (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	token := "hub_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
	row := models.APIToken{ID: models.NewID("tok"), PersonID: personID, Hash: hashToken(token), Scope: scope}
	if ttl > 0 {
		exp := s.now().Add(ttl)
		row.ExpiresAt = &exp
	}
	if err := s.q(ctx).Create(&row).Error; err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	return token, nil
}

// Authenticate returns the person a token belongs to. A scoped token is
// accepted only for the scope asked for; a full token for every scope.
func (s *Service) Authenticate(ctx context.Context, token, scope string) (Person, error) {
	if token == "" {
		return Person{}, ErrUnauthenticated
	}
	var row models.APIToken
	err := s.q(ctx).Where("hash = ?", hashToken(token)).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Person{}, ErrUnauthenticated
	}
	if err != nil {
		return Person{}, fmt.Errorf("authenticate: %w", err)
	}
	if row.ExpiresAt != nil && !s.now().Before(*row.ExpiresAt) {
		return Person{}, ErrUnauthenticated
	}
	if row.Scope != "" && row.Scope != scope {
		return Person{}, ErrUnauthenticated
	}
	p, err := s.GetPerson(ctx, row.PersonID)
	if errors.Is(err, ErrNotFound) {
		return Person{}, ErrUnauthenticated
	}
	return p, err
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
