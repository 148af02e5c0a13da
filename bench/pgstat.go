package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgCounters are a database's cumulative counters from pg_stat_database.
type pgCounters struct {
	Commits, Rollbacks         int64
	Inserted, Updated, Deleted int64
	Returned, Fetched          int64
}

func (a pgCounters) minus(b pgCounters) pgCounters {
	return pgCounters{a.Commits - b.Commits, a.Rollbacks - b.Rollbacks, a.Inserted - b.Inserted, a.Updated - b.Updated,
		a.Deleted - b.Deleted, a.Returned - b.Returned, a.Fetched - b.Fetched}
}

// postgres watches the database Hub runs on: its counters, and the server
// process whose CPU is measured.
type postgres struct {
	conn *pgx.Conn
	// reads counts the bench's own statements, each a commit of its own,
	// taken off the deltas.
	reads int64
	// postmaster is the server's main process, when it runs on this
	// machine where /proc can see it (0 otherwise).
	postmaster int
	// settle is the wait before a phase's last reading (StatsSettle).
	settle time.Duration
}

func openPostgres(ctx context.Context, url string, p proc, settle time.Duration) (*postgres, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("--database-url: %w", err)
	}
	pg := &postgres{conn: conn, settle: settle}
	var backend int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	pg.reads++
	// The backend's parent is the postmaster, if this is the machine
	// Postgres runs on (and the same process namespace).
	if t, err := p.times(backend); err == nil && t.PPid > 1 {
		pg.postmaster = t.PPid
	}
	return pg, nil
}

func (pg *postgres) close() { _ = pg.conn.Close(context.Background()) }

// DefaultStatsSettle is how long after a phase its counters are complete. A
// backend reports its counters at a transaction's end at most once a
// second; one that goes idle with counts still pending reports them after
// up to 10 s (PGSTAT_IDLE_INTERVAL, Postgres 15), and Hub's pooled
// connections sit idle between phases.
const DefaultStatsSettle = 11 * time.Second

// counters reads the database's counters; settle waits pg.settle
// (Options.StatsSettle) first, so that a phase's last statements are in
// the numbers.
func (pg *postgres) counters(ctx context.Context, settle bool) (pgCounters, error) {
	if settle && pg.settle > 0 {
		select {
		case <-ctx.Done():
			return pgCounters{}, ctx.Err()
		case <-time.After(pg.settle):
		}
	}
	var c pgCounters
	err := pg.conn.QueryRow(ctx, `SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_returned, tup_fetched
		FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&c.Commits, &c.Rollbacks, &c.Inserted, &c.Updated, &c.Deleted, &c.Returned, &c.Fetched)
	pg.reads++
	return c, err
}
