package notify_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"hub/dbtest"
	"hub/notify"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// wait bounds how long a test waits for something that should happen at
// once; it is a failure deadline, never a sleep.
const wait = 10 * time.Second

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

// One connection carries every channel: a channel's notifications, sent
// by another process's transactions (Send), reach its handlers; Connected
// runs once the listener listens on the channel and again after every
// reconnect (a notification sent meanwhile is lost, so the feed reads
// everything again). A channel registered while the listener runs is
// heard on the same connection, and two handlers of one channel both hear
// it.
func TestOneListenerCarriesEveryChannel(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	db, sender := dbtest.Open(t, url), dbtest.Open(t, url) // sender: another process's pool
	n := notify.New(db)
	t.Cleanup(n.Close)
	reconnecting, release := make(chan struct{}, 1), make(chan struct{})
	pids := make(chan uint32, 16)
	n.SetHooks(notify.Hooks{Connect: holdSecondConnect(reconnecting, release), Listening: func(pid uint32) { pids <- pid }})
	// The listener's goroutine calls these: they must not block.
	payloads, connected := make(chan string, 16), make(chan struct{}, 16)
	n.Listen("hub_test_a", notify.Handler{Notified: func(p string) { payloads <- p }, Connected: func() { connected <- struct{}{} }})
	send := func(channel, payload string) {
		t.Helper()
		require.NoError(t, notify.Send(t.Context(), sender, channel, payload))
	}

	first := receive(t, pids, "listener connection")
	receive(t, connected, "Connected once listening")
	send("hub_test_a", "one")
	require.Equal(t, "one", receive(t, payloads, "notification"))

	later, laterConnected := make(chan string, 16), make(chan struct{}, 16)
	n.Listen("hub_test_b", notify.Handler{Notified: func(p string) { later <- p }, Connected: func() { laterConnected <- struct{}{} }})
	also := make(chan string, 16)
	n.Listen("hub_test_a", notify.Handler{Notified: func(p string) { also <- p }})
	receive(t, laterConnected, "the later channel listened on")
	select {
	case pid := <-pids:
		t.Fatalf("the listener reconnected (backend %d) to add a channel", pid)
	default:
	}
	send("hub_test_b", "two")
	require.Equal(t, "two", receive(t, later, "notification on the later channel"))
	send("hub_test_a", "both")
	require.Equal(t, "both", receive(t, payloads, "notification to the first handler"))
	require.Equal(t, "both", receive(t, also, "notification to the second handler of the channel"))

	// The gap: what is sent while nobody listens is lost, and Connected
	// after the reconnect stands for it.
	var killed bool
	require.NoError(t, sender.Raw("SELECT pg_terminate_backend(?)", first).Scan(&killed).Error)
	require.True(t, killed)
	receive(t, reconnecting, "reconnect attempt")
	send("hub_test_a", "lost")
	close(release)
	require.NotEqual(t, first, receive(t, pids, "listener reconnection"))
	receive(t, connected, "Connected after the reconnect")
	receive(t, laterConnected, "the later channel's Connected after the reconnect")
	send("hub_test_a", "three")
	require.Equal(t, "three", receive(t, payloads, "notification after the reconnect"), "nothing from the gap")
}

// Send in a transaction is heard when it commits, and never when it rolls
// back.
func TestSendIsHeardOnCommitOnly(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	db, sender := dbtest.Open(t, url), dbtest.Open(t, url)
	n := notify.New(db)
	t.Cleanup(n.Close)
	payloads, connected := make(chan string, 16), make(chan struct{}, 1)
	n.Listen("hub_test_tx", notify.Handler{Notified: func(p string) { payloads <- p }, Connected: func() { connected <- struct{}{} }})
	receive(t, connected, "the listener")

	rolledBack := errors.New("rolled back")
	err := sender.InTx(t.Context(), func(ctx context.Context) error {
		require.NoError(t, notify.Send(ctx, sender, "hub_test_tx", "rolled back"))
		return rolledBack
	})
	require.ErrorIs(t, err, rolledBack)
	require.NoError(t, sender.InTx(t.Context(), func(ctx context.Context) error {
		return notify.Send(ctx, sender, "hub_test_tx", "committed")
	}))
	require.Equal(t, "committed", receive(t, payloads, "the committed notification"), "not the rolled back one")
}

// On SQLite there is no listener, and Send sends nothing; the poll loop
// runs on both engines, one for every feed, at the interval set last.
func TestPollRunsForEveryFeed(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		db := dbtest.Open(t, url)
		n := notify.New(db)
		t.Cleanup(n.Close)
		if !dbtest.IsPostgres(url) {
			n.SetHooks(notify.Hooks{Connect: func(context.Context) error {
				t.Error("a listener on SQLite")
				return errors.New("no listener on SQLite")
			}})
			require.NoError(t, notify.Send(t.Context(), db, "hub_test", "nothing"))
		}
		n.SetPollInterval(time.Hour)
		a, b := make(chan struct{}, 1), make(chan struct{}, 1)
		poller := func(c chan struct{}) func(context.Context) {
			return func(context.Context) {
				select {
				case c <- struct{}{}:
				default:
				}
			}
		}
		n.Listen("hub_test_a", notify.Handler{Poll: poller(a)})
		n.Listen("hub_test_b", notify.Handler{Poll: poller(b)})
		select {
		case <-a:
			t.Fatal("polled within an hour")
		case <-time.After(50 * time.Millisecond):
		}
		n.SetPollInterval(time.Millisecond)
		receive(t, a, "poll of the first feed")
		receive(t, b, "poll of the second feed")
	})
}

// Closing the Notifier stops its listener and poll, closes Done, and
// leaves no goroutine behind; a Listen after it starts nothing.
func TestCloseStopsEverything(t *testing.T) {
	url := dbtest.Postgres(t)
	db := dbtest.Open(t, url)
	before := goleak.IgnoreCurrent()
	n := notify.New(db)
	connected := make(chan struct{}, 1)
	n.Listen("hub_test_close", notify.Handler{Connected: func() { connected <- struct{}{} }, Poll: func(context.Context) {}})
	receive(t, connected, "the listener")
	n.Close()
	receive(t, n.Done(), "Done closed")
	n.Listen("hub_test_after", notify.Handler{Poll: func(context.Context) { t.Error("polled after Close") }})
	n.Close() // twice is fine
	goleak.VerifyNone(t, before)
}

// Followers are woken by their key; a burst of wake-ups before a follower
// looks is one; the last to leave a key says so.
func TestFollowersWakeByKey(t *testing.T) {
	t.Parallel()
	fs := notify.NewFollowers()
	a1, a2, b := fs.Join("a"), fs.Join("a"), fs.Join("b")
	fs.Wake("a")
	fs.Wake("a")
	receive(t, a1.Woken(), "a1's wake-up")
	receive(t, a2.Woken(), "a2's wake-up")
	for _, f := range []*notify.Follower{a1, a2, b} {
		select {
		case <-f.Woken():
			t.Fatal("woken again, or by another key")
		default:
		}
	}
	require.False(t, a1.Leave())
	require.True(t, a2.Leave(), "the last of a")
	require.False(t, a2.Leave(), "twice")
}
