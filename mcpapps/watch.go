package mcpapps

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"time"

	"hub/workspace"
)

// watcher is a session Hub holds with a server after listing it, to hear
// notifications/tools/list_changed and list its tools again at once. A
// session that ends is dropped; the next listing opens another.
type watcher struct {
	stop context.CancelFunc // ends the watch; its goroutine closes the session as it returns
}

// MaxHeldSessions bounds the sessions one process holds; past it a
// server's listing is only refreshed by the TTL.
const MaxHeldSessions = 200

// watchTools holds a session with the server unless one is held already.
func (c *Catalog) watchTools(t workspace.AppTarget) {
	c.mu.Lock()
	if _, ok := c.watch[t.ID]; ok || c.closed || len(c.watch) >= MaxHeldSessions {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{stop: cancel}
	c.watch[t.ID] = w
	c.holds.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.holds.Done()
		c.hold(ctx, w, t)
	}()
}

func (c *Catalog) hold(ctx context.Context, w *watcher, t workspace.AppTarget) {
	defer func() {
		c.mu.Lock()
		if c.watch[t.ID] == w {
			delete(c.watch, t.ID)
		}
		c.mu.Unlock()
		w.stop()
	}()
	secret, err := c.secret(t)
	if err != nil {
		return
	}
	changed := make(chan struct{}, 1)
	cctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	cs, err := c.session(cctx, t.URL, secret, func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	cancel()
	if err != nil {
		return
	}
	// Closed here, whatever ends the watch, before Close returns.
	defer func() { _ = cs.Close() }()
	done := make(chan struct{})
	go func() { _ = cs.Wait(); close(done) }()
	// A change between the listing and this session was not heard.
	if !c.relist(ctx, t) {
		return
	}
	// Every TTL the connection is read again: one deleted, switched off or
	// moved through another process ends the session.
	check := time.NewTicker(c.o.TTL)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-check.C:
			fresh, err := c.ws.AppTarget(ctx, t.SpaceID, t.ID)
			var gone *workspace.NotFoundError
			if errors.As(err, &gone) || err == nil && (!fresh.Enabled || fresh.URL != t.URL || !bytes.Equal(fresh.Secret, t.Secret)) {
				return
			}
		case <-changed:
			if !c.relist(ctx, t) {
				return
			}
		}
	}
}

// relist lists a held server's tools again; false when the connection is
// gone.
func (c *Catalog) relist(ctx context.Context, t workspace.AppTarget) bool {
	fresh, err := c.ws.AppTarget(ctx, t.SpaceID, t.ID)
	if err != nil {
		return false // removed
	}
	if _, err := c.refresh(ctx, fresh); err != nil {
		slog.WarnContext(ctx, "listing an MCP server's changed tools failed", "connection", t.ID, "error", err)
	}
	return true
}

// Forget ends the session held with a removed connection.
func (c *Catalog) Forget(connID string) {
	c.mu.Lock()
	w := c.watch[connID]
	delete(c.watch, connID)
	delete(c.built, connID)
	c.mu.Unlock()
	if w != nil {
		w.stop()
	}
}
