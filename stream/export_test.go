package stream

import (
	"context"
	"time"

	"hub/notify"
)

// SetListenerHooks lets a test watch and hold the listener of b's
// notifier: connect runs before each connection attempt (an error fails
// that attempt), listening once LISTEN succeeded, with the backend's pid.
// Call it before the first Follow.
func SetListenerHooks(b *Bus, connect func(ctx context.Context) error, listening func(pid uint32)) {
	b.n.SetHooks(notify.Hooks{Connect: connect, Listening: listening})
}

// SetPollInterval sets the poll interval of b's notifier.
func SetPollInterval(b *Bus, d time.Duration) { b.n.SetPollInterval(d) }

// SetReadHook has read called whenever b starts a read of a turn's frames
// for its followers. Call it before the first Follow.
func SetReadHook(b *Bus, read func(turnID string)) { b.onRead = read }

// Followed is how many turns b keeps for followers in this process: what
// a follower that never left would leave behind.
func Followed(b *Bus) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.logs)
}

// Wake tells the turn's followers in this process to read again, as a
// reopening's commit does.
func (b *Bus) Wake(turnID string) { b.wake(turnID) }
