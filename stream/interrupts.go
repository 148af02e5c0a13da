package stream

import (
	"context"
	"sync"
)

// Interrupts closes a turn's model call at once when the person stops or
// pauses it. Temporal delivers an activity's cancellation with its next
// heartbeat, which the SDK throttles; this is the fast path beside that
// durable one. The worker registers each model call it runs; the api
// interrupts the calls of a turn right after it sends the signal.
//
// It reaches calls running in this process (`hub dev`, tests). Across
// processes the durable signal still cancels the call, within a heartbeat.
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
	if i == nil {
		return 0
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	for c := range i.calls[turnID] {
		(*c)(ErrInterrupted)
	}
	return len(i.calls[turnID])
}

// InterruptIf cancels the turn's calls registered now if still, called
// without the lock, says the turn is still stopped or paused; it says how
// many it cancelled. A call registered while still runs is left alone: it
// read the turn after still's answer was settled, so a Resume in between
// started it and a late interrupt must not close it. With no call
// registered, still is not called.
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
