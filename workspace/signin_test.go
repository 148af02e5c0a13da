package workspace_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

// First sign-ins of one subject at once make one person and one audit
// event; every request signs in as that person, never a database error.
func TestFirstSignInsAtOnceMakeOnePerson(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		const n = 8
		ids := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				p, err := f.svc.SignInSubject(ctx, "https://sso.example.com", "subject-1", "Ada Lovelace")
				ids[i], errs[i] = p.ID, err
			})
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, ids[0], ids[i])
		}
		events, err := f.svc.HubAudit(ctx, 10)
		require.NoError(t, err)
		require.Len(t, events, 1)
		require.Equal(t, ids[0], events[0].ActorID)

		// Another issuer's same sub is someone else.
		other, err := f.svc.SignInSubject(ctx, "https://other.example.com", "subject-1", "")
		require.NoError(t, err)
		require.NotEqual(t, ids[0], other.ID)
		require.Equal(t, workspace.DefaultSignInName, other.Name)
	})
}

// A provider's name becomes a person's name only as one clean line of at
// most MaxPersonName characters.
func TestSignInNames(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		for i, c := range []struct{ given, want string }{
			{"  Grace Hopper ", "Grace Hopper"},
			{"two\nlines", workspace.DefaultSignInName},
			{"nul\x00byte", "nulbyte"},
			{strings.Repeat("é", workspace.MaxPersonName+20), strings.Repeat("é", workspace.MaxPersonName)},
		} {
			p, err := f.svc.SignInSubject(ctx, "https://sso.example.com", "names-"+string(rune('a'+i)), c.given)
			require.NoError(t, err)
			require.Equal(t, c.want, p.Name, "%q", c.given)
		}
	})
}
