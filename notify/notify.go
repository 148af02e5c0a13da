// Package notify wakes a process's followers of frames when something they
// follow changed: one Notifier per process keeps one LISTEN connection on
// Postgres for every feed's channel and one poll loop for every feed.
package notify

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"hub/storage"
)

// ErrClosed is what a follower returns once the Notifier is closed.
var ErrClosed = errors.New("notify: closed")

// DefaultPollInterval is how often the poll loop asks every feed to look
// for a change whose wake-up was lost.
const DefaultPollInterval = 2 * time.Second

// Handler is what a feed does with the Notifier's events. Each function
// may be nil and must return quickly: Notified and Connected run on the
// listener's goroutine, Poll on the poll loop's, one feed after another.
type Handler struct {
	Notified func(payload string) // each notification on the channel (Postgres)
	// Connected runs once the listener listens on the channel and after
	// every reconnect: what was sent while nobody listened is lost.
	Connected func()
	Poll      func(ctx context.Context) // every poll interval, on both engines
}

// Hooks let tests watch and hold the listener; zero in production.
type Hooks struct {
	Connect   func(ctx context.Context) error // before each connection attempt; an error fails it
	Listening func(pid uint32)                // once LISTEN succeeded, before Connected
}

// Notifier is a process's one listener (Postgres) and one poll loop. Both
// start with the first Listen that needs them, so a process that only
// writes opens no connection of its own.
type Notifier struct {
	db    *storage.DB
	hooks Hooks

	pollEvery atomic.Int64  // nanoseconds
	repoll    chan struct{} // a new interval: the poll loop starts its wait again

	mu        sync.Mutex
	feeds     map[string][]Handler // by channel
	listening bool                 // the listener goroutine has been started
	polling   bool                 // the poll loop has been started
	ctx       context.Context      // the listener's and the poll's; cancelled by Close, which closes Done
	stop      context.CancelFunc
	wg        sync.WaitGroup
	// relisten ends the listener's wait so it LISTENs on a new channel.
	relisten   context.CancelCauseFunc
	reconnects atomic.Pointer[prometheus.Counter]
}

// New returns a Notifier over db. Call Close when done with it.
func New(db *storage.DB) *Notifier {
	ctx, stop := context.WithCancel(context.Background())
	n := &Notifier{db: db, repoll: make(chan struct{}, 1), feeds: map[string][]Handler{},
		ctx: ctx, stop: stop}
	n.pollEvery.Store(int64(DefaultPollInterval))
	return n
}

// SetHooks sets the test hooks. Call it before the first Listen.
func (n *Notifier) SetHooks(h Hooks) { n.hooks = h }

// SetPollInterval changes how often the poll loop runs, from its next wait on.
func (n *Notifier) SetPollInterval(d time.Duration) {
	n.pollEvery.Store(int64(d))
	select {
	case n.repoll <- struct{}{}:
	default:
	}
}

// PollInterval is how often the poll loop runs.
func (n *Notifier) PollInterval() time.Duration { return time.Duration(n.pollEvery.Load()) }

// Listen registers a feed's handler on channel (several may share one),
// starting the listener and the poll loop when needed. After Close it does
// nothing.
func (n *Notifier) Listen(channel string, h Handler) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ctx.Err() != nil {
		return // no goroutine is started behind Close's back
	}
	n.feeds[channel] = append(n.feeds[channel], h)
	if n.relisten != nil {
		n.relisten(errRegistered)
	}
	// Under the lock Close takes, so Close waits for them.
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
func (n *Notifier) Done() <-chan struct{} { return n.ctx.Done() }

// Close stops the listener and the poll loop, waits for them, and closes
// Done. It is safe to call more than once.
func (n *Notifier) Close() {
	n.mu.Lock() // a goroutine Listen starts under mu is in wg before Wait
	n.stop()
	n.mu.Unlock()
	n.wg.Wait()
}

func (n *Notifier) handlers(channel string) []Handler {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.feeds[channel]
}

// poll calls every feed's Poll each interval until ctx ends.
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

// Send sends a notification on channel, in the transaction ctx carries if
// any: Postgres delivers it on commit, so no listener hears of a change it
// cannot read yet. On SQLite (one process) it does nothing.
func Send(ctx context.Context, db *storage.DB, channel, payload string) error {
	if db.Dialect != storage.Postgres {
		return nil
	}
	if err := db.Q(ctx).Exec("SELECT pg_notify(?, ?)", channel, payload).Error; err != nil {
		return fmt.Errorf("notify %s: %w", channel, err)
	}
	return nil
}
