package activities_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/chat"
	"hub/dbtest"
	"hub/storage"
	"hub/stream"
)

// TestLateInterruptLeavesTheResumedCallOpen: a pause announced from
// another process reaches the worker late. The worker reads the turn
// (paused), and before it acts the person resumes and the resumed model
// call registers. That call must stay open (it would be cut off and run
// again); the call the pause was for is closed.
func TestLateInterruptLeavesTheResumedCallOpen(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ctx := context.Background()
		require.NoError(t, f.chat.RecordInterrupt(ctx, f.turn.ID, chat.StatusPaused, 1))
		interrupts := stream.NewInterrupts()
		paused, cancelPaused := context.WithCancelCause(ctx)
		defer interrupts.Register(f.turn.ID, cancelPaused)()

		// Right after the worker's read of the turn: the Resume and its call.
		var armed atomic.Bool
		var resumed context.Context
		remove, err := f.db.Observe("test:resume", storage.Observer{After: func(_ any, st storage.Statement) {
			if strings.Contains(st.SQL, "turns") && armed.CompareAndSwap(true, false) {
				c, cancel := context.WithCancelCause(ctx)
				resumed = c
				t.Cleanup(interrupts.Register(f.turn.ID, cancel))
			}
		}})
		require.NoError(t, err)
		t.Cleanup(remove)
		armed.Store(true)
		require.Equal(t, 1, activities.InterruptWhenStopped(f.chat, interrupts)(f.turn.ID))
		require.NotNil(t, resumed, "the hook ran")
		require.ErrorIs(t, context.Cause(paused), stream.ErrInterrupted, "the paused call is closed")
		require.NoError(t, resumed.Err(), "the resumed call stays open")

		// Once the turn reads working, a late announcement closes nothing.
		require.NoError(t, f.chat.SetTurnStatus(ctx, f.turn.ID, chat.StatusWorking, 1))
		require.Zero(t, activities.InterruptWhenStopped(f.chat, interrupts)(f.turn.ID))
		require.NoError(t, resumed.Err())
	})
}
