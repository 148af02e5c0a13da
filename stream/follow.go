package stream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"hub/models"
)

// readTimeout bounds one shared read of a turn's frames: it takes
// milliseconds, so this long means the database is gone; the followers then
// see the error (and their SSE clients reconnect).
const readTimeout = 30 * time.Second

// followedTurn is what a Bus keeps for a turn with followers in this
// process.
type followedTurn struct {
	wakes map[chan struct{}]struct{} // one per Follow
	// gen counts the wake-ups of the turn. Every committed frame is
	// followed by one (a publish here, a notification from another
	// process, the listener coming back, a poll), so a read started at
	// gen g sees every frame announced by wake-ups up to g.
	gen  uint64
	last *sharedRead // the latest read of the turn's frames
}

// sharedRead is one read of a turn's frames that all of the turn's
// followers in this process use: a frame watched by 500 clients costs one
// query, not 500.
type sharedRead struct {
	gen     uint64 // the turn's gen when the read started
	after   int64
	started time.Time
	done    chan struct{}
	// Set before done closes.
	frames []Frame
	err    error
	// end is ErrTurnGone when the turn no longer exists, or ErrFramesSwept
	// when it ended long ago without a done frame left: frames are then the
	// last it has after `after`.
	end error
}

// serves tells whether a follower at `after` may use r while the turn is at
// gen: r started late enough, starts no later than the follower, and (once
// done) neither failed nor was cut short before the follower's position.
func (r *sharedRead) serves(gen uint64, after int64) bool {
	if r.gen < gen || r.after > after {
		return false
	}
	select {
	case <-r.done:
		cut := len(r.frames) == readLimit && r.frames[len(r.frames)-1].Seq <= after
		return r.err == nil && !cut
	default:
		return true
	}
}

// ErrTurnGone is what Follow returns when the turn no longer exists (its
// conversation was deleted) and it has delivered every frame the turn had
// without a done frame among them: none can come any more.
var ErrTurnGone = errors.New("stream: turn no longer exists")

// ErrFramesSwept is what Follow returns for a turn that ended so long ago
// that its frames were swept (see Retention): no done frame will come.
// The caller answers with the turn's saved ending instead.
var ErrFramesSwept = errors.New("stream: the turn's frames were swept")

// doneGrace is how long after a turn ended its done frame may still be on
// its way: FinishTurn saves the ending and publishes done right after.
// Past it, a finished turn without a done frame had its frames swept (by
// whichever process's clock; the sweep waits Retention).
const doneGrace = time.Minute

// Follow calls fn with every frame after seq `after`, in order, as they are
// published, until the done frame has been delivered (then it returns nil),
// the turn is gone (ErrTurnGone), its frames were swept (ErrFramesSwept),
// fn fails, ctx ends, or the Bus is closed
// (ErrClosed).
//
// It reads the table again whenever the turn is woken: by a publish in this
// process, by a notification from another (Postgres), by the listener
// (re)connecting, or by its poll. Reading after the last number it
// delivered is what keeps delivery free of gaps and repeats, however the
// wake-ups come; the reads are shared by the turn's followers. A read that
// finds nothing new also checks that the turn still exists, so a deleted
// turn's stream ends at its next wake-up: a publish to it (the worker,
// whose model call is still streaming when the conversation goes) or, at
// the latest, the poll.
func (b *Bus) Follow(ctx context.Context, turnID string, after int64, fn func(Frame) error) error {
	wake := make(chan struct{}, 1)
	if err := b.join(turnID, wake); err != nil {
		return err
	}
	defer b.leave(turnID, wake)
	tick := time.NewTicker(b.PollInterval)
	defer tick.Stop()
	for {
		frames, more, end, err := b.read(ctx, turnID, after)
		if err != nil {
			return err
		}
		for _, f := range frames {
			if err := fn(f); err != nil {
				return err
			}
			after = f.Seq
			if f.Type == TypeDone {
				return nil
			}
		}
		if more {
			continue
		}
		if end != nil {
			return end
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.closed:
			return ErrClosed
		case <-wake:
		case <-tick.C:
			// The safety net: read anew, unless a read of this turn began
			// within the last half interval (500 followers of a turn then
			// poll it together, not 500 times).
			b.mu.Lock()
			if t := b.turns[turnID]; t.last == nil || time.Since(t.last.started) > b.PollInterval/2 {
				t.gen++
			}
			b.mu.Unlock()
		}
	}
}

// Done is closed when the Bus is closed: the process is shutting down, and
// a stream that is not a Follow (the activity stream) ends with the turns'.
func (b *Bus) Done() <-chan struct{} { return b.closed }

// join registers a follower of the turn, starting the listener on
// Postgres with the first one.
func (b *Bus) join(turnID string, wake chan struct{}) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.closed:
		return ErrClosed
	default:
	}
	if b.db.Dialect == models.Postgres && !b.listening {
		// Started under the lock Close takes, so Close waits for it.
		b.listening = true
		b.wg.Go(func() { b.listen(b.ctx) })
	}
	t := b.turns[turnID]
	if t == nil {
		t = &followedTurn{wakes: map[chan struct{}]struct{}{}}
		b.turns[turnID] = t
	}
	t.wakes[wake] = struct{}{}
	return nil
}

func (b *Bus) leave(turnID string, wake chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.turns[turnID]
	delete(t.wakes, wake)
	if len(t.wakes) == 0 {
		delete(b.turns, turnID)
	}
}

// read returns the turn's frames after `after` (at most readLimit) from a
// read that started after the turn's latest wake-up, joining one in flight
// or done when it serves, else starting one. more tells that the read was
// full, so more frames may be waiting; end (ErrTurnGone, ErrFramesSwept)
// that no frame will follow these. The caller has joined the turn.
func (b *Bus) read(ctx context.Context, turnID string, after int64) (frames []Frame, more bool, end, err error) {
	for {
		b.mu.Lock()
		t := b.turns[turnID]
		r := t.last
		if r == nil || !r.serves(t.gen, after) {
			select {
			case <-b.closed:
				b.mu.Unlock()
				return nil, false, nil, ErrClosed
			default:
			}
			r = &sharedRead{gen: t.gen, after: after, started: time.Now(), done: make(chan struct{})}
			t.last = r
			if b.hooks.read != nil {
				b.hooks.read(turnID)
			}
			// The Bus owns the read, not this follower: another follower
			// waiting on it must not see this one's context ending.
			b.wg.Go(func() {
				defer close(r.done)
				rctx, cancel := context.WithTimeout(b.ctx, readTimeout)
				defer cancel()
				r.frames, r.end, r.err = b.readFrames(rctx, turnID, r.after)
			})
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, false, nil, ctx.Err()
		case <-r.done:
		}
		if r.err != nil {
			if b.ctx.Err() != nil {
				return nil, false, nil, ErrClosed
			}
			return nil, false, nil, r.err
		}
		full := len(r.frames) == readLimit
		i := sort.Search(len(r.frames), func(i int) bool { return r.frames[i].Seq > after })
		if full && i == len(r.frames) {
			continue // cut short before this follower's position: read on
		}
		if full {
			return r.frames[i:], true, nil, nil
		}
		return r.frames[i:], false, r.end, nil
	}
}

// readFrames reads the turn's frames after `after`; when there are none,
// it checks that the turn still exists. Once the turn is gone no frame can
// be added (Publish finds no turn to number it), so the frames read after
// seeing it gone are its last: reading them then, not before, is what keeps
// a frame published just before the deletion from being lost (end is
// ErrTurnGone). A turn that ended more than doneGrace ago and has no done
// frame had its frames swept (end is ErrFramesSwept).
func (b *Bus) readFrames(ctx context.Context, turnID string, after int64) (frames []Frame, end, err error) {
	frames, err = b.Frames(ctx, turnID, after)
	if err != nil || len(frames) > 0 {
		return frames, nil, err
	}
	var rows []struct{ FinishedAt *time.Time }
	if err := b.db.WithContext(ctx).Model(&models.Turn{}).Select("finished_at").Where("id = ?", turnID).Limit(1).Find(&rows).Error; err != nil {
		return nil, nil, fmt.Errorf("read turn %s: %w", turnID, err)
	}
	if len(rows) == 0 {
		frames, err = b.Frames(ctx, turnID, after)
		if err != nil {
			return nil, nil, err
		}
		return frames, ErrTurnGone, nil
	}
	if ended := rows[0].FinishedAt; ended == nil || time.Since(*ended) < doneGrace {
		return nil, nil, nil
	}
	has, err := b.Has(ctx, turnID, TypeDone)
	if err != nil || has {
		return nil, nil, err // delivered before `after`: nothing more comes, as for any ended turn
	}
	return nil, ErrFramesSwept, nil
}

// wake tells the turn's followers in this process to read again. A
// follower busy delivering keeps one pending wake-up, so none is lost and a
// burst costs one read.
func (b *Bus) wake(turnID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.turns[turnID]; t != nil {
		t.wake()
	}
}

// wakeAll tells every follower in this process to read again: after the
// listener (re)connects, any of them may have missed a notification.
func (b *Bus) wakeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.turns {
		t.wake()
	}
}

func (t *followedTurn) wake() {
	t.gen++
	for w := range t.wakes {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}
