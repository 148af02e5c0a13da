package stream_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/stream"
)

// Tail says what a client at a given number has: the api answers 204 when
// it has everything, and numbers a stand-in done frame so that the client
// has everything after it.
func TestTail(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		end := func(turnID string, at time.Time) {
			require.NoError(t, f.db.Model(&storage.Turn{}).Where("id = ?", turnID).
				Updates(map[string]any{"status": "done", "finished_at": at.UTC()}).Error)
		}
		tail := func(turnID string) stream.Tail {
			tl, err := f.bus.Tail(ctx, turnID)
			require.NoError(t, err)
			return tl
		}

		// Running, no frame yet: only numbers beyond 0 are delivered.
		running := f.turn(t)
		tl := tail(running.ID)
		require.Equal(t, stream.Tail{}, tl)
		require.False(t, tl.Delivered(0))
		require.True(t, tl.Delivered(1))
		f.publish(t, running.ID, stream.TypeText, map[string]string{"delta": "a"})
		f.publish(t, running.ID, stream.TypeText, map[string]string{"delta": "b"})
		tl = tail(running.ID)
		require.Equal(t, stream.Tail{Last: 2}, tl)
		require.False(t, tl.Delivered(2), "the next frame is on its way")
		require.True(t, tl.Delivered(3))
		require.True(t, tl.Delivered(math.MaxInt64))

		// Ended with its done frame: that number and beyond are delivered.
		done := f.publishN(t, running.ID, 1)
		end(running.ID, time.Now())
		tl = tail(running.ID)
		require.Equal(t, stream.Tail{Last: done, Done: done}, tl)
		require.False(t, tl.Delivered(done-1))
		require.True(t, tl.Delivered(done))

		// Ended a moment ago, done not yet written: waited for.
		fresh := f.turn(t)
		f.publish(t, fresh.ID, stream.TypeText, map[string]string{"delta": "a"})
		end(fresh.ID, time.Now())
		tl = tail(fresh.ID)
		require.Equal(t, stream.Tail{Last: 1}, tl)
		require.False(t, tl.Delivered(1))

		// Ended long ago and swept: the stand-in takes the done frame's
		// number, and a client that has it, or is past it, is delivered.
		old := f.turn(t)
		done = f.publishN(t, old.ID, 3)
		end(old.ID, time.Now().Add(-stream.Retention-time.Minute))
		_, err := f.bus.Sweep(ctx, time.Now().Add(-stream.Retention))
		require.NoError(t, err)
		tl = tail(old.ID)
		require.Equal(t, stream.Tail{Last: done, Swept: true}, tl)
		for _, after := range []int64{0, 2, done - 1} {
			require.False(t, tl.Delivered(after), "after %d", after)
			require.Equal(t, done, tl.StandIn(after), "after %d", after)
			require.True(t, tl.Delivered(tl.StandIn(after)))
		}
		require.True(t, tl.Delivered(done))
		require.Equal(t, done+1, tl.StandIn(done), "a follower that had every frame but no done")
		require.True(t, tl.Delivered(done+1))

		// Gone.
		require.NoError(t, f.db.Delete(&storage.Turn{}, "id = ?", old.ID).Error)
		_, err = f.bus.Tail(ctx, old.ID)
		require.ErrorIs(t, err, stream.ErrTurnGone)
	})
}
