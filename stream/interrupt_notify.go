package stream

import (
	"context"
	"fmt"

	"hub/models"
)

// InterruptChannel is the Postgres channel Stop and Pause are announced on,
// so the worker process running a turn's model call closes it at once,
// without waiting for Temporal's cancellation to reach the activity with
// its next (throttled) heartbeat.
const InterruptChannel = "hub_interrupts"

// OnInterrupt starts listening (on Postgres) for interrupts announced by
// any process and calls fn with the turn id of each. A worker passes its
// Interrupts' Interrupt. Call it once, before Close. An interrupt announced
// while the listener is away is not replayed: the durable signal still
// reaches the call.
func (b *Bus) OnInterrupt(fn func(turnID string) int) {
	b.Subscribe(InterruptChannel, func(turnID string) { fn(turnID) }, nil)
}

// AnnounceInterrupt tells every process that the turn was stopped or
// paused (Postgres NOTIFY; on SQLite everything runs in one process, where
// Interrupts already reached the call).
func (b *Bus) AnnounceInterrupt(ctx context.Context, turnID string) error {
	if b.db.Dialect != models.Postgres {
		return nil
	}
	if err := b.db.WithContext(ctx).Exec("SELECT pg_notify(?, ?)", InterruptChannel, turnID).Error; err != nil {
		return fmt.Errorf("announce interrupt of %s: %w", turnID, err)
	}
	return nil
}
