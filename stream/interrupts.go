package stream

import (
	"context"
	"fmt"
	"sync"

	"hub/notify"
)

// Interrupts closes a turn's model calls in this process at once when the
// person stops or pauses it: the fast path beside Temporal's cancellation,
// which waits for a throttled heartbeat.
type Interrupts struct {
	mu    sync.Mutex
	calls map[string]map[*context.CancelCauseFunc]struct{}
}

// ErrInterrupted is the cause a call interrupted this way is cancelled
// with.
var ErrInterrupted = interruptedError{}

type interruptedError struct{}

func (interruptedError) Error() string { return "interrupted by the person (stop or pause)" }

// NewInterrupts returns an empty registry.
func NewInterrupts() *Interrupts {
	return &Interrupts{calls: map[string]map[*context.CancelCauseFunc]struct{}{}}
}

// Register makes a call of the turn interruptible; call the returned
// function when the call ends.
func (i *Interrupts) Register(turnID string, cancel context.CancelCauseFunc) (unregister func()) {
	if i == nil {
		return func() {}
	}
	key := &cancel
	i.mu.Lock()
	if i.calls[turnID] == nil {
		i.calls[turnID] = map[*context.CancelCauseFunc]struct{}{}
	}
	i.calls[turnID][key] = struct{}{}
	i.mu.Unlock()
	return func() {
		i.mu.Lock()
		delete(i.calls[turnID], key)
		if len(i.calls[turnID]) == 0 {
			delete(i.calls, turnID)
		}
		i.mu.Unlock()
	}
}

// Interrupt cancels the turn's registered calls and says how many there
// were in this process.
func (i *Interrupts) Interrupt(turnID string) int {
	return i.InterruptIf(turnID, func() bool { return true })
}

// InterruptIf cancels the turn's calls registered now if still (called
// without the lock, and only when there are some) says the turn is still
// stopped or paused, and says how many. A call registered while still runs
// was started after a Resume and is left alone.
func (i *Interrupts) InterruptIf(turnID string, still func() bool) int {
	if i == nil {
		return 0
	}
	i.mu.Lock()
	calls := make([]*context.CancelCauseFunc, 0, len(i.calls[turnID]))
	for c := range i.calls[turnID] {
		calls = append(calls, c)
	}
	i.mu.Unlock()
	if len(calls) == 0 || !still() {
		return 0
	}
	for _, c := range calls {
		(*c)(ErrInterrupted)
	}
	return len(calls)
}

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
