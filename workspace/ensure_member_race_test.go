package workspace_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/storage"
	"hub/workspace"
)

// TestEnsureMemberFromManyProcessesAtOnce stands in for several `hub token
// create` runs (or one beside `hub dev`) seeding the same space and person at
// the same moment: each caller has a connection pool of its own, as a
// separate process would. Every call must succeed, all must find the same
// space and person, and nothing may be created twice.
func TestEnsureMemberFromManyProcessesAtOnce(t *testing.T) {
	t.Parallel()
	const callers, rounds = 6, 8
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		svcs := make([]*workspace.Service, callers)
		for i := range svcs {
			// dbtest.Open migrates; the first pool does it, the rest find it done.
			svcs[i] = workspace.NewService(dbtest.Open(t, url))
		}
		db := dbtest.Open(t, url)
		ctx := t.Context()

		// A new space and a new person, from every caller at once. Half ask
		// for another role: whichever commits last decides it.
		for round := range rounds {
			space, person := fmt.Sprintf("Launch %d", round), fmt.Sprintf("Rae Round%d", round)
			ids := concurrently(t, svcs, func(i int, svc *workspace.Service) (string, string, error) {
				return svc.EnsureMember(ctx, space, person, []workspace.Role{workspace.RoleOwner, workspace.RoleEditor}[i%2])
			})
			for i, id := range ids {
				require.Equal(t, ids[0], id, "round %d, caller %d: one space, one person", round, i)
			}
			requireCount(ctx, t, db, &storage.Space{}, 1, "name = ?", space)
			requireCount(ctx, t, db, &storage.Person{}, 1, "name = ?", person)
			requireCount(ctx, t, db, &storage.Membership{}, 1, "space_id = ?", ids[0][0])
			role, err := svcs[0].Access(ctx, ids[0][1], ids[0][0])
			require.NoError(t, err)
			require.Contains(t, []workspace.Role{workspace.RoleOwner, workspace.RoleEditor}, role)
		}

		// A new person joining a space that exists: no new space makes the
		// callers wait on each other, and still one person.
		launch, _, err := svcs[0].EnsureMember(ctx, "Launch 0", "Rae Round0", workspace.RoleOwner)
		require.NoError(t, err)
		for round := range rounds {
			person := fmt.Sprintf("Nia Newcomer%d", round)
			ids := concurrently(t, svcs, func(_ int, svc *workspace.Service) (string, string, error) {
				return svc.EnsureMember(ctx, "Launch 0", person, workspace.RoleViewer)
			})
			for i, id := range ids {
				require.Equal(t, [2]string{launch, ids[0][1]}, id, "round %d, caller %d", round, i)
			}
			requireCount(ctx, t, db, &storage.Person{}, 1, "name = ?", person)
		}
		requireCount(ctx, t, db, &storage.Membership{}, 1+rounds, "space_id = ?", launch)

		// The same new person joining a different existing space each, at once.
		ids := concurrently(t, svcs, func(i int, svc *workspace.Service) (string, string, error) {
			return svc.EnsureMember(ctx, fmt.Sprintf("Launch %d", i), "Pat Everywhere", workspace.RoleGuest)
		})
		for i, id := range ids {
			require.Equal(t, ids[0][1], id[1], "caller %d: one person", i)
		}
		requireCount(ctx, t, db, &storage.Person{}, 1, "name = ?", "Pat Everywhere")
		requireCount(ctx, t, db, &storage.Membership{}, callers, "person_id = ?", ids[0][1])
	})
}

// concurrently calls fn once per service, all released at the same moment,
// and returns each call's space and person ids.
func concurrently(t *testing.T, svcs []*workspace.Service, fn func(i int, svc *workspace.Service) (spaceID, personID string, err error)) [][2]string {
	t.Helper()
	ids := make([][2]string, len(svcs))
	errs := make([]error, len(svcs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, svc := range svcs {
		wg.Go(func() {
			<-start
			ids[i][0], ids[i][1], errs[i] = fn(i, svc)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "caller %d", i)
	}
	return ids
}

func requireCount(ctx context.Context, t *testing.T, db *storage.DB, model any, want int64, where string, args ...any) {
	t.Helper()
	var n int64
	require.NoError(t, db.WithContext(ctx).Model(model).Where(where, args...).Count(&n).Error)
	require.Equal(t, want, n, "rows of %T where %s %v", model, where, args)
}
