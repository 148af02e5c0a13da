package workspace_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/workspace"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		full, err := f.svc.CreateToken(ctx, f.owner.PersonID, "", 0)
		require.NoError(t, err)
		stream, err := f.svc.CreateToken(ctx, f.owner.PersonID, workspace.StreamScope("turn_a"), time.Hour)
		require.NoError(t, err)
		require.NotEqual(t, full, stream)
		require.Regexp(t, `^hub_[a-z2-7]{32}$`, full)
		// One character changed (to another: a token ends in "x" one time
		// in 32).
		changed := full[:len(full)-1] + "x"
		if full[len(full)-1] == 'x' {
			changed = full[:len(full)-1] + "y"
		}

		for _, tc := range []struct {
			name  string
			token string
			scope string
			ok    bool
		}{
			{"full token, no scope", full, "", true},
			{"full token covers a stream", full, workspace.StreamScope("turn_a"), true},
			{"stream token for its turn", stream, workspace.StreamScope("turn_a"), true},
			{"stream token for another turn", stream, workspace.StreamScope("turn_b"), false},
			{"stream token for the whole api", stream, "", false},
			{"unknown token", "hub_notatoken", "", false},
			{"empty token", "", "", false},
			{"a token with a character changed", changed, "", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p, err := f.svc.Authenticate(ctx, tc.token, tc.scope)
				if !tc.ok {
					require.ErrorIs(t, err, workspace.ErrUnauthenticated)
					require.Empty(t, p.ID)
					return
				}
				require.NoError(t, err)
				require.Equal(t, f.owner.PersonID, p.ID)
				require.Equal(t, "Olive Owner", p.Name)
			})
		}

		// Only the hash is stored.
		var rows []storage.APIToken
		require.NoError(t, f.db.Find(&rows).Error)
		require.Len(t, rows, 2)
		for _, r := range rows {
			require.NotEqual(t, full, r.Hash)
			require.NotEqual(t, stream, r.Hash)
			require.NotContains(t, r.Hash, "hub_")
		}
	})
}

func TestTokenExpiry(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		f.svc.SetNow(func() time.Time { return now })
		token, err := f.svc.CreateToken(ctx, f.owner.PersonID, workspace.StreamScope("turn_a"), time.Hour)
		require.NoError(t, err)
		full, err := f.svc.CreateToken(ctx, f.owner.PersonID, "", 0)
		require.NoError(t, err)

		now = now.Add(time.Hour - time.Second)
		_, err = f.svc.Authenticate(ctx, token, workspace.StreamScope("turn_a"))
		require.NoError(t, err, "valid until its hour is up")

		now = now.Add(time.Second)
		_, err = f.svc.Authenticate(ctx, token, workspace.StreamScope("turn_a"))
		require.ErrorIs(t, err, workspace.ErrUnauthenticated, "expired at exactly its ttl")

		now = now.AddDate(10, 0, 0)
		_, err = f.svc.Authenticate(ctx, full, "")
		require.NoError(t, err, "a token without ttl does not expire")
	})
}

func TestTokenOfDeletedPerson(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		token, err := f.svc.CreateToken(ctx, f.guest.PersonID, "", 0)
		require.NoError(t, err)
		require.NoError(t, f.db.Delete(&storage.Person{}, "id = ?", f.guest.PersonID).Error)
		_, err = f.svc.Authenticate(ctx, token, "")
		require.ErrorIs(t, err, workspace.ErrUnauthenticated)
	})
}

// A token from a URL must be a token of exactly the scope asked for: a
// full token is refused there, though it covers every scope in the
// Authorization header.
func TestAuthenticateScopedRefusesAFullToken(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		full, err := f.svc.CreateToken(ctx, f.owner.PersonID, "", 0)
		require.NoError(t, err)
		turnA, _, err := f.svc.CreateDerivedToken(ctx, workspace.Person{ID: f.owner.PersonID}, workspace.StreamScope("turn_a"), time.Hour)
		require.NoError(t, err)
		activity, _, err := f.svc.CreateDerivedToken(ctx, workspace.Person{ID: f.owner.PersonID}, workspace.ActivityScope, time.Hour)
		require.NoError(t, err)

		for _, tc := range []struct {
			name  string
			token string
			scope string
			ok    bool
		}{
			{"full token for a stream", full, workspace.StreamScope("turn_a"), false},
			{"full token for the activity stream", full, workspace.ActivityScope, false},
			{"full token, no scope", full, "", false},
			{"stream token for its turn", turnA, workspace.StreamScope("turn_a"), true},
			{"stream token for another turn", turnA, workspace.StreamScope("turn_b"), false},
			{"stream token for the activity stream", turnA, workspace.ActivityScope, false},
			{"activity token for the activity stream", activity, workspace.ActivityScope, true},
			{"activity token for a turn's stream", activity, workspace.StreamScope("turn_a"), false},
			{"empty token", "", workspace.ActivityScope, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p, err := f.svc.AuthenticateScoped(ctx, tc.token, tc.scope)
				if !tc.ok {
					require.ErrorIs(t, err, workspace.ErrUnauthenticated)
					require.Empty(t, p.ID)
					return
				}
				require.NoError(t, err)
				require.Equal(t, f.owner.PersonID, p.ID)
			})
		}
		// In the header the activity token is no bearer token either.
		_, err = f.svc.Authenticate(ctx, activity, "")
		require.ErrorIs(t, err, workspace.ErrUnauthenticated)
	})
}

// Expired tokens are deleted; the others stay.
func TestDeleteExpiredTokens(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		f.svc.SetNow(func() time.Time { return now })
		full, err := f.svc.CreateToken(ctx, f.owner.PersonID, "", 0)
		require.NoError(t, err)
		short, exp, err := f.svc.CreateDerivedToken(ctx, workspace.Person{ID: f.owner.PersonID}, workspace.StreamScope("turn_a"), time.Hour)
		require.NoError(t, err)
		require.Equal(t, now.Add(time.Hour), exp)
		long, _, err := f.svc.CreateDerivedToken(ctx, workspace.Person{ID: f.owner.PersonID}, workspace.ActivityScope, 3*time.Hour)
		require.NoError(t, err)
		count := func() int64 {
			var n int64
			require.NoError(t, f.db.Model(&storage.APIToken{}).Count(&n).Error)
			return n
		}

		n, err := f.svc.DeleteExpiredTokens(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "none has expired")
		require.EqualValues(t, 3, count())

		now = now.Add(time.Hour) // the stream token expires at exactly its ttl
		n, err = f.svc.DeleteExpiredTokens(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		require.EqualValues(t, 2, count())
		_, err = f.svc.Authenticate(ctx, short, workspace.StreamScope("turn_a"))
		require.ErrorIs(t, err, workspace.ErrUnauthenticated)
		_, err = f.svc.AuthenticateScoped(ctx, long, workspace.ActivityScope)
		require.NoError(t, err, "the longer one stays")

		now = now.AddDate(10, 0, 0)
		n, err = f.svc.DeleteExpiredTokens(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		_, err = f.svc.Authenticate(ctx, full, "")
		require.NoError(t, err, "a token without ttl is never deleted")

		_, _, err = f.svc.CreateDerivedToken(ctx, workspace.Person{ID: f.owner.PersonID}, "", time.Hour)
		require.Error(t, err, "a scoped token needs a scope")
		_, _, err = f.svc.CreateDerivedToken(ctx, workspace.Person{ID: f.owner.PersonID}, workspace.ActivityScope, 0)
		require.Error(t, err, "and a ttl")
	})
}

// A scoped token authenticates as its person, with the person's names and
// persona; an unknown token does not.
func TestAuthenticateScopedReturnsThePerson(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		require.NoError(t, f.db.Model(&storage.Person{}).Where("id = ?", f.owner.PersonID).
			Updates(map[string]any{"first_name": "Liv", "persona": "Runs the launch."}).Error)
		token, err := f.svc.CreateToken(ctx, f.owner.PersonID, workspace.StreamScope("turn_a"), time.Hour)
		require.NoError(t, err)
		p, err := f.svc.AuthenticateScoped(ctx, token, workspace.StreamScope("turn_a"))
		require.NoError(t, err)
		require.Equal(t, workspace.Person{ID: f.owner.PersonID, Name: "Olive Owner", GivenName: "Liv", Persona: "Runs the launch."}, p)
		_, err = f.svc.Authenticate(ctx, "hub_unknown", "")
		require.ErrorIs(t, err, workspace.ErrUnauthenticated)
	})
}
