package workspace

import (
	"context"
	"fmt"
	"time"

	"hub/storage"
)

// A browser session is what a full token is exchanged for (POST
// /api/session): a random value in an HttpOnly cookie, so the console's
// script never holds the token. Only its hash is stored, in api_tokens,
// with the scope sessionPrefix + the id of its token; every request checks
// both in one read, so a session dies with its token and its person. Its
// scope makes it useless as a bearer or stream token.
const sessionPrefix = "session:"

// SessionTTL is how long a browser session lasts at most (its token's
// expiry, when sooner, ends it first).
const SessionTTL = 7 * 24 * time.Hour

// CreateSession exchanges a full token for a new browser session and
// returns the session's value and when it expires. A scoped, expired or
// unknown token is ErrUnauthenticated.
func (s *Service) CreateSession(ctx context.Context, token string) (session string, expires time.Time, err error) {
	if token == "" {
		return "", time.Time{}, ErrUnauthenticated
	}
	var parents []Person // the token's
	err = s.q(ctx).Table("api_tokens").
		Select("api_tokens.person_id AS id, api_tokens.id AS root_token_id, api_tokens.expires_at AS root_token_expires_at").
		Joins("JOIN people ON people.id = api_tokens.person_id").
		Where("api_tokens.hash = ? AND api_tokens.scope = ?", hashToken(token), "").Limit(1).Scan(&parents).Error
	if err != nil {
		return "", time.Time{}, fmt.Errorf("create session: %w", err)
	}
	if len(parents) == 0 || s.expired(parents[0].RootTokenExpiresAt) {
		return "", time.Time{}, ErrUnauthenticated
	}
	// Derived from the token: stored only while it is there, expiring with
	// it at the latest.
	return s.derivedToken(ctx, parents[0], sessionPrefix+parents[0].RootTokenID, SessionTTL, "create session")
}

// AuthenticateSession returns the person of a browser session, read with
// its token in one statement. A session whose token is gone or expired is
// ErrUnauthenticated, as an unknown or expired one.
func (s *Service) AuthenticateSession(ctx context.Context, session string) (Person, error) {
	if session == "" {
		return Person{}, ErrUnauthenticated
	}
	var rows []struct {
		Person
		ExpiresAt, TokenLastUsed *time.Time
	}
	err := s.q(ctx).Table("api_tokens AS sessions").
		Select(personColumns+", tokens.id AS root_token_id, tokens.expires_at AS root_token_expires_at, "+
			"tokens.last_used_at AS token_last_used, sessions.expires_at").
		Joins("JOIN api_tokens AS tokens ON tokens.id = substr(sessions.scope, ?) AND tokens.person_id = sessions.person_id AND tokens.scope = ''", len(sessionPrefix)+1).
		Joins("JOIN people ON people.id = sessions.person_id").
		Where("sessions.hash = ? AND sessions.scope LIKE ?", hashToken(session), sessionPrefix+"%").Limit(1).Scan(&rows).Error
	if err != nil {
		return Person{}, fmt.Errorf("authenticate session: %w", err)
	}
	if len(rows) == 0 {
		return Person{}, ErrUnauthenticated
	}
	row := rows[0]
	if s.expired(row.ExpiresAt) || s.expired(row.RootTokenExpiresAt) {
		return Person{}, ErrUnauthenticated
	}
	s.touchToken(ctx, row.RootTokenID, row.TokenLastUsed)
	return row.Person, nil
}

// DeleteSession ends a browser session; an unknown one is no error.
func (s *Service) DeleteSession(ctx context.Context, session string) error {
	if session == "" {
		return nil
	}
	if err := s.q(ctx).Where("hash = ? AND scope LIKE ?", hashToken(session), sessionPrefix+"%").Delete(&storage.APIToken{}).Error; err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// SignInTokenName names the token a browser sign-in through the identity
// provider makes (CreateSignInSession) in its person's list of tokens.
const SignInTokenName = "browser sign-in through the identity provider"

// CreateSignInSession makes the browser session of a person the identity
// provider signed in. A session derives from a full token, so the sign-in
// makes one, named SignInTokenName and expiring with the session, whose
// value nobody is given; revoking it ends the session.
func (s *Service) CreateSignInSession(ctx context.Context, personID string) (session string, expires time.Time, err error) {
	err = s.InTx(ctx, func(ctx context.Context) error {
		token, _, err := s.createNamedToken(ctx, Actor{PersonID: personID, Via: ViaREST}, personID, "", SignInTokenName, SessionTTL)
		if err != nil {
			return err
		}
		session, expires, err = s.CreateSession(ctx, token)
		return err
	})
	return session, expires, err
}
