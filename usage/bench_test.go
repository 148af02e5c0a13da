package usage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/llm"
	"hub/usage"
)

// BenchmarkPreSpendCheck is the check a model call makes before its
// request: the reservation against the space's monthly budget (one
// transaction), with its settle after, on each engine.
func BenchmarkPreSpendCheck(b *testing.B) {
	for _, engine := range []string{"postgres", "sqlite"} {
		b.Run(engine, func(b *testing.B) {
			url := dbtest.SQLite(b)
			if engine == "postgres" {
				url = dbtest.Postgres(b)
			}
			ctx := context.Background()
			s, _ := setup(b, url, "sp")
			big := int64(1) << 50
			require.NoError(b, s.SetBudget(ctx, "sp", &big))
			if engine == "postgres" {
				// The month's row exists once a call reserved: the plan of
				// the one statement every later call runs.
				require.NoError(b, s.Reserve(ctx, call("first", "t-first", "sp", "p"), 1000))
				plan, err := s.ExplainReserve(ctx, call("explained", "t-explained", "sp", "p"), 1000)
				require.NoError(b, err)
				b.Logf("reserve:\n%s", plan)
			}
			b.Run("reserve", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if err := s.Reserve(ctx, call(fmt.Sprint("r", i), fmt.Sprint("t", i), "sp", "p"), 1000); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("settle", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if err := s.Settle(ctx, call(fmt.Sprint("r", i), fmt.Sprint("t", i), "sp", "p"), llm.Usage{InputTokens: 900, OutputTokens: 50}, 800, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkUsageQuery1M sums a usage query over a million model calls on
// Postgres: 200 spaces, 2,000 people, 4 models, a year of days. Seeding
// takes a while; it runs only with -bench.
func BenchmarkUsageQuery1M(b *testing.B) {
	url := dbtest.Postgres(b)
	ctx := context.Background()
	s, db := setup(b, url)
	start := time.Now()
	// The migration's indexes are built once after the rows, as a bulk load
	// would, instead of row by row.
	var indexes []string
	require.NoError(b, db.Raw(`SELECT indexdef FROM pg_indexes WHERE tablename = 'model_calls' AND indexname <> 'model_calls_pkey'`).Scan(&indexes).Error)
	require.NotEmpty(b, indexes)
	var names []string
	require.NoError(b, db.Raw(`SELECT indexname FROM pg_indexes WHERE tablename = 'model_calls' AND indexname <> 'model_calls_pkey'`).Scan(&names).Error)
	for _, n := range names {
		require.NoError(b, db.Exec(`DROP INDEX `+n).Error)
	}
	require.NoError(b, db.Exec(`INSERT INTO model_calls (id, turn_id, step, conversation_id, space_id, person_id, model, status, day,
			input_tokens, cached_input_tokens, output_tokens, reserved_micros, cost_micros, created_at, settled_at)
		SELECT 'c' || g, 't' || (g / 3), 1 + g % 3, 'conv' || (g / 30), 'sp' || (g % 200), 'p' || (g % 2000), 'model-' || (g % 4), 'settled',
			to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD'), 1000 + g % 5000, g % 1000, 50 + g % 400, 0, 300 + g % 3000, ts, ts
		FROM (SELECT g, now() - (g % 525600) * interval '1 minute' AS ts FROM generate_series(1, 1000000) AS g) AS rows`).Error)
	for _, def := range indexes {
		require.NoError(b, db.Exec(def).Error)
	}
	// As autovacuum leaves a table that stopped changing: the visibility
	// map set, so the covering indexes answer without the heap.
	require.NoError(b, db.Exec(`VACUUM ANALYZE model_calls`).Error)
	b.Logf("seeded 1,000,000 calls in %s", time.Since(start).Round(time.Millisecond))
	now := time.Now()
	cases := []struct {
		name string
		f    usage.Filter
	}{
		{"owner-space-month-by-person", usage.Filter{Spaces: []string{"sp7"}, From: now.AddDate(0, -1, 0), To: now, GroupBy: usage.ByPerson}},
		{"owner-space-year-by-day", usage.Filter{Spaces: []string{"sp7"}, From: now.AddDate(-1, 0, 0), To: now, GroupBy: usage.ByDay}},
		{"person-year-by-model", usage.Filter{Person: "p42", From: now.AddDate(-1, 0, 0), To: now, GroupBy: usage.ByModel}},
		{"person-and-owned-month-by-space", usage.Filter{Person: "p42", Spaces: []string{"sp7", "sp8"}, From: now.AddDate(0, -1, 0), To: now, GroupBy: usage.BySpace}},
	}
	for _, c := range cases {
		plan, err := s.Explain(ctx, c.f)
		require.NoError(b, err)
		b.Logf("%s:\n%s", c.name, plan)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Query(ctx, c.f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
