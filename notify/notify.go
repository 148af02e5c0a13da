// Package notify wakes a process's followers of frames (the logs of package
// stream: a turn's stream, a person's work frames) when something they
// follow changed.
//
// One Notifier per process, built by wiring and passed to every feed:
// on Postgres it keeps one connection listening on every feed's channel
// (LISTEN), and on both engines one poll loop that asks every feed to
// look for what a lost wake-up missed. A feed registers its channel with
// Listen; its followers wait on Followers, by key. Send sends a
// notification in the caller's transaction.
package notify

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"hub/storage"
)

// ErrClosed is what a follower returns once the Notifier is closed: the
// process is shutting down, and an SSE client resumes elsewhere with
// Last-Event-ID.
var ErrClosed = errors.New("notify: closed")

// DefaultPollInterval is how often the poll loop asks every feed to look
// for a change whose wake-up was lost. Wake-ups (in-process, and NOTIFY on
// Postgres) are the main path; the poll only bounds how late a follower
// hears of a change when one is lost (the listener reconnecting, a
// connection that died silently).
const DefaultPollInterval = 2 * time.Second

// Handler is what a feed does with the Notifier's events. Each function
// may be nil and must return quickly: Notified and Connected run on the
// listener's goroutine, Poll on the poll loop's, one feed after another.
type Handler struct {
	// Notified is called with the payload of each notification on the
	// feed's channel (Postgres).
	Notified func(payload string)
	// Connected is called once the listener listens on the channel and
	// again after every reconnect (Postgres): a notification sent while
	// nobody listened is lost, so the feed's followers read again.
	Connected func()
	// Poll is called every poll interval, on both engines: the safety net
	// under the wake-ups.
	Poll func(ctx context.Context)
}

// Hooks let tests watch and hold the listener; zero in production.
type Hooks struct {
	// Connect runs before each listener connection attempt; an error
	// fails it.
	Connect func(ctx context.Context) error
	// Listening runs once LISTEN succeeded on every channel, before the
	// feeds' Connected, with the backend's pid.
	Listening func(pid uint32)
}

// Notifier is a process's one listener (Postgres) and one poll loop for
// every feed. Both start with the first Listen that needs them, so a
// process that only writes frames opens no connection of its own; Close
// stops them and waits, and closes Done, which ends every follower.
type Notifier struct {
	db    *storage.DB
	hooks Hooks

	pollEvery atomic.Int64  // nanoseconds
	repoll    chan struct{} // a new interval: the poll loop starts its wait again

	mu        sync.Mutex
	feeds     map[string][]Handler // by channel
	listening bool                 // the listener goroutine has been started
	polling   bool                 // the poll loop has been started
	closed    chan struct{}
	ctx       context.Context // the listener's and the poll's; cancelled by Close
	stop      context.CancelFunc
	wg        sync.WaitGroup
	// relisten, while the listener waits for a notification, ends that
	// wait so it LISTENs on a channel just registered.
	relisten   context.CancelCauseFunc
	reconnects atomic.Pointer[prometheus.Counter]
}

// New returns a Notifier over db. Call Close when done with it.
func New(db *storage.DB) *Notifier {
	// The listener and the poll live as long as the Notifier, not as long
	// as any request: Close is what ends them.
	ctx, stop := context.WithCancel(context.Background())
	n := &Notifier{db: db, repoll: make(chan struct{}, 1), feeds: map[string][]Handler{},
		closed: make(chan struct{}), ctx: ctx, stop: stop}
	n.pollEvery.Store(int64(DefaultPollInterval))
	return n
}

// SetHooks sets the test hooks. Call it before the first Listen.
func (n *Notifier) SetHooks(h Hooks) { n.hooks = h }

// SetPollInterval changes how often the poll loop runs, from its next
// wait on (tests stretch it to prove a wake-up came another way).
func (n *Notifier) SetPollInterval(d time.Duration) {
	n.pollEvery.Store(int64(d))
	select {
	case n.repoll <- struct{}{}:
	default:
	}
}

// PollInterval is how often the poll loop runs.
func (n *Notifier) PollInterval() time.Duration { return time.Duration(n.pollEvery.Load()) }

// Listen registers a feed's handler on channel: on Postgres the listener
// (started with the first Listen) LISTENs on the channel too, on the same
// connection; the poll loop (started with the first handler that polls)
// calls its Poll. Several handlers may share a channel. A Listen after
// Close does nothing.
func (n *Notifier) Listen(channel string, h Handler) {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case <-n.closed:
		return // no goroutine is started behind Close's back
	default:
	}
	n.feeds[channel] = append(n.feeds[channel], h)
	if n.relisten != nil {
		n.relisten(errRegistered)
	}
	// Started under the lock Close takes, so Close waits for them.
	if n.db.Dialect == storage.Postgres && !n.listening {
		n.listening = true
		n.wg.Go(func() { n.listen(n.ctx) })
	}
	if h.Poll != nil && !n.polling {
		n.polling = true
		n.wg.Go(func() { n.poll(n.ctx) })
	}
}

// Done is closed by Close: followers end (with ErrClosed).
func (n *Notifier) Done() <-chan struct{} { return n.closed }

// Close stops the listener and the poll loop, waits for them, and closes
// Done. It is safe to call more than once.
func (n *Notifier) Close() {
	n.mu.Lock()
	select {
	case <-n.closed:
	default:
		close(n.closed)
		n.stop()
	}
	n.mu.Unlock()
	n.wg.Wait()
}

// handlers returns the handlers registered on channel.
func (n *Notifier) handlers(channel string) []Handler {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.feeds[channel]
}

// poll calls every feed's Poll each interval until ctx ends: one loop per
// process, however many feeds and followers.
func (n *Notifier) poll(ctx context.Context) {
	t := time.NewTimer(n.PollInterval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.repoll:
			t.Reset(n.PollInterval())
			continue
		case <-t.C:
		}
		n.mu.Lock()
		var polls []func(context.Context)
		for _, hs := range n.feeds {
			for _, h := range hs {
				if h.Poll != nil {
					polls = append(polls, h.Poll)
				}
			}
		}
		n.mu.Unlock()
		for _, p := range polls {
			p(ctx)
		}
		t.Reset(n.PollInterval())
	}
}

// Register makes the Notifier's series on reg:
// hub_frame_listener_reconnects_total. Before it, nothing is counted.
func (n *Notifier) Register(reg prometheus.Registerer) error {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "hub_frame_listener_reconnects_total",
		Help: "Times the frames listener (Postgres LISTEN) lost, or could not make, its connection and tried again; followers poll meanwhile."})
	if err := reg.Register(c); err != nil {
		return err
	}
	n.reconnects.Store(&c)
	return nil
}

func (n *Notifier) countReconnect() {
	if c := n.reconnects.Load(); c != nil {
		(*c).Inc()
	}
}
