package stream_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"hub/dbtest"
	"hub/notify"
	"hub/stream"
)

// following is a Follow running in the background that hands its frames
// over one at a time.
type following struct {
	frames chan stream.Frame
	done   chan struct{}
	err    error // set before done closes
}

func startFollow(t *testing.T, bus *stream.Bus, turnID string, after int64) *following {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	fl := &following{frames: make(chan stream.Frame), done: make(chan struct{})}
	go func() {
		defer close(fl.done)
		fl.err = bus.Follow(ctx, turnID, after, func(fr stream.Frame) error {
			select {
			case fl.frames <- fr:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-fl.done
	})
	return fl
}

// next returns the next frame delivered, failing the test if none comes.
func (fl *following) next(t *testing.T) stream.Frame {
	t.Helper()
	select {
	case fr := <-fl.frames:
		return fr
	case <-fl.done:
		t.Fatalf("Follow returned early: %v", fl.err)
	case <-time.After(wait):
		t.Fatal("the follower was not woken")
	}
	return stream.Frame{}
}

// end waits for Follow to return and returns its error.
func (fl *following) end(t *testing.T) error {
	t.Helper()
	select {
	case <-fl.done:
		return fl.err
	case <-time.After(wait):
		t.Fatal("Follow did not return")
		return nil
	}
}

// listenerPIDs sets hooks on bus that report each listener connection's
// backend pid, and returns where they arrive.
func listenerPIDs(bus *stream.Bus, connect func(context.Context) error) <-chan uint32 {
	pids := make(chan uint32, 16)
	stream.SetListenerHooks(bus, connect, func(pid uint32) {
		select {
		case pids <- pid:
		default:
		}
	})
	return pids
}

func receive[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(wait):
		t.Fatalf("no %s", what)
		var zero T
		return zero
	}
}

// holdSecondConnect is a listener connect hook that lets the first connect
// go ahead and holds the second (the first reconnect) until release is
// closed, telling reconnecting when it is held; later ones go ahead.
func holdSecondConnect(reconnecting chan<- struct{}, release <-chan struct{}) func(context.Context) error {
	var attempts atomic.Int32
	return func(ctx context.Context) error {
		if attempts.Add(1) != 2 {
			return nil
		}
		reconnecting <- struct{}{}
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func TestNotifyWakesFollowerInAnotherProcess(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dbtest.Postgres(t))
	turn := f.turn(t)
	reader := newBus(t, open(t, f.url))
	stream.SetPollInterval(reader, time.Hour)
	pids := listenerPIDs(reader, nil)

	fl := startFollow(t, reader, turn.ID, 0)
	// Once the listener is up, only a notification can deliver: the
	// publisher is another Bus, so no in-process wake-up reaches reader.
	receive(t, pids, "listener connection")
	for i := range 5 {
		seq := f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": i})
		require.Equal(t, seq, fl.next(t).Seq)
	}
	done := f.publish(t, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
	require.Equal(t, done, fl.next(t).Seq)
	require.NoError(t, fl.end(t))
}

// The listener's connection is killed while frames are published. Frames
// published while nobody listened arrive once it is back (every follower
// reads again on reconnect), then notifications flow again; the follower
// gets every frame once, in order.
func TestListenerReconnectsWithoutGapOrRepeat(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dbtest.Postgres(t))
	ctx := t.Context()
	turn := f.turn(t)
	reader := newBus(t, open(t, f.url))
	stream.SetPollInterval(reader, time.Hour)

	// The first reconnect is held until the test has published into the
	// gap; later ones go ahead.
	reconnecting, release := make(chan struct{}, 1), make(chan struct{})
	pids := listenerPIDs(reader, holdSecondConnect(reconnecting, release))
	kill := func(pid uint32) {
		t.Helper()
		var killed bool
		require.NoError(t, f.db.WithContext(ctx).Raw("SELECT pg_terminate_backend(?)", pid).Scan(&killed).Error)
		require.True(t, killed, "listener backend %d", pid)
	}

	var got []int64
	fl := startFollow(t, reader, turn.ID, 0)
	first := receive(t, pids, "listener connection")
	for i := range 3 {
		f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": i})
		got = append(got, fl.next(t).Seq)
	}

	// The gap: the connection is gone and the next one is held.
	kill(first)
	receive(t, reconnecting, "reconnect attempt")
	for i := range 5 {
		f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": 10 + i})
	}
	close(release)
	second := receive(t, pids, "listener reconnection")
	require.NotEqual(t, first, second, "a new connection")
	for range 5 {
		got = append(got, fl.next(t).Seq)
	}

	// Killed again while a publisher is busy: it comes back on its own.
	var wg sync.WaitGroup
	published := make(chan error, 1)
	wg.Go(func() {
		var err error
		for i := range 200 {
			if _, err = f.bus.Publish(ctx, turn.ID, stream.TypeText, map[string]any{"delta": 100 + i}); err != nil {
				break
			}
		}
		if err == nil {
			_, err = f.bus.Publish(ctx, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
		}
		published <- err
	})
	defer wg.Wait()
	kill(second)
	for {
		fr := fl.next(t)
		got = append(got, fr.Seq)
		if fr.Type == stream.TypeDone {
			break
		}
	}
	require.NoError(t, <-published)
	require.NoError(t, fl.end(t))
	require.Equal(t, seqRange(1, 3+5+200+1), got, "every frame once, in order")
	require.NotEqual(t, second, receive(t, pids, "second reconnection"))
}

// Closing the notifier ends its listener (even one waiting to reconnect)
// and every Follow; closing the Bus ends its reads, and a Follow after it
// ends at once. Nothing is left behind; publishing still works. Not
// parallel, so goleak sees this test's goroutines only.
func TestCloseEndsListenerAndFollowers(t *testing.T) {
	f := newFixture(t, dbtest.Postgres(t))
	ctx := t.Context()
	turn := f.turn(t)
	before := goleak.IgnoreCurrent()

	n := notify.New(f.db)
	bus := stream.NewBus(f.db, n)
	pids := listenerPIDs(bus, nil)
	fl := startFollow(t, bus, turn.ID, 0)
	receive(t, pids, "listener connection")
	n.Close()
	require.ErrorIs(t, fl.end(t), stream.ErrClosed)
	err := bus.Follow(ctx, turn.ID, 0, func(stream.Frame) error { return errors.New("no frame expected") })
	require.ErrorIs(t, err, stream.ErrClosed)
	bus.Close()
	bus.Close() // twice is fine
	f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": "after close"})

	// A listener that cannot connect (held here, as if Postgres were down);
	// the Bus is closed first, then its notifier.
	n = notify.New(f.db)
	down := stream.NewBus(f.db, n)
	attempting := make(chan struct{}, 1)
	stream.SetListenerHooks(down, func(ctx context.Context) error {
		select {
		case attempting <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return ctx.Err()
	}, nil)
	fl = startFollow(t, down, turn.ID, 0)
	require.EqualValues(t, 1, fl.next(t).Seq, "the table still delivers")
	receive(t, attempting, "connection attempt")
	down.Close()
	require.ErrorIs(t, fl.end(t), stream.ErrClosed)
	n.Close()

	goleak.VerifyNone(t, before)
}

// On SQLite (hub dev, one process) in-process wake-ups are the whole
// story: no listener is started.
func TestNoListenerOnSQLite(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dbtest.SQLite(t))
	turn := f.turn(t)
	bus := newBus(t, f.db)
	stream.SetListenerHooks(bus, func(context.Context) error {
		t.Error("a listener on SQLite")
		return errors.New("no listener on SQLite")
	}, nil)
	done := f.publishN(t, turn.ID, 2)
	require.Equal(t, seqRange(1, done), follow(t, bus, turn.ID, 0))
}

// TestInterruptsReachOtherProcesses: Stop or Pause announced through one
// Bus reaches the interrupt handler of another Bus on the same database
// (the worker process running the model call).
func TestInterruptsReachOtherProcesses(t *testing.T) {
	url := dbtest.Postgres(t)
	db := dbtest.Open(t, url)
	worker, api := newBus(t, db), newBus(t, db)
	got := make(chan string, 4)
	worker.OnInterrupt(func(turnID string) int { got <- turnID; return 1 })
	// The listener starts asynchronously: announce until it hears one.
	deadline := time.After(30 * time.Second)
	for {
		require.NoError(t, api.AnnounceInterrupt(t.Context(), "turn_x"))
		select {
		case id := <-got:
			require.Equal(t, "turn_x", id)
			return
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("the interrupt never arrived")
		}
	}
}
