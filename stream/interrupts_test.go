package stream_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/stream"
)

// TestInterruptIfClosesOnlyCallsRegisteredBeforeTheCheck: a worker hears
// of a pause late and checks the turn still reads paused; a Resume and the
// call it starts can come while it checks. That call stays open; the one
// the pause was for is closed.
func TestInterruptIfClosesOnlyCallsRegisteredBeforeTheCheck(t *testing.T) {
	in := stream.NewInterrupts()
	paused, cancelPaused := context.WithCancelCause(context.Background())
	defer in.Register("turn_a", cancelPaused)()
	other, cancelOther := context.WithCancelCause(context.Background())
	defer in.Register("turn_b", cancelOther)()

	var resumed context.Context
	n := in.InterruptIf("turn_a", func() bool {
		ctx, cancel := context.WithCancelCause(context.Background())
		resumed = ctx
		t.Cleanup(in.Register("turn_a", cancel))
		return true
	})
	require.Equal(t, 1, n)
	require.ErrorIs(t, context.Cause(paused), stream.ErrInterrupted)
	require.NoError(t, resumed.Err(), "the call started while the turn was checked stays open")
	require.NoError(t, other.Err(), "another turn's call stays open")

	// Once the turn reads resumed, nothing is closed.
	require.Zero(t, in.InterruptIf("turn_a", func() bool { return false }))
	require.NoError(t, resumed.Err())
	// With no call registered the turn is not even read.
	require.Zero(t, in.InterruptIf("turn_c", func() bool { t.Fatal("read a turn with no call"); return true }))
}
