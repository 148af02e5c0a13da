package stream_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
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

// A follower's read that finds no frame (a stream opened before the turn's
// first, or caught up) learns in the same query that the turn exists and
// runs: one read, where it was the frames and then the turn's finished_at.
func TestAReadWithoutFramesIsOneQuery(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn, other := f.turn(t), f.turn(t)
		read, otherRead := make(chan struct{}, 4), make(chan struct{}, 4)
		stream.SetReadHook(f.bus, func(id string) {
			if id == other.ID {
				otherRead <- struct{}{}
			} else {
				read <- struct{}{}
			}
		})
		if f.db.Dialect == storage.Postgres {
			// The listener up first: once connected it has every follower
			// read again (it may have missed a notification). A follower of
			// another turn starts it, and reads twice: once when it starts,
			// once when the listener (held until then) has connected.
			entered, release := make(chan struct{}, 1), make(chan struct{})
			stream.SetListenerHooks(f.bus, nil, func(uint32) {
				select {
				case entered <- struct{}{}:
				default:
				}
				<-release
			})
			ofl := startFollow(t, f.bus, other.ID, 0)
			<-otherRead
			<-entered
			close(release)
			<-otherRead
			// Its reads are over once it has a frame published after them.
			f.publish(t, other.ID, stream.TypeText, map[string]string{"delta": "x"})
			require.EqualValues(t, 1, ofl.next(t).Seq)
		}
		rec := dbtest.Record(t, f.db)
		fl := startFollow(t, f.bus, turn.ID, 0)
		<-read
		seq := f.publish(t, turn.ID, stream.TypeText, map[string]string{"delta": "hi"})
		require.Equal(t, seq, fl.next(t).Seq, "handed over, after the read")
		var reads []string
		for _, q := range rec.Take() {
			if strings.HasPrefix(strings.TrimSpace(q), "SELECT") {
				reads = append(reads, q)
			}
		}
		require.Len(t, reads, 1, "%q", reads)
		require.Equal(t, 1, dbtest.Matching(reads, "FROM turns LEFT JOIN turn_frames"))
	})
}
