// Package stream keeps logs of frames and carries them to their followers:
// a turn's stream (refs, status, text deltas, tool phases, done), from the
// worker that produces it to every SSE client, and a person's work frames
// (chat's top bar).
//
// Frames are stored per log with a sequence number, so a client that
// reconnects with Last-Event-ID reads exactly the frames after it, from any
// api process. The table is the source of truth; a committed frame is also
// handed to followers in memory, and on Postgres a NOTIFY carries it to
// other processes (listen.go). See docs/architecture.md, "Frames".
package stream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"hub/notify"
	"hub/storage"
)

// Frame types, as docs/api.md ("The stream") names them.
const (
	TypeRefs     = "refs"
	TypeStatus   = "status"
	TypeText     = "text"
	TypeTool     = "tool"
	TypeProposal = "proposal"
	TypeError    = "error"
	TypeDone     = "done"
	// TypeTurnError carries an error frame's data under a name that is
	// not EventSource's own `error` event; it comes right before each
	// error frame.
	TypeTurnError = "turn_error"
)

// Phases of a tool frame (docs/api.md, "The stream"): an ended call's is
// its chat.Call* status (stream stays below chat).
const (
	PhaseStarted = "started"
	PhaseDone    = "done"
	PhaseFailed  = "failed"
	PhaseHeld    = "held"
)

// Statuses a status frame carries besides the step (docs/api.md).
const (
	StatusWorking  = "working"
	StatusRetrying = "retrying"
	StatusPaused   = "paused"
	StatusStopping = "stopping"
	StatusReset    = "reset"
)

// Frame is one event of a log.
type Frame struct {
	Seq       int64
	Type      string
	Data      json.RawMessage
	CreatedAt time.Time
}

// ErrClosed is what Follow returns once the Bus or its Notifier is closed
// (the process shuts down). It is notify.ErrClosed.
var ErrClosed = notify.ErrClosed

// Bus stores and delivers the frames of logs. Its followers are woken
// through n, with which it registers at its first follower. Writes and
// reads that are not a follow keep working after Close.
type Bus struct {
	db        *storage.DB
	n         *notify.Notifier
	followers *notify.Followers // by log; take mu first
	listen    sync.Once         // registers with n, with the first follower
	origin    string            // tags this Bus's notifications, so it skips its own
	onRead    func(log string)  // tests: runs when a shared read of a log's frames starts

	mu      sync.Mutex
	logs    map[string]*followedLog // logs with followers in this process
	stop    context.CancelFunc
	ctx     context.Context // shared reads'; cancelled by Close, which closes Done
	wg      sync.WaitGroup  // shared reads
	metrics metricsOf
}

// NewBus returns a Bus over db whose followers n wakes. Call Close when
// done with it.
func NewBus(db *storage.DB, n *notify.Notifier) *Bus {
	var id [6]byte
	_, _ = rand.Read(id[:]) // crypto/rand never fails on supported platforms
	ctx, stop := context.WithCancel(context.Background())
	return &Bus{db: db, n: n, followers: notify.NewFollowers(), origin: hex.EncodeToString(id[:]),
		logs: map[string]*followedLog{}, ctx: ctx, stop: stop}
}

// Close stops the reads in flight and waits for them, and makes every
// Follow return ErrClosed. It is safe to call more than once.
func (b *Bus) Close() {
	b.mu.Lock() // a read starting under mu is in wg before Wait
	b.stop()
	b.mu.Unlock()
	b.wg.Wait()
}

// Publish appends a frame to the turn's stream and returns its number,
// taken from the turn row in the same transaction: concurrent publishers
// get distinct, gapless numbers and the row lock makes them commit in
// order. A missing turn is an error and uses no number. In a transaction
// ctx carries, the frame is stored in it; either way followers here are
// handed it after the commit (storage.AfterTx).
func (b *Bus) Publish(ctx context.Context, turnID, typ string, data any) (int64, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return 0, fmt.Errorf("publish %s frame: %w", typ, err)
	}
	row := storage.Frame{Log: turnID, Type: typ, Data: string(raw), CreatedAt: frameTime()}
	if b.db.Dialect == storage.Postgres {
		err = b.publishPostgres(ctx, &row)
	} else {
		err = b.db.InTx(ctx, func(ctx context.Context) error { return b.insert(ctx, &row) })
	}
	stored := err
	storage.AfterTx(ctx, func(err error) { b.published(&row, errors.Join(stored, err)) })
	if errors.Is(err, errNoTurn) && !b.db.InTxNow(ctx) {
		// The worker still streaming to a deleted turn: its followers in
		// every process read, find it gone and end. A failed notify leaves
		// them to the poll.
		_ = b.Ended(ctx, turnID)
	}
	if err != nil {
		return 0, fmt.Errorf("publish %s frame to %s: %w", typ, turnID, err)
	}
	return row.Seq, nil
}

// published hands a committed frame to this process's followers; on an
// error they read instead: a commit whose answer was lost may have
// committed.
func (b *Bus) published(row *storage.Frame, err error) {
	if err != nil {
		b.wake(row.Log)
		return
	}
	b.handOver(row.Log, toFrame(*row))
	b.countFrame(row.Type)
}

// publishSQL numbers, stores and announces a turn's frame in one
// statement: outside a transaction one round trip where BEGIN, the
// number, the frame, the NOTIFY and COMMIT took five; all of it commits
// or none, and the NOTIFY is delivered on commit. For a missing turn seq
// is NULL and the NOTIFY names the turn only, so its followers elsewhere
// read and find it gone. With publishFirstSQL and storeAnnounced (a
// turn's ~11 frames and its work frames) it saves 12 ms of a turn's
// sequential median on Postgres and 13 % of its CPU, side by side
// (docs/benchmarks.md, "Devices measured side by side"). SQLite keeps
// the transaction: its statements cost no round trip.
const publishSQL = `WITH numbered AS (
	UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING id, frame_seq
), stored AS (
	INSERT INTO frames (log, seq, type, data, created_at)
	SELECT id, frame_seq, ?, ?, ? FROM numbered
	RETURNING seq
)
SELECT (SELECT seq FROM stored) AS seq,
	pg_notify(?, ? || COALESCE(' ' || (SELECT seq FROM stored)::text || ?, ''))::text AS notified`

// publishPostgres stores row with publishSQL, in the transaction ctx
// carries if any, and sets its number.
func (b *Bus) publishPostgres(ctx context.Context, row *storage.Frame) error {
	var out struct{ Seq *int64 }
	err := b.db.Q(ctx).Raw(publishSQL, row.Log, row.Type, row.Data, row.CreatedAt,
		Channel, notifyPayload(b.origin, row.Log), frameSuffix(b.origin, row)).Scan(&out).Error
	if err != nil {
		return err
	}
	if out.Seq == nil {
		return fmt.Errorf("%w %s", errNoTurn, row.Log)
	}
	row.Seq = *out.Seq
	return nil
}

// errNoTurn: the turn a frame was published to does not exist (its
// conversation was deleted).
var errNoTurn = errors.New("no turn")

// insert numbers and stores row in tx.
func (b *Bus) insert(ctx context.Context, row *storage.Frame) error {
	tx := b.db.Q(ctx)
	if err := tx.Raw("UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING frame_seq", row.Log).Scan(&row.Seq).Error; err != nil {
		return err
	}
	if row.Seq == 0 {
		return fmt.Errorf("%w %s", errNoTurn, row.Log)
	}
	return tx.Create(row).Error
}

// Ended wakes the followers of turns just deleted, here and in every
// other process, so they find their turn gone at once.
func (b *Bus) Ended(ctx context.Context, turnIDs ...string) error {
	// Local followers first: a failed notify must not leave them waiting.
	for _, id := range turnIDs {
		b.wake(id)
	}
	for _, id := range turnIDs {
		if err := notify.Send(ctx, b.db, Channel, notifyPayload(b.origin, id)); err != nil {
			return fmt.Errorf("announce end of %s: %w", id, err)
		}
	}
	return nil
}

// readLimit caps one read of a log's frames.
const readLimit = 1000

// Frames returns the log's frames after seq, oldest first, at most 1,000.
func (b *Bus) Frames(ctx context.Context, log string, after int64) ([]Frame, error) {
	var rows []storage.Frame
	err := b.db.Q(ctx).Where("log = ? AND seq > ?", log, after).Order("seq").Limit(readLimit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read frames of %s: %w", log, err)
	}
	out := make([]Frame, len(rows))
	for i, r := range rows {
		out[i] = toFrame(r)
	}
	return out, nil
}

func toFrame(r storage.Frame) Frame {
	return Frame{Seq: r.Seq, Type: r.Type, Data: json.RawMessage(r.Data), CreatedAt: r.CreatedAt}
}

// Retention is how long a turn's frames are kept after it ends
// (docs/api.md promises 10 minutes), and an appended frame after it is written.
const Retention = 10 * time.Minute

// Sweep removes the frames of turns that ended before the cutoff, and
// those of no turn older than it; logs with a head prune themselves.
func (b *Bus) Sweep(ctx context.Context, endedBefore time.Time) (int64, error) {
	// SQLite compares times as text: stored times are UTC, so the cutoff must be.
	endedBefore = endedBefore.UTC()
	q := b.db.Q(ctx)
	res := q.Where("log IN (?)",
		q.Model(&storage.Turn{}).Select("id").Where("finished_at IS NOT NULL AND finished_at < ?", endedBefore)).
		Or("created_at < ? AND log NOT IN (?) AND log NOT IN (?)", endedBefore, q.Model(&storage.Turn{}).Select("id"),
			q.Model(&storage.FrameHead{}).Select("log")).
		Delete(&storage.Frame{})
	if res.Error != nil {
		return 0, fmt.Errorf("sweep frames: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// Has tells whether the log already has a frame of the given type.
func (b *Bus) Has(ctx context.Context, log, typ string) (bool, error) {
	var n int64
	if err := b.db.Q(ctx).Model(&storage.Frame{}).Where("log = ? AND type = ?", log, typ).Count(&n).Error; err != nil {
		return false, fmt.Errorf("read frames of %s: %w", log, err)
	}
	return n > 0, nil
}
