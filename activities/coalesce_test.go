package activities

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type published struct {
	mu     sync.Mutex
	deltas []string
}

func (p *published) publish(d string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deltas = append(p.deltas, d)
	return nil
}

func (p *published) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.deltas...)
}

// The first delta goes out at once; the ones right after it gather into
// one frame, published by the timer when the model pauses, by the size
// bound, or by Flush at the end; nothing is lost or reordered.
func TestTextFramesCoalesce(t *testing.T) {
	var p published
	tf := &textFrames{publish: p.publish}
	require.NoError(t, tf.Add("Hel"))
	require.Equal(t, []string{"Hel"}, p.get(), "the first text is not held back")
	require.NoError(t, tf.Add("lo"))
	require.NoError(t, tf.Add(", "))
	require.NoError(t, tf.Add(""))
	require.Equal(t, []string{"Hel"}, p.get(), "deltas within the window gather")
	// The model pauses: the timer publishes what gathered.
	require.Eventually(t, func() bool { return len(p.get()) == 2 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []string{"Hel", "lo, "}, p.get())

	// A burst larger than TextBytes goes out without waiting.
	big := strings.Repeat("x", TextBytes)
	require.NoError(t, tf.Add("a"))
	require.NoError(t, tf.Add(big))
	got := p.get()
	require.GreaterOrEqual(t, len(got), 3)
	require.NoError(t, tf.Add("end"))
	require.NoError(t, tf.Flush())
	require.Equal(t, "Hello, a"+big+"end", strings.Join(p.get(), ""), "every byte once, in order")
	n := len(p.get())
	// Nothing can publish later: Flush stopped the timer and left nothing pending.
	tf.mu.Lock()
	require.Nil(t, tf.timer, "no timer left to publish")
	require.Zero(t, tf.pending.Len())
	tf.mu.Unlock()
	require.Len(t, p.get(), n)
	require.NoError(t, tf.Flush(), "nothing left: no frame")
	require.Len(t, p.get(), n)
}

// A publish that fails is reported by the next Add or Flush, and nothing
// is published after it.
func TestTextFramesReportAFailedPublish(t *testing.T) {
	fail := errors.New("database gone")
	calls := 0
	tf := &textFrames{publish: func(string) error { calls++; return fail }}
	require.ErrorIs(t, tf.Add("a"), fail)
	require.ErrorIs(t, tf.Add("b"), fail)
	require.ErrorIs(t, tf.Flush(), fail)
	require.Equal(t, 1, calls)
}

// Take hands back what gathered instead of publishing it (the caller
// stores it with the step), stops the timer, and what it took is never
// published by it.
func TestTextFramesTakeWhatGathered(t *testing.T) {
	var p published
	tf := &textFrames{publish: p.publish}
	got, err := tf.Take()
	require.NoError(t, err)
	require.Empty(t, got, "nothing gathered")
	require.NoError(t, tf.Add("Hel"))
	require.NoError(t, tf.Add("lo"))
	got, err = tf.Take()
	require.NoError(t, err)
	require.Equal(t, "lo", got)
	tf.mu.Lock()
	require.Nil(t, tf.timer, "no timer left to publish")
	tf.mu.Unlock()
	require.NoError(t, tf.Flush())
	require.Equal(t, []string{"Hel"}, p.get(), "what was taken is not published here")

	fail := errors.New("database gone")
	broken := &textFrames{publish: func(string) error { return fail }}
	require.ErrorIs(t, broken.Add("a"), fail)
	_, err = broken.Take()
	require.ErrorIs(t, err, fail, "an earlier failed publish is reported")
}
