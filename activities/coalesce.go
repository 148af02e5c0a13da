package activities

import (
	"context"
	"strings"
	"sync"
	"time"

	"hub/stream"
)

// Text deltas are coalesced into frames, each a row and a commit: the
// first delta of a model call is published at once; after it, deltas
// gather until TextWindow has passed since the last text frame or
// TextBytes have gathered, and a timer publishes what gathered when the
// model pauses (docs/decisions.md, "Text frames are coalesced").
const (
	TextWindow = 20 * time.Millisecond
	TextBytes  = 1024
)

// textFrames publishes one model call's text deltas, coalesced. The
// timer's flush runs on its own goroutine, so frames are published under
// mu, in order.
type textFrames struct {
	publish func(delta string) error

	mu      sync.Mutex
	pending strings.Builder
	last    time.Time   // when the last text frame was published
	timer   *time.Timer // set while pending text waits for the window
	err     error       // the first failed publish, returned by Add or Flush
	sent    bool        // a frame was published (the first goes at once)
}

// newTextFrames publishes the turn's text frames with ctx, not the model
// call's: text gathered when a stop cuts the call is still published.
func newTextFrames(ctx context.Context, frames *stream.Bus, turnID string) *textFrames {
	return &textFrames{publish: func(delta string) error {
		_, err := frames.Publish(ctx, turnID, stream.TypeText, map[string]string{"delta": delta})
		return err
	}}
}

// Add takes one delta: published now when it is the first or the window
// or the size says so, else gathered for the timer.
func (t *textFrames) Add(delta string) error {
	if delta == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	t.pending.WriteString(delta)
	wait := TextWindow - time.Since(t.last)
	if !t.sent || wait <= 0 || t.pending.Len() >= TextBytes {
		return t.flushLocked()
	}
	if t.timer == nil {
		t.timer = time.AfterFunc(wait, func() { _ = t.Flush() }) // an error is kept in t.err for the next call
	}
	return nil
}

// Flush publishes what gathered and stops the timer.
func (t *textFrames) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	return t.flushLocked()
}

// Take ends the gathering like Flush, but hands back what gathered for the
// caller to publish with the step it saves: the last text frame costs no
// commit of its own.
func (t *textFrames) Take() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delta := t.takeLocked()
	if t.err != nil {
		return "", t.err
	}
	return delta, nil
}

func (t *textFrames) flushLocked() error {
	delta := t.takeLocked()
	if delta == "" {
		return nil
	}
	if err := t.publish(delta); err != nil {
		t.err = err
		return err
	}
	return nil
}

// takeLocked stops the timer and empties what gathered, counting it sent.
func (t *textFrames) takeLocked() string {
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	delta := t.pending.String()
	t.pending.Reset()
	if delta != "" {
		t.sent, t.last = true, time.Now()
	}
	return delta
}
