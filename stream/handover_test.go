package stream_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/storage"
	"hub/stream"
)

// countReads has bus count the reads it starts for its followers.
func countReads(bus *stream.Bus) *atomic.Int64 {
	var reads atomic.Int64
	stream.SetReadHook(bus, func(string) { reads.Add(1) })
	return &reads
}

// A follower in the publisher's process reads the table once, when it
// starts; every frame published after that is handed to it in memory.
func TestFollowerTakesFramesPublishedHereWithoutReading(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		reads := countReads(bus)
		var pids <-chan uint32
		if dbtest.IsPostgres(f.url) {
			pids = listenerPIDs(bus, nil)
		}
		publish := func(typ string, data any) int64 {
			t.Helper()
			seq, err := bus.Publish(t.Context(), turn.ID, typ, data)
			require.NoError(t, err)
			return seq
		}
		first := publish(stream.TypeStatus, map[string]any{"status": "working"})
		fl := startFollow(t, bus, turn.ID, 0)
		require.Equal(t, first, fl.next(t).Seq)
		if pids != nil {
			// The listener's first connection has every follower read once.
			receive(t, pids, "the listener")
		}
		before := reads.Load()
		for i := range 20 {
			seq := publish(stream.TypeText, map[string]any{"delta": strings.Repeat("x", i)})
			got := fl.next(t)
			require.Equal(t, seq, got.Seq)
			require.Equal(t, stream.TypeText, got.Type)
			require.JSONEq(t, `{"delta": "`+strings.Repeat("x", i)+`"}`, string(got.Data))
		}
		done := publish(stream.TypeDone, map[string]any{"status": "done"})
		require.Equal(t, done, fl.next(t).Seq)
		require.NoError(t, fl.end(t))
		// At most the listener's read, which may come after `before`.
		require.LessOrEqual(t, reads.Load()-before, int64(1), "21 frames, no read each")
	})
}

// A follower in another process (another Bus) takes the frames the
// notification carries, without reading them; a frame too large for a
// notification to carry (over 2 KiB) is read.
func TestNotifyCarriesTheFrame(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dbtest.Postgres(t))
	turn := f.turn(t)
	reader := newBus(t, open(t, f.url))
	stream.SetPollInterval(reader, time.Hour)
	reads := countReads(reader)
	pids := listenerPIDs(reader, nil)

	fl := startFollow(t, reader, turn.ID, 0)
	receive(t, pids, "listener connection")
	first := f.publish(t, turn.ID, stream.TypeStatus, map[string]any{"status": "working"})
	require.Equal(t, first, fl.next(t).Seq)
	before := reads.Load()
	for i := range 10 {
		seq := f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": i})
		got := fl.next(t)
		require.Equal(t, seq, got.Seq)
		require.JSONEq(t, `{"delta": `+string(rune('0'+i))+`}`, string(got.Data))
		require.WithinDuration(t, time.Now(), got.CreatedAt, time.Hour, "its time travels with it")
		require.Equal(t, got.CreatedAt.Truncate(time.Microsecond), got.CreatedAt, "as the table keeps it")
	}
	// The listener's first read may come after `before`.
	require.LessOrEqual(t, reads.Load()-before, int64(1), "10 frames carried, none read")

	// Over the 2 KiB a notification carries, and over what it can hold.
	for _, n := range []int{3000, 9000} {
		before = reads.Load()
		big := strings.Repeat("y", n)
		seq := f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": big})
		got := fl.next(t)
		require.Equal(t, seq, got.Seq)
		require.JSONEq(t, `{"delta": "`+big+`"}`, string(got.Data))
		require.GreaterOrEqual(t, reads.Load()-before, int64(1), "%d bytes, too large to carry: read", n)
	}

	done := f.publish(t, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
	require.Equal(t, done, fl.next(t).Seq)
	require.NoError(t, fl.end(t))
}

// A frame handed over after one that was not (stored by another writer
// whose wake-up never came) is not delivered before the missing one: the
// follower sees the gap and reads it.
func TestFollowerReadsAGapBeforeAFrameHandedOver(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		var pids <-chan uint32
		if dbtest.IsPostgres(f.url) {
			pids = listenerPIDs(bus, nil)
		}
		publish := func(typ string) int64 {
			t.Helper()
			seq, err := bus.Publish(t.Context(), turn.ID, typ, map[string]any{})
			require.NoError(t, err)
			return seq
		}
		first := publish(stream.TypeStatus)
		fl := startFollow(t, bus, turn.ID, 0)
		require.Equal(t, first, fl.next(t).Seq)
		if pids != nil {
			receive(t, pids, "the listener")
		}
		// A frame stored without any wake-up.
		var seq int64
		require.NoError(t, f.db.Raw("UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING frame_seq", turn.ID).Scan(&seq).Error)
		require.NoError(t, f.db.Create(&storage.Frame{Log: turn.ID, Seq: seq, Type: stream.TypeText, Data: `{"delta":"unseen"}`,
			CreatedAt: time.Now().UTC()}).Error)
		next := publish(stream.TypeText)
		got := fl.next(t)
		require.Equal(t, seq, got.Seq, "the missing frame first")
		require.JSONEq(t, `{"delta":"unseen"}`, string(got.Data))
		require.Equal(t, next, fl.next(t).Seq)
		done := publish(stream.TypeDone)
		require.Equal(t, done, fl.next(t).Seq)
		require.NoError(t, fl.end(t))
	})
}

// A frame published in the caller's transaction is stored, numbered and
// handed over only if that transaction commits; a rolled-back one gives
// its number back and reaches no follower.
func TestPublishInATransactionGoesWithIt(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		reads := countReads(bus)
		var pids <-chan uint32
		if dbtest.IsPostgres(f.url) {
			pids = listenerPIDs(bus, nil)
		}
		first, err := bus.Publish(t.Context(), turn.ID, stream.TypeStatus, map[string]any{"status": "working"})
		require.NoError(t, err)
		fl := startFollow(t, bus, turn.ID, 0)
		require.Equal(t, first, fl.next(t).Seq)
		if pids != nil {
			receive(t, pids, "the listener")
		}
		before := reads.Load()

		err = f.db.InTx(t.Context(), func(ctx context.Context) error {
			_, err := bus.Publish(ctx, turn.ID, stream.TypeText, map[string]any{"delta": "rolled back"})
			require.NoError(t, err)
			return errors.New("changed my mind")
		})
		require.Error(t, err)

		err = f.db.InTx(t.Context(), func(ctx context.Context) error {
			if err := f.db.Q(ctx).Exec("UPDATE turns SET step = 7 WHERE id = ?", turn.ID).Error; err != nil {
				return err
			}
			_, err := bus.Publish(ctx, turn.ID, stream.TypeText, map[string]any{"delta": "kept"})
			return err
		})
		require.NoError(t, err)
		got := fl.next(t)
		require.Equal(t, first+1, got.Seq, "the rolled-back frame gave its number back")
		require.JSONEq(t, `{"delta":"kept"}`, string(got.Data))

		done, err := bus.Publish(t.Context(), turn.ID, stream.TypeDone, map[string]any{})
		require.NoError(t, err)
		require.Equal(t, done, fl.next(t).Seq)
		require.NoError(t, fl.end(t))
		// The rolled-back frame's wake-up may cost a read, the listener's
		// first connection another; the kept frame none.
		require.LessOrEqual(t, reads.Load()-before, int64(2))
		require.Equal(t, []int64{first, first + 1, done}, follow(t, bus, turn.ID, 0), "stored: what committed")
	})
}

// A follower held up while more frames are published than a turn keeps in
// memory reads the ones it missed: every frame once, in order.
func TestASlowFollowerReadsWhatWasNoLongerKept(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		first, err := bus.Publish(t.Context(), turn.ID, stream.TypeStatus, map[string]any{})
		require.NoError(t, err)
		held, release := make(chan struct{}), make(chan struct{})
		type result struct {
			seqs []int64
			err  error
		}
		res := make(chan result, 1)
		go func() {
			var r result
			r.err = bus.Follow(t.Context(), turn.ID, 0, func(fr stream.Frame) error {
				if fr.Seq == first {
					close(held)
					<-release
				}
				r.seqs = append(r.seqs, fr.Seq)
				return nil
			})
			res <- r
		}()
		receive(t, held, "the follower at its first frame")
		var last int64
		for i := range 150 {
			last, err = bus.Publish(t.Context(), turn.ID, stream.TypeText, map[string]any{"delta": strings.Repeat("z", i)})
			require.NoError(t, err)
		}
		close(release)
		done, err := bus.Publish(t.Context(), turn.ID, stream.TypeDone, map[string]any{})
		require.NoError(t, err)
		require.Equal(t, last+1, done)
		r := receive(t, res, "the follower's end")
		require.NoError(t, r.err)
		require.Equal(t, seqRange(first, done), r.seqs)
	})
}
