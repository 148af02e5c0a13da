package usage_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/llm"
	"hub/storage"
	"hub/usage"
)

// setup opens a fresh database with one space per name.
func setup(t testing.TB, url string, spaces ...string) (*usage.Store, *storage.DB) {
	t.Helper()
	db := dbtest.Open(t, url)
	for _, id := range spaces {
		require.NoError(t, db.Create(&storage.Space{ID: id, Name: id}).Error)
	}
	return usage.NewStore(db), db
}

func call(id, turn, space, person string) usage.Call {
	return usage.Call{ID: id, TurnID: turn, Step: 1, ConversationID: "conv", SpaceID: space, PersonID: person, Model: "m"}
}

func spend(t testing.TB, s *usage.Store, space string) usage.Spend {
	t.Helper()
	sp, err := s.Budget(context.Background(), space)
	require.NoError(t, err)
	return sp
}

func budget(v int64) *int64 { return &v }

func TestReserveAndSettleCountOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s, db := setup(t, url, "sp")
		c := call("t1.1.a", "t1", "sp", "p1")
		require.NoError(t, s.Reserve(ctx, c, 500))
		require.NoError(t, s.Reserve(ctx, c, 500), "a repeated reservation")
		require.Equal(t, int64(500), spend(t, s, "sp").Reserved, "reserved once")

		u := llm.Usage{InputTokens: 1000, CachedInputTokens: 400, OutputTokens: 50}
		require.NoError(t, s.Settle(ctx, c, u, 321, ""))
		require.NoError(t, s.Settle(ctx, c, u, 321, ""), "a repeated settle")
		sp := spend(t, s, "sp")
		require.Equal(t, int64(321), sp.Spent)
		require.Equal(t, int64(0), sp.Reserved)

		var rows []storage.ModelCall
		require.NoError(t, db.Find(&rows).Error)
		require.Len(t, rows, 1)
		require.Equal(t, usage.StatusSettled, rows[0].Status)
		require.Equal(t, int64(400), rows[0].CachedInputTokens)
		require.Equal(t, int64(321), rows[0].CostMicros)
	})
}

func TestDeadAttemptIsReleased(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s, db := setup(t, url, "sp")
		// Attempt 1 reserved and its worker died; attempt 2 of the same
		// turn releases it before reserving its own.
		require.NoError(t, s.Reserve(ctx, call("t1.1.a1", "t1", "sp", "p"), 700))
		require.NoError(t, s.ReleaseTurn(ctx, "t1", "t1.1.a2"))
		require.NoError(t, s.Reserve(ctx, call("t1.1.a2", "t1", "sp", "p"), 600))
		require.Equal(t, int64(600), spend(t, s, "sp").Reserved)
		var dead storage.ModelCall
		require.NoError(t, db.Where("id = ?", "t1.1.a1").Take(&dead).Error)
		require.Equal(t, usage.StatusReleased, dead.Status)

		// A late settle of the released call still counts what it cost.
		require.NoError(t, s.Settle(ctx, call("t1.1.a1", "t1", "sp", "p"), llm.Usage{InputTokens: 10}, 5, ""))
		sp := spend(t, s, "sp")
		require.Equal(t, int64(5), sp.Spent)
		require.Equal(t, int64(600), sp.Reserved)

		// The sweeper releases a reservation nothing settled.
		n, err := s.ReleaseStale(ctx, time.Now().Add(time.Minute))
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
		require.Equal(t, int64(0), spend(t, s, "sp").Reserved)
	})
}

func TestBudgetRefusesBeforeTheCall(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s, db := setup(t, url, "sp", "other")
		require.NoError(t, s.SetBudget(ctx, "sp", budget(1000)))
		require.NoError(t, s.Reserve(ctx, call("a", "t1", "sp", "p"), 600))
		err := s.Reserve(ctx, call("b", "t2", "sp", "p"), 600)
		var be *usage.BudgetError
		require.True(t, errors.As(err, &be), "%v", err)
		require.Equal(t, int64(400), be.Left())
		require.Contains(t, be.Error(), "$0.001")
		var n int64
		require.NoError(t, db.Model(&storage.ModelCall{}).Where("id = ?", "b").Count(&n).Error)
		require.Zero(t, n, "a refused call is not recorded")

		// Settling below the estimate frees the rest.
		require.NoError(t, s.Settle(ctx, call("a", "t1", "sp", "p"), llm.Usage{InputTokens: 1}, 100, ""))
		require.NoError(t, s.Reserve(ctx, call("b", "t2", "sp", "p"), 600))
		// Another space has its own month; no budget is no limit.
		require.NoError(t, s.Reserve(ctx, call("c", "t3", "other", "p"), 1<<40))
		require.NoError(t, s.Settle(ctx, call("c", "t3", "other", "p"), llm.Usage{}, 0, ""))
		// A budget of 0 refuses every call that costs anything, not a free one.
		require.NoError(t, s.SetBudget(ctx, "other", budget(0)))
		require.Error(t, s.Reserve(ctx, call("d", "t4", "other", "p"), 1))
		require.NoError(t, s.Reserve(ctx, call("e", "t5", "other", "p"), 0))
	})
}

// TestConcurrentTurnsShareABudget: calls racing for a budget that holds
// one of them: exactly one passes, on both engines, for the month's first
// calls and once the month has its spend row (Postgres's one-statement
// path).
func TestConcurrentTurnsShareABudget(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s, _ := setup(t, url, "cold", "warm")
		warm := call("w", "tw", "warm", "p")
		require.NoError(t, s.Reserve(ctx, warm, 10))
		require.NoError(t, s.Settle(ctx, warm, llm.Usage{}, 0, ""))
		for _, space := range []string{"cold", "warm"} {
			require.NoError(t, s.SetBudget(ctx, space, budget(1000)))
			const n = 8
			var wg sync.WaitGroup
			errs := make([]error, n)
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errs[i] = s.Reserve(ctx, call(fmt.Sprint(space, i), fmt.Sprint(space, "t", i), space, "p"), 600)
				}()
			}
			close(start)
			wg.Wait()
			passed := 0
			for _, err := range errs {
				var be *usage.BudgetError
				switch {
				case err == nil:
					passed++
				case errors.As(err, &be):
				default:
					t.Fatalf("unexpected error: %v", err)
				}
			}
			require.Equal(t, 1, passed, space)
			require.Equal(t, int64(600), spend(t, s, space).Reserved, space)
		}
	})
}

// The month's first calls of a space, racing, with room for all of them
// (and with no budget at all): every one passes, none counted twice. Two
// racers that both found no row for the month once took the other's
// insert for "over the budget" (Postgres).
func TestColdMonthRacersAllFit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		for round := range 5 {
			withBudget, noBudget := fmt.Sprint("b", round), fmt.Sprint("n", round)
			s, _ := setup(t, url, withBudget, noBudget)
			require.NoError(t, s.SetBudget(ctx, withBudget, budget(1_000_000)))
			for _, space := range []string{withBudget, noBudget} {
				const n = 8
				var wg sync.WaitGroup
				errs := make([]error, n)
				start := make(chan struct{})
				for i := range n {
					wg.Go(func() {
						<-start
						errs[i] = s.Reserve(ctx, call(fmt.Sprint(space, i), fmt.Sprint(space, "t", i), space, "p"), 600)
					})
				}
				close(start)
				wg.Wait()
				for i, err := range errs {
					require.NoError(t, err, "round %d, space %s, racer %d", round, space, i)
				}
				require.Equal(t, int64(n*600), spend(t, s, space).Reserved, space)
			}
		}
	})
}

// TestSettleMovesTheReservationToSpent: settling a reserved call spends
// its cost and releases its estimate.
func TestSettleMovesTheReservationToSpent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s, _ := setup(t, url, "sp")
		c := call("t1.1.a", "t1", "sp", "p1")
		require.NoError(t, s.Reserve(ctx, c, 500))
		require.NoError(t, s.Settle(ctx, c, llm.Usage{InputTokens: 10, OutputTokens: 2}, 321, ""))
		sp := spend(t, s, "sp")
		require.Equal(t, int64(321), sp.Spent)
		require.Equal(t, int64(0), sp.Reserved)
	})
}

// TestSettleRacingARelease: calls settled while the sweeper releases
// them: whichever comes first, each estimate leaves the reserved total
// exactly once and each cost is spent exactly once.
func TestSettleRacingARelease(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s, _ := setup(t, url, "sp")
		const n = 16
		for i := range n {
			require.NoError(t, s.Reserve(ctx, call(fmt.Sprint("c", i), fmt.Sprint("t", i), "sp", "p"), 1000))
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, n+1)
		for i := range n {
			wg.Go(func() {
				<-start
				errs[i] = s.Settle(ctx, call(fmt.Sprint("c", i), fmt.Sprint("t", i), "sp", "p"), llm.Usage{InputTokens: 1}, 7, "")
			})
		}
		wg.Go(func() {
			<-start
			_, errs[n] = s.ReleaseStale(ctx, time.Now().Add(time.Minute))
		})
		close(start)
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		sp := spend(t, s, "sp")
		require.Equal(t, int64(n*7), sp.Spent)
		require.Equal(t, int64(0), sp.Reserved)
	})
}
