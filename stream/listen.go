package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"hub/models"
)

// Channel is the Postgres channel frames are announced on. One channel for
// every turn keeps the listener to one LISTEN; the payload names the turn.
const Channel = "hub_frames"

// ListenerName is the listener connection's application_name, so an
// operator (or a test) finds it in pg_stat_activity.
const ListenerName = "hub frames listener"

// Reconnect backoff of the listener: quick after a blip, at most every few
// seconds while Postgres is down (followers still poll meanwhile).
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// healthEvery: after this long without a notification the listener pings
// its connection, so a connection that died silently (no RST, e.g. a
// dropped NAT entry) is replaced in seconds rather than when TCP keepalive
// gives up.
const healthEvery = 30 * time.Second

// hooks let tests watch and hold a Bus's inner workings; zero in
// production.
type hooks struct {
	// connect runs before each listener connection attempt; an error
	// fails it.
	connect func(ctx context.Context) error
	// listening runs once LISTEN succeeded, before followers are woken,
	// with the backend's pid.
	listening func(pid uint32)
	// read runs when a shared read of a turn's frames starts.
	read func(turnID string)
}

// notifyPayload is "<origin> <turnID>": a dozen bytes over the turn id, far
// below NOTIFY's 8000-byte limit. A notification that only wakes (Ended,
// Reopen) carries no more; a published frame's adds its number and, when
// it fits, the frame (frameSuffix).
func notifyPayload(origin, turnID string) string { return origin + " " + turnID }

// notifyWake tells the other processes' followers of turnID to read
// again (a notification without a frame), through q: at once, or when q's
// transaction commits. Only on Postgres; elsewhere there is no other
// process to tell.
func (b *Bus) notifyWake(q *gorm.DB, turnID string) error {
	if b.db.Dialect != models.Postgres {
		return nil
	}
	return q.Exec("SELECT pg_notify(?, ?)", Channel, notifyPayload(b.origin, turnID)).Error
}

// maxPayload is the longest payload Postgres takes: it must be shorter
// than 8000 bytes.
const maxPayload = 7999

// maxCarried bounds the frame a notification carries. Text deltas are
// coalesced to about 1 KiB and tool frames are a few hundred bytes, so
// nearly every frame travels in its notification; a larger one (a big
// proposal) is only announced and read from the table. The bound keeps
// Postgres's notification queue — shared by every listener, truncated only
// as far as the slowest has read, and a full queue fails every publish —
// at a few KiB per frame (docs/architecture.md, "Frames").
const maxCarried = 2048

// frameTime is a frame's stored time: Postgres keeps microseconds, so a
// frame handed over in memory or in a notification carries the time a
// read of the table would give.
func frameTime() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// frameSuffix is what follows the frame's number in its notification:
// " <created, Unix ns> <type> <data>", so the followers in other processes
// take the frame without reading it; or nothing when the payload would
// not fit (the followers then read the table). The number itself (20
// bytes at most) is filled in by publishSQL.
func frameSuffix(origin string, row *models.TurnFrame) string {
	suffix := " " + strconv.FormatInt(row.CreatedAt.UnixNano(), 10) + " " + row.Type + " " + row.Data
	if len(row.Data) > maxCarried || len(notifyPayload(origin, row.TurnID))+1+20+len(suffix) > maxPayload {
		return ""
	}
	return suffix
}

// parseNotification reads a payload of Channel: its origin and turn, and
// the frame when it carries one.
func parseNotification(payload string) (origin, turnID string, f Frame, carried bool) {
	fields := strings.SplitN(payload, " ", 6)
	if len(fields) < 2 {
		return "", "", Frame{}, false
	}
	origin, turnID = fields[0], fields[1]
	if len(fields) < 6 {
		return origin, turnID, Frame{}, false
	}
	seq, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return origin, turnID, Frame{}, false
	}
	created, err := strconv.ParseInt(fields[3], 10, 64)
	if err != nil || fields[4] == "" || !json.Valid([]byte(fields[5])) {
		return origin, turnID, Frame{}, false
	}
	return origin, turnID, Frame{Seq: seq, Type: fields[4], Data: json.RawMessage(fields[5]),
		CreatedAt: time.Unix(0, created).UTC()}, true
}

// subscription is what a Bus does with the notifications of a channel
// other than its own (see Subscribe).
type subscription struct {
	wake    func(payload string)
	wakeAll func() // nil: nothing to do on (re)connect
}

// errSubscribed ends the listener's wait when a channel was subscribed, so
// it LISTENs on that channel too.
var errSubscribed = errors.New("stream: a channel was subscribed")

// Subscribe has the Bus's listener (Postgres) also LISTEN on channel, for
// notifications other parts of Hub send in their own transactions: wake
// is called with the payload of each, and wakeAll, unless nil, once the
// listener is listening on the channel and again after every reconnect,
// since notifications sent while nobody listened are lost. Both run on the
// listener's goroutine and must return quickly.
//
// It starts the listener if it is not running; a channel subscribed while
// it runs is added to the same connection. On SQLite it only records the
// subscription: everything runs in one process, where the writer wakes its
// readers itself. Subscribe each channel once, before Close.
func (b *Bus) Subscribe(channel string, wake func(payload string), wakeAll func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.closed:
		return // closed: no listener is started behind Close's back
	default:
	}
	b.subs[channel] = subscription{wake: wake, wakeAll: wakeAll}
	if b.relisten != nil {
		b.relisten(errSubscribed)
	}
	if b.db.Dialect == models.Postgres && !b.listening {
		// Started under the lock Close takes, so Close waits for it.
		b.listening = true
		b.wg.Go(func() { b.listen(b.ctx) })
	}
}

// listen keeps one connection listening on Channel and the subscribed
// channels until ctx ends, reconnecting with backoff when it drops.
//
// A notification either carries a frame, which followers take only when it
// is the next one they need (see handOver), or is a wake-up, after which
// they re-read the table after the last number they delivered. So a
// notification lost while disconnected is harmless as long as every
// follower reads again once the listener is back, which listenOnce does
// right after LISTEN succeeds; one lost otherwise leaves a gap that the
// next frame carried shows (or the poll).
func (b *Bus) listen(ctx context.Context) {
	backoff := minBackoff
	for {
		err := b.listenOnce(ctx, func() { backoff = minBackoff })
		if ctx.Err() != nil {
			return
		}
		// Half fixed, half random: api processes that lost Postgres together
		// do not all come back in the same instant.
		b.countReconnect()
		delay := backoff/2 + rand.N(backoff/2+1)
		slog.WarnContext(ctx, "frames listener not connected; followers poll until it is",
			"error", err, "retry_in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// listenOnce connects, listens and delivers notifications until the
// connection fails or ctx ends. connected runs once LISTEN succeeded.
func (b *Bus) listenOnce(ctx context.Context, connected func()) error {
	if b.hooks.connect != nil {
		if err := b.hooks.connect(ctx); err != nil {
			return err
		}
	}
	cfg, err := pgx.ParseConfig(b.db.URL)
	if err != nil {
		return fmt.Errorf("frames listener: parse database URL: %w", err)
	}
	cfg.RuntimeParams["application_name"] = ListenerName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("frames listener: connect: %w", err)
	}
	defer func() {
		// ctx may be over already; closing still deserves a moment.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	listened := map[string]bool{}
	wakeAll, err := b.listenOn(ctx, conn, listened)
	if err != nil {
		return err
	}
	connected()
	if b.hooks.listening != nil {
		b.hooks.listening(conn.PgConn().PID())
	}
	// Frames published while nobody listened (before this connection, or
	// between the last one dropping and now) are in the table: every
	// follower reads again, and so do the subscribers'.
	b.wakeAll()
	for _, fn := range wakeAll {
		fn()
	}
	for {
		wctx, cancel := b.waitContext(ctx, listened)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err == nil && n.Channel == Channel:
			// This process's own frames were handed over by Publish.
			origin, turnID, f, carried := parseNotification(n.Payload)
			switch {
			case origin == "" || origin == b.origin:
			case carried:
				b.handOver(turnID, f)
			default:
				b.wake(turnID)
			}
		case err == nil:
			b.mu.Lock()
			sub, ok := b.subs[n.Channel]
			b.mu.Unlock()
			if ok {
				sub.wake(n.Payload)
			}
		case errors.Is(context.Cause(wctx), errSubscribed):
			// A cancelled wait leaves the connection usable, like a
			// timed-out one.
			wakeAll, err := b.listenOn(ctx, conn, listened)
			if err != nil {
				return err
			}
			for _, fn := range wakeAll {
				fn()
			}
		case pgconn.Timeout(err):
			// Quiet for a while: a timed-out wait leaves the connection
			// usable, so check it answers.
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("frames listener: ping: %w", err)
			}
		default:
			return fmt.Errorf("frames listener: wait: %w", err)
		}
	}
}

// listenOn LISTENs on Channel and every subscribed channel not in
// listened yet, adds them to it, and returns the wakeAll functions of the
// subscriptions just added.
func (b *Bus) listenOn(ctx context.Context, conn *pgx.Conn, listened map[string]bool) ([]func(), error) {
	b.mu.Lock()
	channels := []string{Channel}
	for ch := range b.subs {
		channels = append(channels, ch)
	}
	b.mu.Unlock()
	var wakeAll []func()
	for _, ch := range channels {
		if listened[ch] {
			continue
		}
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return nil, fmt.Errorf("frames listener: listen on %s: %w", ch, err)
		}
		listened[ch] = true
		b.mu.Lock()
		if fn := b.subs[ch].wakeAll; fn != nil {
			wakeAll = append(wakeAll, fn)
		}
		b.mu.Unlock()
	}
	return wakeAll, nil
}

// waitContext bounds one wait for a notification: healthEvery, or until a
// channel is subscribed (Subscribe cancels it with errSubscribed; it is
// cancelled so at once if a channel was subscribed since listenOn ran).
func (b *Bus) waitContext(ctx context.Context, listened map[string]bool) (context.Context, context.CancelFunc) {
	tctx, cancelTimeout := context.WithTimeout(ctx, healthEvery)
	wctx, cancel := context.WithCancelCause(tctx)
	b.mu.Lock()
	b.relisten = cancel
	for ch := range b.subs {
		if !listened[ch] {
			cancel(errSubscribed)
			break
		}
	}
	b.mu.Unlock()
	return wctx, func() {
		b.mu.Lock()
		b.relisten = nil
		b.mu.Unlock()
		cancel(context.Canceled)
		cancelTimeout()
	}
}
