package stream

import (
	"context"
	"fmt"

	"hub/notify"
)

// InterruptChannel is the Postgres channel Stop and Pause are announced on,
// for the worker process running the turn's model call.
const InterruptChannel = "hub_interrupts"

// OnInterrupt has the process's notifier call fn with the turn id of each
// interrupt announced (Postgres). Call it once. One announced while the
// listener is away is lost: the durable signal still reaches the call.
func (b *Bus) OnInterrupt(fn func(turnID string) int) {
	b.n.Listen(InterruptChannel, notify.Handler{Notified: func(turnID string) { fn(turnID) }})
}

// AnnounceInterrupt tells every process that the turn was stopped or paused.
func (b *Bus) AnnounceInterrupt(ctx context.Context, turnID string) error {
	if err := notify.Send(ctx, b.db, InterruptChannel, turnID); err != nil {
		return fmt.Errorf("announce interrupt of %s: %w", turnID, err)
	}
	return nil
}
