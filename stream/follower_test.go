package stream_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/storage"
	"hub/stream"
)

// apiRead is the api's read of a turn's stream after Join: the turn with
// the person's access, where its frames stand and its frames after
// `after`, in chat's one query.
func (f *fixture) apiRead(t *testing.T, turnID string, after int64) ([]stream.Frame, stream.Tail) {
	t.Helper()
	ts, err := f.chat.GetTurnForStream(t.Context(), f.actor, turnID, after)
	require.NoError(t, err)
	frames := make([]stream.Frame, len(ts.Frames))
	for i, fr := range ts.Frames {
		frames[i] = stream.Frame{Seq: fr.Seq, Type: fr.Type, Data: json.RawMessage(fr.Data), CreatedAt: fr.CreatedAt}
	}
	return frames, stream.TailOf(ts.Last, ts.Done, ts.FinishedAt)
}

// followFrom runs a joined follower's Follow with the caller's read to its
// end and returns the numbers delivered and its error.
func followFrom(t *testing.T, fl *stream.Follower, after int64, frames []stream.Frame, tail stream.Tail) ([]int64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	var seqs []int64
	err := fl.Follow(ctx, after, frames, tail, func(f stream.Frame) error {
		seqs = append(seqs, f.Seq)
		return nil
	})
	return seqs, err
}

// warmListener has bus's listener connected (Postgres) before the test's
// follower joins, so that its first connection's wake-up of every
// follower (a read) cannot stand in for a frame handed over.
func warmListener(t *testing.T, bus *stream.Bus, url string) {
	t.Helper()
	if !dbtest.IsPostgres(url) {
		return
	}
	pids := listenerPIDs(bus, nil)
	warm, err := bus.Join("warm")
	require.NoError(t, err)
	receive(t, pids, "the listener")
	warm.Leave()
}

// The api reads a turn's first frames itself, with the turn (one statement
// instead of two), after registering its follower: a frame published
// between that read and Follow is handed over to the follower, and
// delivered once, without a read of the follower's own — from this
// process (in memory) and from another (the notification carries it), on
// a turn that ends meanwhile. The poll is an hour: a frame that fell
// between the read and the follower would never come.
func TestAFramePublishedBetweenTheReadAndFollowIsDeliveredOnce(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		reads := countReads(bus)
		warmListener(t, bus, f.url)
		publishers := map[string]*stream.Bus{"here": bus}
		if dbtest.IsPostgres(f.url) {
			publishers["another process"] = newBus(t, open(t, f.url))
		}
		for name, pub := range publishers {
			t.Run(name, func(t *testing.T) {
				turn := f.turn(t)
				first := f.publish(t, turn.ID, stream.TypeStatus, map[string]any{"status": "working"})
				fl, err := bus.Join(turn.ID)
				require.NoError(t, err)
				defer fl.Leave()
				frames, tail := f.apiRead(t, turn.ID, 0)
				require.Equal(t, []int64{first}, seqsOf(frames))

				text, err := pub.Publish(t.Context(), turn.ID, stream.TypeText, map[string]any{"delta": "between"})
				require.NoError(t, err)
				done, err := pub.Publish(t.Context(), turn.ID, stream.TypeDone, map[string]any{"status": "done"})
				require.NoError(t, err)

				before := reads.Load()
				got, err := followFrom(t, fl, 0, frames, tail)
				require.NoError(t, err)
				require.Equal(t, []int64{first, text, done}, got, "each once, in order")
				require.Equal(t, before, reads.Load(), "the follower read nothing itself")
			})
		}
	})
}

func seqsOf(frames []stream.Frame) []int64 {
	out := make([]int64, len(frames))
	for i, f := range frames {
		out[i] = f.Seq
	}
	return out
}

// A wake-up that calls for a read (a frame not handed over: a notification
// too large to carry it, a failed publish, a reopen) coming between the
// caller's read and Follow is not lost: Follow reads the table for it.
func TestAWakeUpBetweenTheReadAndFollowIsRead(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		warmListener(t, bus, f.url)
		turn := f.turn(t)
		fl, err := bus.Join(turn.ID)
		require.NoError(t, err)
		defer fl.Leave()
		frames, tail := f.apiRead(t, turn.ID, 0)
		require.Empty(t, frames)

		// Stored without a hand-over, then the turn is woken.
		var seq int64
		require.NoError(t, f.db.Raw("UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING frame_seq", turn.ID).Scan(&seq).Error)
		require.NoError(t, f.db.Create(&storage.Frame{Log: turn.ID, Seq: seq, Type: stream.TypeText, Data: `{"delta":"unseen"}`,
			CreatedAt: time.Now().UTC()}).Error)
		bus.Wake(turn.ID)

		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		var got []int64
		err = fl.Follow(ctx, 0, frames, tail, func(fr stream.Frame) error {
			got = append(got, fr.Seq)
			if fr.Seq == seq {
				// Only once the frame came: a done frame handed over
				// ends the stream.
				if _, err := bus.Publish(ctx, turn.ID, stream.TypeDone, map[string]any{"status": "done"}); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, []int64{seq, seq + 1}, got)
	})
}

// A caller's read that stopped short of the turn's last frame (its limit)
// is read on from; one that found nothing of a turn whose frames were
// swept ends the stream as Follow's own read would.
func TestFollowReadsOnWhereTheCallersReadStopped(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		turn := f.turn(t)
		done := f.publishN(t, turn.ID, 4)
		fl, err := bus.Join(turn.ID)
		require.NoError(t, err)
		defer fl.Leave()
		frames, tail := f.apiRead(t, turn.ID, 1)
		require.Equal(t, seqRange(2, done), seqsOf(frames))
		got, err := followFrom(t, fl, 1, frames[:2], tail)
		require.NoError(t, err)
		require.Equal(t, seqRange(2, done), got, "the rest read, none twice")

		swept := f.turn(t)
		last := f.publishN(t, swept.ID, 2)
		require.NoError(t, f.db.Model(&storage.Turn{}).Where("id = ?", swept.ID).
			Updates(map[string]any{"status": "done", "finished_at": time.Now().Add(-stream.Retention - time.Minute).UTC()}).Error)
		_, err = bus.Sweep(t.Context(), time.Now().Add(-stream.Retention))
		require.NoError(t, err)
		bus = newBus(t, f.db)
		reads := countReads(bus)
		for _, after := range []int64{0, last} {
			fl, err := bus.Join(swept.ID)
			require.NoError(t, err)
			frames, tail := f.apiRead(t, swept.ID, after)
			require.Empty(t, frames)
			_, err = followFrom(t, fl, after, frames, tail)
			require.ErrorIs(t, err, stream.ErrFramesSwept, "from %d", after)
			fl.Leave()
		}
		require.Zero(t, reads.Load(), "the caller's read told")
	})
}

// A follower that leaves, whatever happened (it never followed: the turn
// was not found, or the client had everything; its client hung up while
// it waited), leaves nothing registered behind; leaving twice is harmless.
func TestAFollowerThatLeavesLeavesNothing(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		turn := f.turn(t)
		a, err := bus.Join(turn.ID)
		require.NoError(t, err)
		b, err := bus.Join(turn.ID)
		require.NoError(t, err)
		other, err := bus.Join("no such turn")
		require.NoError(t, err)
		require.Equal(t, 2, stream.Followed(bus))
		other.Leave()
		other.Leave()
		require.Equal(t, 1, stream.Followed(bus))

		// b waits for frames until its client hangs up.
		frames, tail := f.apiRead(t, turn.ID, 0)
		ctx, cancel := context.WithCancel(t.Context())
		ended := make(chan error, 1)
		go func() { ended <- b.Follow(ctx, 0, frames, tail, func(stream.Frame) error { return nil }) }()
		a.Leave()
		require.Equal(t, 1, stream.Followed(bus), "b still follows")
		cancel()
		require.ErrorIs(t, receive(t, ended, "the end of Follow"), context.Canceled)
		b.Leave()
		require.Zero(t, stream.Followed(bus))

		var none *stream.Follower
		none.Leave() // what Join gave once the Bus was closed
		bus.Close()
		closed, err := bus.Join(turn.ID)
		require.ErrorIs(t, err, stream.ErrClosed)
		closed.Leave()
		require.Zero(t, stream.Followed(bus))
	})
}
