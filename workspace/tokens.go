package workspace

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

	"hub/storage"
)

// ErrUnauthenticated: no token, an unknown token, an expired one, or one
// whose scope does not cover the request.
var ErrUnauthenticated = errors.New("unauthenticated")

// StreamScope is the scope of a token that may only read one turn's stream.
func StreamScope(turnID string) string { return "stream:" + turnID }

// ActivityScope is the scope of a token that may only read its person's
// activity stream (GET /api/agent/stream).
const ActivityScope = "activity"

// OperatorScope is the scope of an operator's token: it reads the run
// inspector of any turn and nothing else. Its person is in no space.
const OperatorScope = "operator"

// CreateOperatorToken makes an operator (a new person in no space) named
// name and its operator token, named tokenName and expiring after ttl (0:
// never).
func (s *Service) CreateOperatorToken(ctx context.Context, actor Actor, name, tokenName string, ttl time.Duration) (personID, token string, err error) {
	name = strings.TrimSpace(name)
	if name == "" || BadText(name) || len(name) > 200 {
		return "", "", invalid("/name", "an operator is named by one line of at most 200 characters")
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		p := storage.Person{ID: storage.NewID("person"), Name: name}
		if err := s.q(ctx).Create(&p).Error; err != nil {
			return fmt.Errorf("create operator: %w", err)
		}
		personID = p.ID
		token, _, err = s.createNamedToken(ctx, actor, p.ID, OperatorScope, tokenName, ttl)
		return err
	})
	return personID, token, err
}

// CreateToken makes a new bearer token for the person; only its hash is
// stored. scope "" is a full token; a ttl makes it expire.
func (s *Service) CreateToken(ctx context.Context, personID, scope string, ttl time.Duration) (string, error) {
	token, err := newToken()
	if err != nil {
		return "", err
	}
	row := storage.APIToken{ID: storage.NewID("tok"), PersonID: personID, Hash: hashToken(token), Scope: scope, ExpiresAt: s.expiry(ttl), Prefix: tokenPrefix(token)}
	if err := s.q(ctx).Create(&row).Error; err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	return token, nil
}

// expiry is when a token made now for ttl expires; nil (never) for no ttl.
func (s *Service) expiry(ttl time.Duration) *time.Time {
	if ttl <= 0 {
		return nil
	}
	t := s.now().UTC().Add(ttl)
	return &t
}

// expired tells whether a token expiring at (nil: never) has expired.
func (s *Service) expired(at *time.Time) bool { return at != nil && !s.now().Before(*at) }

// CreateDerivedToken makes a token that reads only what scope names and
// expires after ttl, and returns it with its expiry. It derives from p's
// RootTokenID: deleted with it, expiring with it at the latest; a parent
// gone meanwhile is ErrUnauthenticated.
func (s *Service) CreateDerivedToken(ctx context.Context, p Person, scope string, ttl time.Duration) (string, time.Time, error) {
	if scope == "" || ttl <= 0 {
		return "", time.Time{}, errors.New("create scoped token: a scope and a ttl are required")
	}
	return s.derivedToken(ctx, p, scope, ttl, "create scoped token")
}

// CreateStreamToken makes the stream token of a starting turn in the
// transaction ctx carries, so the token and the turn commit together. It
// expires after ttl and derives from p as CreateDerivedToken's.
func (s *Service) CreateStreamToken(ctx context.Context, p Person, turnID string, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", errors.New("create stream token: a ttl is required")
	}
	token, _, err := s.derivedToken(ctx, p, StreamScope(turnID), ttl, "create stream token")
	return token, err
}

// derivedToken stores a token derived from p's root token (insertDerived).
func (s *Service) derivedToken(ctx context.Context, p Person, scope string, ttl time.Duration, what string) (string, time.Time, error) {
	token, err := newToken()
	if err != nil {
		return "", time.Time{}, err
	}
	exp := s.now().UTC().Add(ttl)
	if parent := p.RootTokenExpiresAt; parent != nil && parent.Before(exp) {
		exp = parent.UTC()
	}
	row := storage.APIToken{ID: storage.NewID("tok"), PersonID: p.ID, Hash: hashToken(token), Scope: scope, ExpiresAt: &exp, ParentID: p.RootTokenID, CreatedAt: s.now().UTC()}
	if err := insertDerived(s.q(ctx), row); err != nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", what, err)
	}
	return token, exp, nil
}

// insertDerived stores a token derived from row.ParentID ("": none) in one
// statement, only while its parent is there (else ErrUnauthenticated).
func insertDerived(q *gorm.DB, row storage.APIToken) error {
	if row.ParentID == "" {
		return q.Create(&row).Error
	}
	res := q.Exec("INSERT INTO api_tokens (id, person_id, hash, scope, expires_at, created_at, parent_id) "+
		"SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM api_tokens WHERE id = ?)",
		row.ID, row.PersonID, row.Hash, row.Scope, row.ExpiresAt, row.CreatedAt, row.ParentID, row.ParentID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrUnauthenticated
	}
	return nil
}

func newToken() (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	return "hub_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}

// Authenticate returns the person of a token sent in the Authorization
// header. A scoped token is accepted only for the scope asked for; a full
// token for every scope.
func (s *Service) Authenticate(ctx context.Context, token, scope string) (Person, error) {
	return s.authenticate(ctx, token, scope, false)
}

// AuthenticateScoped is Authenticate for a token from a URL
// (?streamToken=): only a token of exactly that scope is accepted, never a
// full token, since URLs end up in logs and browser history.
func (s *Service) AuthenticateScoped(ctx context.Context, token, scope string) (Person, error) {
	if scope == "" {
		return Person{}, ErrUnauthenticated
	}
	return s.authenticate(ctx, token, scope, true)
}

func (s *Service) authenticate(ctx context.Context, token, scope string, scopedOnly bool) (Person, error) {
	if token == "" {
		return Person{}, ErrUnauthenticated
	}
	// The token and its person in one read: a token whose person is gone
	// finds no row, as an unknown one.
	var rows []struct {
		Person
		TokenID, Scope, ParentID string
		ExpiresAt, LastUsedAt    *time.Time
	}
	err := s.q(ctx).Table("api_tokens").
		Select(personColumns+", api_tokens.id AS token_id, api_tokens.scope, api_tokens.expires_at, "+
			"api_tokens.last_used_at, api_tokens.parent_id").
		Joins("JOIN people ON people.id = api_tokens.person_id").
		Where("api_tokens.hash = ?", hashToken(token)).Limit(1).Scan(&rows).Error
	if err != nil {
		return Person{}, fmt.Errorf("authenticate: %w", err)
	}
	if len(rows) == 0 {
		return Person{}, ErrUnauthenticated
	}
	row := rows[0]
	if s.expired(row.ExpiresAt) {
		return Person{}, ErrUnauthenticated
	}
	if row.Scope != scope && (row.Scope != "" || scopedOnly) {
		return Person{}, ErrUnauthenticated
	}
	p := row.Person
	if row.Scope == "" || row.Scope == OperatorScope {
		p.RootTokenID, p.RootTokenExpiresAt = row.TokenID, row.ExpiresAt
		s.touchToken(ctx, row.TokenID, row.LastUsedAt)
	} else {
		// A stream token: nothing is derived from a stream's request, so
		// its parent's expiry is not read.
		p.RootTokenID = row.ParentID
	}
	return p, nil
}

// personColumns read a token's person into a Person.
const personColumns = "people.id, people.name, people.first_name AS given_name, people.persona"

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
