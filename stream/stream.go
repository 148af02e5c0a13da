// Package stream keeps logs of frames and carries them to their followers:
// a turn's stream (refs, status, text deltas, tool phases, done), from the
// worker that produces it to every SSE client, and a person's work frames
// (chat's top bar).
//
// Frames are stored per log with a sequence number (the frames table), so a
// client that reconnects with Last-Event-ID reads exactly the frames after
// it: no gap, no repeat, from any api process. The table is the source of
// truth. Once a frame is committed, its writer hands it to the followers in
// its process in memory; on Postgres a NOTIFY carries it (when it fits) to
// the followers in other processes (see listen.go), which hear it through
// the process's notify.Notifier. A follower takes a frame so handed over
// only when it is the next one it needs; otherwise (a gap, a notification
// without the frame, the listener reconnecting) it reads the table. The
// Notifier's poll is the safety net.
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

	"gorm.io/gorm"

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
	// TypeTurnError carries what an error frame carries, under a name that
	// is not EventSource's own `error` event (a broken connection): every
	// error frame comes right after a turn_error frame with the same data,
	// each with its own number, so Last-Event-ID resumes either exactly.
	TypeTurnError = "turn_error"
)

// Phases of a tool frame (docs/api.md, "The stream"). A call that ended
// reports the chat.Call* status it ended with (done, failed, held): the
// values are the same, written out here because stream stays below chat.
const (
	PhaseStarted = "started"
	PhaseDone    = "done"
	PhaseFailed  = "failed"
	PhaseHeld    = "held"
)

// Statuses a status frame carries besides the step (docs/api.md): working
// (chat.StatusWorking's value) while a model step runs, retrying when a
// failed model call runs again (the client drops its partial text),
// paused and stopping right after the person paused or stopped the turn
// (the api's, with the turn's status change), and reset in the frame that
// replaces a reset turn's old done frame.
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

// ErrClosed is what Follow returns once the Bus or its Notifier is closed,
// so an SSE stream ends when its process shuts down and the client
// reconnects elsewhere with Last-Event-ID. It is notify.ErrClosed.
var ErrClosed = notify.ErrClosed

// Bus stores and delivers the frames of logs.
//
// Lifecycle: the Bus's followers are woken through n, the process's one
// notifier (its listener on Postgres, its poll), with which the Bus
// registers when the first follower arrives (a Bus that only publishes, as
// in the worker, registers nothing). Close stops the reads in flight,
// waits for them, and ends every Follow with ErrClosed, as closing n does;
// whoever made the Bus calls Close once the followers are done. Writes and
// reads that are not a follow keep working after Close.
type Bus struct {
	db *storage.DB
	n  *notify.Notifier
	// followers are the Follows of this process, by log; each log's
	// shared state is in logs (both under mu, mu first).
	followers *notify.Followers
	listen    sync.Once // registers with n, with the first follower
	// origin tags this Bus's notifications, so its own listener skips the
	// frames Publish has already announced in-process.
	origin string
	hooks  hooks

	mu      sync.Mutex
	logs    map[string]*followedLog // logs with followers in this process
	closed  chan struct{}           // closed by Close
	stop    context.CancelFunc
	ctx     context.Context // shared reads'; cancelled by Close
	wg      sync.WaitGroup  // shared reads
	metrics metricsOf
}

// hooks let tests watch a Bus's inner workings; zero in production.
type hooks struct {
	// read runs when a shared read of a log's frames starts.
	read func(log string)
}

// NewBus returns a Bus over db whose followers n wakes. Call Close when
// done with it.
func NewBus(db *storage.DB, n *notify.Notifier) *Bus {
	var id [6]byte
	_, _ = rand.Read(id[:]) // crypto/rand never fails on supported platforms
	// Shared reads live as long as the Bus, not as long as any request:
	// Close is what ends them.
	ctx, stop := context.WithCancel(context.Background())
	return &Bus{db: db, n: n, followers: notify.NewFollowers(), origin: hex.EncodeToString(id[:]),
		logs: map[string]*followedLog{}, closed: make(chan struct{}), ctx: ctx, stop: stop}
}

// Close stops the reads in flight and waits for them, and makes every
// Follow return ErrClosed. It is safe to call more than once.
func (b *Bus) Close() {
	b.mu.Lock()
	select {
	case <-b.closed:
	default:
		close(b.closed)
		b.stop()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// Publish appends a frame to the turn's stream and returns its sequence
// number. The number comes from the turn row, incremented in the same
// transaction as the insert, so concurrent publishers (tool calls run side
// by side) get distinct, gapless numbers, and the row lock the increment
// takes makes them commit in number order. A turn that does not exist (its
// conversation was deleted) is an error, and uses no number.
//
// On Postgres this is one statement (publishSQL): one round trip, not five.
//
// In a transaction ctx carries (storage.DB.InTx) the frame is stored in it,
// with the change it belongs to (a model call's status frame with the
// turn's status), at no commit of its own: on Postgres its NOTIFY goes out
// when that transaction commits, and this process's followers are handed
// the frame once it has (storage.AfterTx).
func (b *Bus) Publish(ctx context.Context, turnID, typ string, data any) (int64, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return 0, fmt.Errorf("publish %s frame: %w", typ, err)
	}
	row := storage.Frame{Log: turnID, Type: typ, Data: string(raw), CreatedAt: frameTime()}
	if b.db.Dialect == storage.Postgres {
		err = b.publishPostgres(b.db.Q(ctx), &row)
	} else {
		err = b.db.InTx(ctx, func(ctx context.Context) error { return b.insert(b.db.Q(ctx), &row) })
	}
	stored := err
	storage.AfterTx(ctx, func(err error) { b.published(&row, errors.Join(stored, err)) })
	if err != nil {
		return 0, fmt.Errorf("publish %s frame to %s: %w", typ, turnID, err)
	}
	return row.Seq, nil
}

// published tells this process's followers of a frame whose commit ended
// with err: on success it is handed to them; on an error they read, since
// a commit whose answer was lost may still have committed (a needless
// wake-up costs one read).
func (b *Bus) published(row *storage.Frame, err error) {
	if err != nil {
		b.wake(row.Log)
		return
	}
	b.handOver(row.Log, toFrame(*row))
	b.countFrame(row.Type)
}

// publishSQL numbers, stores and announces a frame in one statement. A
// statement outside a transaction is a transaction of its own, so all of
// it commits or none: the NOTIFY is delivered only once the frame can be
// read (Postgres delivers notifications on commit), and a failed insert
// gives its number back. The payload is the frame (framePayload) when it
// fits, else only its turn and number. The NOTIFY goes out even when the
// turn is missing (seq is then NULL and nothing was stored, and the
// payload names the turn only): its followers in other processes read
// again, find the turn gone and end (see Follow).
const publishSQL = `WITH numbered AS (
	UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING id, frame_seq
), stored AS (
	INSERT INTO frames (log, seq, type, data, created_at)
	SELECT id, frame_seq, ?, ?, ? FROM numbered
	RETURNING seq
)
SELECT (SELECT seq FROM stored) AS seq,
	pg_notify(?, ? || COALESCE(' ' || (SELECT seq FROM stored)::text || ?, ''))::text AS notified`

// publishPostgres stores row in one statement (publishSQL) on q (the
// database, or a transaction) and sets its number.
func (b *Bus) publishPostgres(q *gorm.DB, row *storage.Frame) error {
	var out struct{ Seq *int64 }
	err := q.Raw(publishSQL, row.Log, row.Type, row.Data, row.CreatedAt,
		Channel, notifyPayload(b.origin, row.Log), frameSuffix(b.origin, row)).Scan(&out).Error
	if err != nil {
		return err
	}
	if out.Seq == nil {
		return fmt.Errorf("no turn %s", row.Log)
	}
	row.Seq = *out.Seq
	return nil
}

// insert stores row in tx (the counter, then the insert): SQLite has no
// data-modifying WITH, and on SQLite (hub dev, one process) a statement is
// a function call, not a round trip. Nothing is announced: the publisher
// hands the frame to the process's own followers.
func (b *Bus) insert(tx *gorm.DB, row *storage.Frame) error {
	if err := tx.Raw("UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING frame_seq", row.Log).Scan(&row.Seq).Error; err != nil {
		return err
	}
	if row.Seq == 0 {
		return fmt.Errorf("no turn %s", row.Log)
	}
	return tx.Create(row).Error
}

// Ended tells the followers of turns that were just deleted, in this
// process and (on Postgres) in every other one, to read again: they find
// their turn gone and end (see Follow), at once instead of at their next
// poll. The api calls it after deleting a conversation.
func (b *Bus) Ended(ctx context.Context, turnIDs ...string) error {
	// This process's followers first, all of them: a failed notify below
	// must not leave the rest waiting for their poll.
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

// readLimit caps one read of a log's frames; a follower behind by more
// reads again at once.
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
// (docs/api.md, "The stream": at least 10 minutes), for clients that resume
// with Last-Event-ID, and an appended frame after it is written (Append).
const Retention = 10 * time.Minute

// Sweep removes the frames of turns that ended before the cutoff; docs/api.md
// promises at least Retention after a turn ends. Frames of no turn (its
// conversation was deleted) go once they are older than the cutoff; logs
// with a head (Append) prune themselves.
func (b *Bus) Sweep(ctx context.Context, endedBefore time.Time) (int64, error) {
	// SQLite compares times as the text the driver wrote, with its zone
	// offset: every stored time is UTC, so the cutoff must be too.
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
