package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ListenerName is the listener connection's application_name (pg_stat_activity).
const ListenerName = "hub frames listener"

// Reconnect backoff of the listener.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// healthEvery: after this long without a notification the listener pings
// its connection, to find one that died silently.
const healthEvery = 30 * time.Second

// errRegistered ends the listener's wait when a channel was registered.
var errRegistered = errors.New("notify: a channel was registered")

// listen keeps one connection listening on every registered channel until
// ctx ends, reconnecting with jittered backoff when it drops.
func (n *Notifier) listen(ctx context.Context) {
	backoff := minBackoff
	for {
		err := n.listenOnce(ctx, func() { backoff = minBackoff })
		if ctx.Err() != nil {
			return
		}
		n.countReconnect()
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
func (n *Notifier) listenOnce(ctx context.Context, connected func()) error {
	if n.hooks.Connect != nil {
		if err := n.hooks.Connect(ctx); err != nil {
			return err
		}
	}
	cfg, err := pgx.ParseConfig(n.db.URL)
	if err != nil {
		return fmt.Errorf("frames listener: parse database URL: %w", err)
	}
	cfg.RuntimeParams["application_name"] = ListenerName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("frames listener: connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	listened := map[string]int{} // the handlers of each channel told Connected
	err = n.listenOn(ctx, conn, listened, func() {
		connected()
		if n.hooks.Listening != nil {
			n.hooks.Listening(conn.PgConn().PID())
		}
	})
	if err != nil {
		return err
	}
	for {
		wctx, cancel := n.waitContext(ctx, listened)
		msg, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err == nil:
			for _, h := range n.handlers(msg.Channel) {
				if h.Notified != nil {
					h.Notified(msg.Payload)
				}
			}
		case errors.Is(context.Cause(wctx), errRegistered): // the connection stays usable
			if err := n.listenOn(ctx, conn, listened, nil); err != nil {
				return err
			}
		case pgconn.Timeout(err): // quiet for a while: check the connection answers
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

// listenOn LISTENs on every registered channel not in listened, runs then
// (if any), calls the new handlers' Connected and brings listened (handlers
// told, by channel) up to date.
func (n *Notifier) listenOn(ctx context.Context, conn *pgx.Conn, listened map[string]int, then func()) error {
	n.mu.Lock()
	feeds := maps.Clone(n.feeds)
	n.mu.Unlock()
	var connected []Handler
	for ch, hs := range feeds {
		done, ok := listened[ch]
		if !ok {
			if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
				return fmt.Errorf("frames listener: listen on %s: %w", ch, err)
			}
		}
		for _, h := range hs[done:] {
			if h.Connected != nil {
				connected = append(connected, h)
			}
		}
		listened[ch] = len(hs)
	}
	if then != nil {
		then()
	}
	for _, h := range connected {
		h.Connected()
	}
	return nil
}

// waitContext bounds one wait for a notification by healthEvery and by a
// channel registered (errRegistered), also one since listenOn ran.
func (n *Notifier) waitContext(ctx context.Context, listened map[string]int) (context.Context, context.CancelFunc) {
	tctx, cancelTimeout := context.WithTimeout(ctx, healthEvery)
	wctx, cancel := context.WithCancelCause(tctx)
	n.mu.Lock()
	n.relisten = cancel
	for ch, hs := range n.feeds {
		if listened[ch] != len(hs) {
			cancel(errRegistered)
			break
		}
	}
	n.mu.Unlock()
	return wctx, func() {
		n.mu.Lock()
		n.relisten = nil
		n.mu.Unlock()
		cancel(context.Canceled)
		cancelTimeout()
	}
}
