package stream

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
// below NOTIFY's 8000-byte limit.
func notifyPayload(origin, turnID string) string { return origin + " " + turnID }

// listen keeps one connection listening on Channel until ctx ends,
// reconnecting with backoff when it drops.
//
// Notifications are only wake-ups: followers re-read the table after the
// last number they delivered. So a notification lost while disconnected is
// harmless as long as every follower reads again once the listener is back,
// which listenOnce does right after LISTEN succeeds.
func (b *Bus) listen(ctx context.Context) {
	backoff := minBackoff
	for {
		err := b.listenOnce(ctx, func() { backoff = minBackoff })
		if ctx.Err() != nil {
			return
		}
		// Half fixed, half random: api processes that lost Postgres together
		// do not all come back in the same instant.
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
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		return fmt.Errorf("frames listener: listen: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{InterruptChannel}.Sanitize()); err != nil {
		return fmt.Errorf("frames listener: listen: %w", err)
	}
	connected()
	if b.hooks.listening != nil {
		b.hooks.listening(conn.PgConn().PID())
	}
	// Frames published while nobody listened (before this connection, or
	// between the last one dropping and now) are in the table: every
	// follower reads again.
	b.wakeAll()
	for {
		wctx, cancel := context.WithTimeout(ctx, healthEvery)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && pgconn.Timeout(err):
			// Quiet for a while: a timed-out wait leaves the connection
			// usable, so check it answers.
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("frames listener: ping: %w", err)
			}
		case err != nil:
			return fmt.Errorf("frames listener: wait: %w", err)
		case n.Channel == InterruptChannel:
			b.mu.Lock()
			fn := b.onInterrupt
			b.mu.Unlock()
			if fn != nil {
				fn(n.Payload)
			}
		default:
			origin, turnID, ok := strings.Cut(n.Payload, " ")
			if ok && origin != b.origin {
				b.wake(turnID)
			}
		}
	}
}
