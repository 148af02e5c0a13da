package chat

// These tests are in package chat: they write work frames the way
// another process does, with announce in a transaction and no wake-up in
// this process, which the exported calls always add.

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/notify"
	"hub/storage"
	"hub/stream"
	"hub/workspace"
)

// crossProcess is two processes on one Postgres database: a writer (the
// worker) and an api process, each with its own notifier, as wiring makes
// them. The api's poll is set to an hour, so that only a notification can
// deliver a frame the writer wrote.
type crossProcess struct {
	person string
	writer *Store
	api    *Store
	// listening receives each time the api's listener has (re)connected
	// and woken the activity followers.
	listening chan struct{}
	apiDB     *storage.DB
}

func newCrossProcess(t testing.TB) *crossProcess {
	t.Helper()
	url := dbtest.Postgres(t)
	writerDB, apiDB := dbtest.Open(t, url), dbtest.Open(t, url)
	_, person, err := workspace.NewService(writerDB).EnsureMember(t.Context(), "Acme", "Ann Archer", workspace.RoleOwner)
	require.NoError(t, err)
	writerNotifier, apiNotifier := notify.New(writerDB), notify.New(apiDB)
	t.Cleanup(writerNotifier.Close)
	t.Cleanup(apiNotifier.Close)
	apiNotifier.SetPollInterval(time.Hour)
	cp := &crossProcess{person: person, writer: NewStore(writerDB, stream.NewBus(writerDB, writerNotifier)), api: NewStore(apiDB, stream.NewBus(apiDB, apiNotifier)),
		listening: make(chan struct{}, 16), apiDB: apiDB}
	apiNotifier.Listen(stream.Channel, notify.Handler{Connected: func() {
		select {
		case cp.listening <- struct{}{}:
		default:
		}
	}})
	return cp
}

// write writes an work frame of the person as another process does:
// announce in the transaction of the change, whose commit is all that can
// tell this process's followers.
func (cp *crossProcess) write(ctx context.Context, a Work) error {
	return cp.writer.db.InTx(ctx, func(ctx context.Context) error {
		return cp.writer.announce(ctx, cp.person, func() (Work, error) { return a, nil })
	})
}

// follow follows the person's activity stream on the api process; frames
// arrive on the returned channel. It stops when the test ends.
func (cp *crossProcess) follow(t testing.TB) <-chan WorkFrame {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	frames := make(chan WorkFrame)
	done := make(chan error, 1)
	go func() {
		done <- cp.api.FollowWork(ctx, cp.person, 0, func(f WorkFrame) error {
			select {
			case frames <- f:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
	return frames
}

func await[T any](t testing.TB, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s", what)
		var zero T
		return zero
	}
}

// An work frame written by another process reaches a follower here by
// the NOTIFY its transaction sent: the heads poll is set to an hour. Across
// a reconnect of the listener nothing is lost.
func TestActivityFramesCrossProcessesByNotification(t *testing.T) {
	cp := newCrossProcess(t)
	ctx := t.Context()
	frames := cp.follow(t)
	await(t, cp.listening, "the api's listener")

	for i, st := range []Status{StatusQueued, StatusWorking, StatusPaused} {
		require.NoError(t, cp.write(ctx, Work{Kind: WorkTurn, ID: "turn_1", Status: st, Step: i}))
		f := await(t, frames, "the frame written by the other process")
		require.EqualValues(t, i+1, f.Seq)
		require.Equal(t, st, f.Work.Status)
	}

	// A transaction that rolls back leaves no frame; the next one takes
	// its number.
	rolledBack := cp.writer.db.InTx(ctx, func(ctx context.Context) error {
		err := cp.writer.announce(ctx, cp.person, func() (Work, error) {
			return Work{Kind: WorkTurn, ID: "turn_1", Status: StatusStopping}, nil
		})
		require.NoError(t, err)
		return context.Canceled
	})
	require.ErrorIs(t, rolledBack, context.Canceled)
	require.NoError(t, cp.write(ctx, Work{Kind: WorkTurn, ID: "turn_1", Status: StatusDone, Ended: true}))
	f := await(t, frames, "the frame after the rolled back one")
	require.EqualValues(t, 4, f.Seq)
	require.Equal(t, StatusDone, f.Work.Status)

	// The listener's connection dies; a frame written around the
	// reconnect arrives all the same (by its notification, or by the
	// wake-up every follower gets once the listener is back).
	var killed bool
	require.NoError(t, cp.apiDB.Raw(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = ? AND datname = current_database()`, notify.ListenerName).Scan(&killed).Error)
	require.True(t, killed, "the listener's backend")
	require.NoError(t, cp.write(ctx, Work{Kind: WorkApply, ID: "msg_1", Status: StatusWaiting}))
	f = await(t, frames, "the frame written around the reconnect")
	require.EqualValues(t, 5, f.Seq)
	require.Equal(t, WorkApply, f.Work.Kind)
	await(t, cp.listening, "the listener's reconnection")
}

// BenchmarkActivityAcrossProcesses measures how long an work frame
// written by one process (the worker) takes to reach a follower in another
// (an api process): from the start of the writing transaction to the
// follower's callback, one frame at a time. The heads poll is set to an
// hour, so this is the NOTIFY path.
//
// scripts/test.sh -run '^$' -bench BenchmarkActivityAcrossProcesses -benchtime 2000x ./chat
func BenchmarkActivityAcrossProcesses(b *testing.B) {
	cp := newCrossProcess(b)
	ctx := context.Background()
	frames := cp.follow(b)
	await(b, cp.listening, "the api's listener")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if err := cp.write(ctx, Work{Kind: WorkTurn, ID: "turn_1", Status: StatusWorking, Step: i}); err != nil {
			b.Fatal(err)
		}
		f := await(b, frames, "the frame")
		lat = append(lat, time.Since(start))
		if f.Work.Step != i {
			b.Fatalf("frame %d carries step %d, want %d", f.Seq, f.Work.Step, i)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
