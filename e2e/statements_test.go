//go:build e2e

package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// BenchmarkTurnStatements runs BenchmarkTurn's workload (3 model calls, 2
// tool calls) through the api and counts what one turn costs Postgres:
// commits and rows from pg_stat_database, statements from
// pg_stat_statements when the server preloads it (scripts/test.sh does
// when the server has it). With -v it logs each statement's calls per
// turn, most first: docs/benchmarks.md, "Where a turn's commits go".
//
//	scripts/test.sh -run '^$' -bench BenchmarkTurnStatements -benchtime 50x -v ./e2e
//
// Postgres publishes a backend's counters at most once a second and
// within 10 s when it is idle, so the benchmark waits that long before
// each reading; the turns themselves are not slowed.
func BenchmarkTurnStatements(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(threeCallsTwoTools)})
	ctx := context.Background()
	db := s.DB.SQL()
	_, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	statements := err == nil
	if !statements {
		b.Logf("no pg_stat_statements (%v): commits and rows only", err)
	}
	// Autovacuum and autoanalyze commit transactions and write catalog
	// rows in this database of their own accord, when a table's growth
	// crosses a threshold (two of three 40-turn runs here: +1 commit,
	// +4 inserts and +2 updates a turn): off for its tables, so that the
	// counts are the turns' own.
	tables, err := db.QueryContext(ctx, `SELECT format('%I.%I', schemaname, relname) FROM pg_stat_user_tables`)
	require.NoError(b, err)
	var names []string
	for tables.Next() {
		var n string
		require.NoError(b, tables.Scan(&n))
		names = append(names, n)
	}
	require.NoError(b, tables.Err())
	tables.Close()
	for _, n := range names {
		_, err := db.ExecContext(ctx, `ALTER TABLE `+n+` SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)`)
		require.NoError(b, err)
	}
	b.Run("api", func(b *testing.B) {
		// Conversations are made before the counting starts: only turns count.
		convs := make([]string, b.N+1)
		for i := range convs {
			convs[i] = s.Conversation(b)
		}
		ask := func(conv string) {
			s.Model.Reset()
			st := s.Ask(b, conv, "add a task")
			events := s.Stream(b, st.StreamURL, 0, 0)
			require.Equal(b, "done", events[len(events)-1].Data["status"])
		}
		ask(convs[b.N]) // warm: the first turn pays for caches and prepared plans
		before := readCounts(b, db, statements)
		b.ResetTimer()
		cpu := processCPU(b)
		for i := 0; i < b.N; i++ {
			ask(convs[i])
		}
		cpu = processCPU(b) - cpu
		b.StopTimer()
		after := readCounts(b, db, statements)
		n := float64(b.N)
		b.ReportMetric(float64(cpu)/float64(time.Millisecond)/n, "hub-cpu-ms/turn")
		b.ReportMetric(float64(after.commits-before.commits)/n, "commits/turn")
		b.ReportMetric(float64(after.inserted-before.inserted)/n, "inserts/turn")
		b.ReportMetric(float64(after.updated-before.updated)/n, "updates/turn")
		b.ReportMetric(float64(after.returned-before.returned)/n, "rows-read/turn")
		if !statements {
			return
		}
		type row struct {
			query string
			calls int64
		}
		var rows []row
		var total int64
		// Foreign-key checks run inside the statements that write (track
		// = all counts them); they are shown, not counted as statements.
		var fk int64
		folded := map[string]int64{}
		for q, c := range after.calls {
			d := c - before.calls[q]
			if d <= 0 || strings.Contains(q, "pg_stat_") {
				continue
			}
			if strings.Contains(q, "FOR KEY SHARE OF x") {
				fk += d
			}
			folded[savepoints.ReplaceAllString(q, "${1}SAVEPOINT …")] += d
		}
		for q, d := range folded {
			rows = append(rows, row{q, d})
			if !strings.Contains(q, "FOR KEY SHARE OF x") {
				total += d
			}
		}
		slices.SortFunc(rows, func(x, y row) int { return int(y.calls - x.calls) })
		b.ReportMetric(float64(total)/n, "statements/turn")
		b.ReportMetric(float64(fk)/n, "fk-checks/turn")
		var sb strings.Builder
		for _, r := range rows {
			fmt.Fprintf(&sb, "%6.2f  %s\n", float64(r.calls)/n, shorten(r.query))
		}
		b.Logf("statements per turn (%d turns):\n%s", b.N, sb.String())
	})
}

// processCPU is the CPU time (user and system) this process used so far:
// the api, the worker and the embedded Temporal server of the stack, not
// Postgres.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type pgCounts struct {
	commits, inserted, updated, returned int64
	calls                                map[string]int64
}

// readCounts waits until every backend has published its counters, then
// reads them for this database.
func readCounts(b *testing.B, db *sql.DB, statements bool) pgCounts {
	b.Helper()
	ctx := context.Background()
	time.Sleep(11 * time.Second) // PGSTAT_IDLE_INTERVAL is 10 s; no condition to await
	var c pgCounts
	err := db.QueryRowContext(ctx, `SELECT xact_commit, tup_inserted, tup_updated, tup_returned + tup_fetched
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&c.commits, &c.inserted, &c.updated, &c.returned)
	require.NoError(b, err)
	if !statements {
		return c
	}
	rows, err := db.QueryContext(ctx, `SELECT query, calls FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`)
	require.NoError(b, err)
	defer rows.Close()
	c.calls = map[string]int64{}
	for rows.Next() {
		var q string
		var n int64
		require.NoError(b, rows.Scan(&q, &n))
		c.calls[q] += n
	}
	require.NoError(b, rows.Err())
	return c
}

var (
	spaces     = regexp.MustCompile(`\s+`)
	savepoints = regexp.MustCompile(`(?i)(RELEASE )?SAVEPOINT \w+`)
)

// shorten keeps a statement's first 160 characters on one line.
func shorten(q string) string {
	q = spaces.ReplaceAllString(q, " ")
	if len(q) > 160 {
		q = q[:160] + "…"
	}
	return q
}
