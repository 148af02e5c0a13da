//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"hub/fakemodel"
)

// Kill modes: what the killer waits for before it sends SIGKILL.
const (
	// modeModel waits for a model call in flight, then kills within it.
	modeModel = "model"
	// modeWrite holds a lock on the tasks table until a worker transaction
	// blocks on it, then kills: the worker dies with a write's transaction
	// open (a turn's tool call or an Apply's).
	modeWrite = "write"
	// modeCommitted waits for a task insert to commit (a trigger the
	// harness adds notifies), then kills at once: the worker dies after
	// the write committed and before Temporal heard of it, where a write
	// without its outcome in the same transaction would run twice.
	modeCommitted = "committed"
	// modeApply waits for an Apply request in flight, then kills within it.
	modeApply = "apply"
	// modeAny kills after a random delay, wherever the work is.
	modeAny = "any"
)

// kill is one SIGKILL and where it landed.
type kill struct {
	n        int
	what     string // "worker" or "api"
	mode     string
	at       time.Time
	pid      int
	restart  time.Duration
	model    int  // model calls in flight at the kill
	midWrite bool // a worker transaction was blocked mid-write
	// afterCommit: a task insert had just committed.
	afterCommit bool
	applies     int // Apply requests in flight
}

func (k kill) String() string {
	where := []string{}
	if k.model > 0 {
		where = append(where, fmt.Sprintf("%d model call(s) in flight", k.model))
	}
	if k.midWrite {
		where = append(where, "a write's transaction open")
	}
	if k.afterCommit {
		where = append(where, "a write just committed")
	}
	if k.applies > 0 {
		where = append(where, fmt.Sprintf("%d Apply request(s) in flight", k.applies))
	}
	if len(where) == 0 {
		where = append(where, "between model calls and writes")
	}
	return fmt.Sprintf("kill %d: hub %s pid %d (mode %s) with %v; restarted in %s", k.n, k.what, k.pid, k.mode, where,
		k.restart.Round(time.Millisecond))
}

// killer kills the worker (and now and then the api) while the work runs.
type killer struct {
	rng      *rand.Rand
	model    *fakemodel.Server
	db       string // DATABASE_URL, for modeWrite's lock
	worker   *role
	api      *role
	applying *inFlightApplies
	logf     func(format string, args ...any)

	// finished counts finished operations; the killer waits for at least
	// one more after each kill, so every kill is followed by progress and
	// the run ends.
	finished *atomic.Int32
	progress chan struct{}
	// apiKillsAt: kill the api once this many operations have finished.
	apiKillsAt []int32

	mu    sync.Mutex
	kills []kill
}

// run kills until ctx ends; it returns the first error that stopped it (a
// process that would not start again).
func (k *killer) run(ctx context.Context) error {
	var lastFinished int32 = -1
	for {
		// Progress since the last kill: at least one more operation done.
		for k.finished.Load() <= lastFinished {
			select {
			case <-ctx.Done():
				return nil
			case <-k.progress:
			}
		}
		lastFinished = k.finished.Load()
		if len(k.apiKillsAt) > 0 && lastFinished >= k.apiKillsAt[0] {
			k.apiKillsAt = k.apiKillsAt[1:]
			if err := k.killAPI(ctx); err != nil {
				return err
			}
		}
		if err := k.killWorker(ctx); err != nil || ctx.Err() != nil {
			return err
		}
	}
}

// killWorker picks a mode, waits for its moment and kills the worker.
func (k *killer) killWorker(ctx context.Context) error {
	modes := []string{modeModel, modeModel, modeWrite, modeWrite, modeCommitted, modeCommitted, modeAny}
	if k.applying.left.Load() > 0 {
		modes = append(modes, modeApply, modeApply)
	}
	mode := modes[k.rng.IntN(len(modes))]
	delay := time.Duration(k.rng.IntN(300)) * time.Millisecond
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	midWrite, afterCommit := false, false
	var unlock func()
	switch mode {
	case modeModel:
		// Wait for a call in flight, then kill somewhere within it.
		_, _ = k.model.Await(wait, func(reqs []fakemodel.RecordedRequest) bool { return inFlight(reqs) > 0 })
		sleep(ctx, delay)
	case modeWrite:
		var err error
		unlock, midWrite, err = k.holdWrites(wait)
		if err != nil && ctx.Err() == nil {
			k.logf("write mode: %v; killing anyway", err)
		}
	case modeCommitted:
		var err error
		afterCommit, err = k.awaitCommit(wait)
		if err != nil && ctx.Err() == nil {
			k.logf("committed mode: %v; killing anyway", err)
		}
	case modeApply:
		// An Apply without a kill takes about 100 ms: kill within that,
		// after one starts (the transaction, the receipts, the update's
		// answer).
		wait, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		k.applying.awaitStart(wait)
		sleep(ctx, delay/5)
	case modeAny:
		sleep(ctx, time.Duration(k.rng.IntN(2000))*time.Millisecond)
	}
	if ctx.Err() != nil {
		if unlock != nil {
			unlock()
		}
		return nil
	}
	kl := kill{what: "worker", mode: mode, at: time.Now(), model: inFlight(k.model.Requests()), midWrite: midWrite,
		afterCommit: afterCommit, applies: int(k.applying.n.Load())}
	pid, restart, err := k.worker.killAndRestart()
	if unlock != nil {
		unlock()
	}
	kl.pid, kl.restart = pid, restart
	k.record(kl)
	return err
}

// killAPI kills the api while streams are open; clients reconnect with
// Last-Event-ID to the restarted process on the same address.
func (k *killer) killAPI(ctx context.Context) error {
	sleep(ctx, time.Duration(k.rng.IntN(1000))*time.Millisecond)
	kl := kill{what: "api", mode: modeAny, at: time.Now(), model: inFlight(k.model.Requests()), applies: int(k.applying.n.Load())}
	pid, restart, err := k.api.killAndRestart()
	kl.pid, kl.restart = pid, restart
	k.record(kl)
	return err
}

func (k *killer) record(kl kill) {
	k.mu.Lock()
	kl.n = len(k.kills) + 1
	k.kills = append(k.kills, kl)
	k.mu.Unlock()
	k.logf("%s", kl)
}

func (k *killer) all() []kill {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]kill(nil), k.kills...)
}

// holdWrites takes a SHARE lock on the tasks table, which every INSERT
// waits behind (reads do not), until a transaction blocks on it. unlock
// releases it; blocked tells whether a writer was caught.
func (k *killer) holdWrites(ctx context.Context) (unlock func(), blocked bool, err error) {
	conn, err := pgx.Connect(ctx, k.db)
	if err != nil {
		return nil, false, err
	}
	release := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = conn.Close(ctx) // closing ends the transaction and its lock
	}
	if _, err := conn.Exec(ctx, "BEGIN; LOCK TABLE tasks IN SHARE MODE"); err != nil {
		release()
		return nil, false, err
	}
	for ctx.Err() == nil {
		var n int
		// Postgres has no notification for a lock wait; look every 10 ms.
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&n)
		if err == nil && n > 0 {
			return release, true, nil
		}
		sleep(ctx, 10*time.Millisecond)
	}
	return release, false, nil
}

// committedChannel is what the harness's trigger on the tasks table
// notifies when an insert commits (Postgres delivers a NOTIFY at commit).
const committedChannel = "chaos_task_committed"

// addCommitTrigger adds that trigger to the run's database. It only
// notifies; Hub's schema and data are unchanged.
func addCommitTrigger(ctx context.Context, db string) error {
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, `
		CREATE FUNCTION chaos_task_committed() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_notify('`+committedChannel+`', NEW.title); RETURN NEW; END $$;
		CREATE TRIGGER chaos_task_committed AFTER INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION chaos_task_committed()`)
	return err
}

// awaitCommit waits for the next task insert to commit; committed is
// false when none did before ctx ended.
func (k *killer) awaitCommit(ctx context.Context) (committed bool, err error) {
	conn, err := pgx.Connect(ctx, k.db)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+committedChannel); err != nil {
		return false, err
	}
	if _, err := conn.WaitForNotification(ctx); err != nil {
		return false, nil // none within the wait
	}
	return true, nil
}

// inFlightApplies counts Apply requests in flight and tells the killer
// when one starts.
type inFlightApplies struct {
	n       atomic.Int32
	left    atomic.Int32 // apply ops not yet finished
	started chan struct{}
}

func newInFlightApplies(total int) *inFlightApplies {
	a := &inFlightApplies{started: make(chan struct{}, 1)}
	a.left.Store(int32(total))
	return a
}

func (a *inFlightApplies) begin() {
	a.n.Add(1)
	select {
	case a.started <- struct{}{}:
	default:
	}
}

func (a *inFlightApplies) end() { a.n.Add(-1) }

// awaitStart waits until an Apply request starts (one that is still in
// flight), or ctx ends.
func (a *inFlightApplies) awaitStart(ctx context.Context) {
	select { // a start seen before this call is stale
	case <-a.started:
	default:
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.started:
			if a.n.Load() > 0 {
				return
			}
		}
	}
}

// inFlight counts model calls still being answered.
func inFlight(reqs []fakemodel.RecordedRequest) int {
	n := 0
	for _, r := range reqs {
		if r.FinishedAt == nil && r.ClientDisconnectedAt == nil {
			n++
		}
	}
	return n
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
