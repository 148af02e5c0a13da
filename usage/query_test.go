package usage_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/llm"
	"hub/usage"
)

func TestQueryGroupsAndScopes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s, _ := setup(t, url, "a", "b")
		settle := func(id, space, person, model string, in, cached, out int, cost int64) {
			c := call(id, "t-"+id, space, person)
			c.Model = model
			require.NoError(t, s.Reserve(ctx, c, 10))
			require.NoError(t, s.Settle(ctx, c, llm.Usage{InputTokens: in, CachedInputTokens: cached, OutputTokens: out}, cost, ""))
		}
		settle("1", "a", "ann", "m1", 100, 10, 5, 50)
		settle("2", "a", "bob", "m1", 200, 0, 7, 70)
		settle("3", "a", "bob", "m2", 300, 30, 9, 90)
		settle("4", "b", "bob", "m2", 400, 0, 11, 110)
		require.NoError(t, s.Reserve(ctx, call("open", "t-open", "a", "ann"), 999)) // in flight: not counted
		from, to := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)

		// The owner of a: everyone's calls there, by person.
		rep, err := s.Query(ctx, usage.Filter{Spaces: []string{"a"}, From: from, To: to, GroupBy: usage.ByPerson})
		require.NoError(t, err)
		require.Equal(t, usage.Totals{Calls: 3, InputTokens: 600, CachedInputTokens: 40, OutputTokens: 21, CostMicros: 210}, rep.Total)
		require.Len(t, rep.Groups, 2)
		require.Equal(t, usage.Totals{Key: "ann", Calls: 1, InputTokens: 100, CachedInputTokens: 10, OutputTokens: 5, CostMicros: 50}, rep.Groups[0])
		require.Equal(t, "bob", rep.Groups[1].Key)

		// Bob alone in a, by model; Bob everywhere, by space; by day.
		rep, err = s.Query(ctx, usage.Filter{Person: "bob", PersonSpace: "a", From: from, To: to, GroupBy: usage.ByModel})
		require.NoError(t, err)
		require.Equal(t, int64(160), rep.Total.CostMicros)
		require.Equal(t, []string{"m1", "m2"}, []string{rep.Groups[0].Key, rep.Groups[1].Key})
		rep, err = s.Query(ctx, usage.Filter{Person: "bob", From: from, To: to, GroupBy: usage.BySpace})
		require.NoError(t, err)
		require.Equal(t, int64(270), rep.Total.CostMicros)
		require.Len(t, rep.Groups, 2)
		rep, err = s.Query(ctx, usage.Filter{Person: "ann", Spaces: []string{"b"}, From: from, To: to, GroupBy: usage.ByDay})
		require.NoError(t, err)
		require.Equal(t, int64(160), rep.Total.CostMicros, "ann's own and everyone's in b")
		require.Equal(t, []usage.Totals{{Key: usage.Day(time.Now()), Calls: 2, InputTokens: 500, CachedInputTokens: 10, OutputTokens: 16, CostMicros: 160}}, rep.Groups)

		// Bob owns a: his own calls there are counted once.
		rep, err = s.Query(ctx, usage.Filter{Person: "bob", Spaces: []string{"a"}, From: from, To: to})
		require.NoError(t, err)
		require.Equal(t, usage.Totals{Calls: 4, InputTokens: 1000, CachedInputTokens: 40, OutputTokens: 32, CostMicros: 320}, rep.Total)
		require.Empty(t, rep.Groups)

		// Outside the range: nothing.
		rep, err = s.Query(ctx, usage.Filter{Spaces: []string{"a"}, From: to, To: to.Add(time.Hour)})
		require.NoError(t, err)
		require.Zero(t, rep.Total.Calls)
	})
}

func TestDollars(t *testing.T) {
	for micros, want := range map[int64]string{0: "$0.00", 5_000_000: "$5.00", 420: "$0.00042", 1_234_567: "$1.234567", 300_000: "$0.30", -10_000: "-$0.01"} {
		require.Equal(t, want, usage.Dollars(micros))
	}
}
