package stream

import (
	"context"
	"fmt"

	"hub/notify"
)

// InterruptChannel is the Postgres channel Stop and Pause are announced on,
// so the worker process running a turn's model call closes it at once,
// without waiting for Temporal's cancellation to reach the activity with
// its next (throttled) heartbeat.
const InterruptChannel = "hub_interrupts"

// OnInterrupt has the process's notifier (on Postgres) call fn with the
// turn id of each interrupt announced by any process. A worker passes its
// Interrupts' Interrupt. Call it once. An interrupt announced while the
// listener is away is not replayed: the durable signal still reaches the
// call.
func (b *Bus) OnInterrupt(fn func(turnID string) int) {
	b.n.Listen(InterruptChannel, notify.Handler{Notified: func(turnID string) { fn(turnID) }})
}

// AnnounceInterrupt tells every process that the turn was stopped or
// paused (a NOTIFY on Postgres; on SQLite everything runs in one process,
// where Interrupts already reached the call).
func (b *Bus) AnnounceInterrupt(ctx context.Context, turnID string) error {
	if err := notify.Send(ctx, b.db, InterruptChannel, turnID); err != nil {
		return fmt.Errorf("announce interrupt of %s: %w", turnID, err)
	}
	return nil
}
