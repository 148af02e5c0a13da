package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// A token's lifecycle (docs/api.md, "Tokens"): a full or operator token has
// a name, a prefix, creation and last-use times and an optional expiry; it
// is listed (never its secret), revoked, and swept once expired, each with
// an audit entry. Stream tokens and browser sessions derive from one
// (ParentID), are deleted with it, and are neither listed nor audited.

// AuditToken is the audit kind of a token's events: AuditCreated,
// AuditRevoked, AuditExpired (expired and swept).
const (
	AuditToken   = "token"
	AuditRevoked = "revoked"
	AuditExpired = "expired"
)

// How a token's event arrived besides ViaREST: the hub CLI, run by the
// server's operator (no person: the actor is empty), or the sweeper.
const (
	ViaCLI   = "cli"
	ViaSweep = "sweep"
)

// LastUseEvery: a token's last-use time is written at most this often
// (a request within it of the last write writes nothing).
const LastUseEvery = time.Minute

// TokenInfo is what is shown of a token: never the token itself.
type TokenInfo struct {
	ID         string
	Name       string
	PersonID   string
	PersonName string
	Operator   bool
	Prefix     string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	ExpiresAt  *time.Time
}

// listedScope: the scopes of the tokens the lifecycle manages.
var listedScope = []string{"", OperatorScope}

// tokenPrefix is the token's first characters ("hub_" and 8 more, 40 of
// its 160 random bits): enough to tell tokens apart, too few to guess it.
func tokenPrefix(token string) string { return token[:min(len(token), 12)] }

// CreateNamedToken makes a full token for the person, named name and
// expiring after ttl (0: never), audits it (auditToken) and returns the
// token and its info.
func (s *Service) CreateNamedToken(ctx context.Context, actor Actor, personID, name string, ttl time.Duration) (token string, info TokenInfo, err error) {
	err = s.InTx(ctx, func(ctx context.Context) error {
		token, info, err = s.createNamedToken(ctx, actor, personID, "", name, ttl)
		return err
	})
	return token, info, err
}

func (s *Service) createNamedToken(ctx context.Context, actor Actor, personID, scope, name string, ttl time.Duration) (string, TokenInfo, error) {
	name = strings.TrimSpace(name)
	if BadText(name) || len(name) > 200 || strings.ContainsAny(name, "\r\n") {
		return "", TokenInfo{}, invalid("/name", "a token's name is one line of at most 200 characters")
	}
	if ttl < 0 {
		return "", TokenInfo{}, invalid("/ttl", "a token's ttl is positive (or 0: it never expires)")
	}
	exp := s.expiry(ttl)
	token, err := newToken()
	if err != nil {
		return "", TokenInfo{}, err
	}
	row := storage.APIToken{ID: storage.NewID("tok"), PersonID: personID, Hash: hashToken(token), Scope: scope, ExpiresAt: exp,
		Name: name, Prefix: tokenPrefix(token), CreatedAt: s.now().UTC()}
	if err := s.q(ctx).Create(&row).Error; err != nil {
		return "", TokenInfo{}, fmt.Errorf("create token: %w", err)
	}
	if err := s.auditToken(ctx, actor, row, AuditCreated); err != nil {
		return "", TokenInfo{}, err
	}
	info, err := s.tokenInfo(ctx, row.ID)
	return token, info, err
}

// auditToken records a token's event in every space its person is in, or,
// for a person in none, in Hub's own log (HubAudit): every token's event is
// somewhere an owner or the operator reads it.
func (s *Service) auditToken(ctx context.Context, actor Actor, row storage.APIToken, action string) error {
	var person storage.Person
	if err := s.q(ctx).Where("id = ?", row.PersonID).Limit(1).Find(&person).Error; err != nil {
		return fmt.Errorf("audit token: %w", err)
	}
	var spaces []string
	if err := s.q(ctx).Model(&storage.Membership{}).Where("person_id = ?", row.PersonID).Pluck("space_id", &spaces).Error; err != nil {
		return fmt.Errorf("audit token: %w", err)
	}
	label := row.Prefix
	if row.Name != "" {
		label = fmt.Sprintf("%q (%s)", row.Name, row.Prefix)
	}
	summary := fmt.Sprintf("token %s of %s %s", label, person.Name, action)
	changes := map[string]any{"name": row.Name, "prefix": row.Prefix, "personId": row.PersonID}
	if row.ExpiresAt != nil {
		changes["expiresAt"] = row.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if len(spaces) == 0 {
		spaces = []string{""} // Hub's own log
	}
	for _, sp := range spaces {
		if err := s.audit(ctx, actor, sp, AuditToken, action, row.ID, summary, changes); err != nil {
			return err
		}
	}
	return nil
}

// ListTokens lists the full and operator tokens of the person personID
// (""), or of the people named personName (""), or every one, oldest first.
func (s *Service) ListTokens(ctx context.Context, personID, personName string) ([]TokenInfo, error) {
	q := s.tokenQuery(ctx)
	if personID != "" {
		q = q.Where("api_tokens.person_id = ?", personID)
	}
	if personName != "" {
		q = q.Where("people.name = ?", strings.TrimSpace(personName))
	}
	out := []TokenInfo{}
	if err := q.Order("api_tokens.created_at, api_tokens.id").Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

func (s *Service) tokenQuery(ctx context.Context) *gorm.DB {
	return s.q(ctx).Table("api_tokens").
		Select("api_tokens.id, api_tokens.name, api_tokens.person_id, people.name AS person_name, api_tokens.scope = ? AS operator, "+
			"api_tokens.prefix, api_tokens.created_at, api_tokens.last_used_at, api_tokens.expires_at", OperatorScope).
		Joins("JOIN people ON people.id = api_tokens.person_id").
		Where("api_tokens.scope IN ?", listedScope)
}

func (s *Service) tokenInfo(ctx context.Context, id string) (TokenInfo, error) {
	var out []TokenInfo
	if err := s.tokenQuery(ctx).Where("api_tokens.id = ?", id).Limit(1).Scan(&out).Error; err != nil {
		return TokenInfo{}, fmt.Errorf("read token: %w", err)
	}
	if len(out) == 0 {
		return TokenInfo{}, fmt.Errorf("token %s: %w", id, ErrNotFound)
	}
	return out[0], nil
}

// RevokeToken deletes the full or operator token tokenID and the stream
// tokens and sessions derived from it, with an audit entry by actor.
// ownerID, when not "", must be the token's person: anyone else's token is
// ErrNotFound, as an unknown one.
func (s *Service) RevokeToken(ctx context.Context, actor Actor, ownerID, tokenID string) error {
	return s.InTx(ctx, func(ctx context.Context) error {
		q := s.q(ctx).Where("id = ? AND scope IN ?", tokenID, listedScope)
		if ownerID != "" {
			q = q.Where("person_id = ?", ownerID)
		}
		row, err := takeOne[storage.APIToken](q, fmt.Errorf("token %s: %w", tokenID, ErrNotFound), "revoke token")
		if err != nil {
			return err
		}
		_, err = s.deleteToken(ctx, actor, row, AuditRevoked)
		return err
	})
}

// RevokePersonTokens revokes and returns the tokens ListTokens lists for personName.
func (s *Service) RevokePersonTokens(ctx context.Context, actor Actor, personName string) ([]TokenInfo, error) {
	list, err := s.ListTokens(ctx, "", personName)
	if err != nil {
		return nil, err
	}
	for _, t := range list {
		if err := s.RevokeToken(ctx, actor, "", t.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return list, nil
}

// deleteToken deletes a token and what derives from it and audits the
// action, only if the token was still there (so a sweep racing a
// revocation audits once), and says whether it was.
func (s *Service) deleteToken(ctx context.Context, actor Actor, row storage.APIToken, action string) (bool, error) {
	res := s.q(ctx).Where("id = ?", row.ID).Delete(&storage.APIToken{})
	if res.Error != nil {
		return false, fmt.Errorf("delete token: %w", res.Error)
	}
	err := s.q(ctx).Where("parent_id = ? OR scope = ?", row.ID, sessionPrefix+row.ID).Delete(&storage.APIToken{}).Error
	if err != nil {
		return false, fmt.Errorf("delete the tokens derived from %s: %w", row.ID, err)
	}
	if res.RowsAffected != 1 {
		return false, nil
	}
	return true, s.auditToken(ctx, actor, row, action)
}

// TokenAlive says whether the token id (a Person.RootTokenID; "": none,
// true) is there and unexpired. An open stream asks it every few seconds,
// so the streams of a revoked or expired token, and of what derives from
// it, end.
func (s *Service) TokenAlive(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return true, nil
	}
	var rows []storage.APIToken
	if err := s.q(ctx).Select("id", "expires_at").Where("id = ?", id).Limit(1).Find(&rows).Error; err != nil {
		return false, fmt.Errorf("recheck token: %w", err)
	}
	if len(rows) == 0 {
		return false, nil
	}
	return !s.expired(rows[0].ExpiresAt), nil
}

// touchToken writes a token's last-use time when its last write is
// LastUseEvery ago or more, conditionally, so concurrent requests write
// once. A failure is only logged.
func (s *Service) touchToken(ctx context.Context, id string, last *time.Time) {
	now := s.now().UTC()
	if id == "" || (last != nil && now.Sub(*last) < LastUseEvery) {
		return
	}
	err := s.q(ctx).Model(&storage.APIToken{}).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at <= ?)", id, now.Add(-LastUseEvery)).
		Update("last_used_at", now).Error
	if err != nil && ctx.Err() == nil {
		slog.WarnContext(ctx, "token last use", "token", id, "error", err)
	}
}

// DeleteExpiredTokens removes the expired tokens (every turn makes a stream
// token) and returns how many; an expired full or operator token is an
// audit entry (ViaSweep).
func (s *Service) DeleteExpiredTokens(ctx context.Context) (int64, error) {
	now := s.now().UTC()
	var listed []storage.APIToken
	if err := s.q(ctx).Where("expires_at IS NOT NULL AND expires_at <= ? AND scope IN ?", now, listedScope).Find(&listed).Error; err != nil {
		return 0, fmt.Errorf("delete expired tokens: %w", err)
	}
	var n int64
	for _, row := range listed {
		err := s.InTx(ctx, func(ctx context.Context) error {
			gone, err := s.deleteToken(ctx, Actor{Via: ViaSweep}, row, AuditExpired)
			if gone {
				n++
			}
			return err
		})
		if err != nil {
			return n, fmt.Errorf("delete expired tokens: %w", err)
		}
	}
	res := s.q(ctx).Where("expires_at IS NOT NULL AND expires_at <= ?", now).Delete(&storage.APIToken{})
	if res.Error != nil {
		return n, fmt.Errorf("delete expired tokens: %w", res.Error)
	}
	return n + res.RowsAffected, nil
}
