package stream

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"hub/notify"
)

// readTimeout bounds one shared read: this long means the database is gone.
const readTimeout = 30 * time.Second

// followedLog is what a Bus keeps for a log with followers in this
// process.
type followedLog struct {
	turn bool // a turn's log, not one with a head: only a turn can be gone or swept
	// gen counts the wake-ups that call for a read; a read started at gen
	// g sees every frame announced by them up to g.
	gen  uint64
	last *sharedRead
	// recent are committed frames handed over (handOver), sorted, without
	// repeats, bounded by recentLimit and recentBytes.
	recent []Frame
	fresh  time.Time // the last read started or frame handed over: the poll reads only quiet logs
	polled int64     // the head the poll last saw (logs with a head)
}

// Bounds of the frames a log keeps in memory; a follower further behind reads the table.
const (
	recentLimit = 64
	recentBytes = 256 << 10
)

// handOver gives the log's followers in this process a committed frame
// (published here, or carried by a notification) without asking for a read.
// A follower that needs an earlier one reads the table, which then has it:
// numbers commit in order (Publish). Measured device: reading every frame
// instead cost +3.6 ms median, +5–6 % CPU a turn (docs/benchmarks.md).
func (b *Bus) handOver(log string, f Frame) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.logs[log]
	if t == nil {
		return
	}
	i, found := sort.Find(len(t.recent), func(i int) int { return cmp.Compare(f.Seq, t.recent[i].Seq) })
	if found {
		return // known already
	}
	t.recent = slices.Insert(t.recent, i, f)
	size := 0
	for _, r := range t.recent {
		size += len(r.Data)
	}
	for len(t.recent) > 1 && (len(t.recent) > recentLimit || size > recentBytes) {
		size -= len(t.recent[0].Data)
		t.recent = t.recent[1:]
	}
	t.fresh = time.Now()
	b.followers.Wake(log)
}

// take returns the frames of recent that follow `after` without a gap, and
// whether recent holds a later frame only a read can reach.
func (t *followedLog) take(after int64) (frames []Frame, gap bool) {
	i := sort.Search(len(t.recent), func(i int) bool { return t.recent[i].Seq > after })
	if i == len(t.recent) {
		return nil, false
	}
	if t.recent[i].Seq != after+1 {
		return nil, true
	}
	j := i + 1
	for j < len(t.recent) && t.recent[j].Seq == t.recent[j-1].Seq+1 {
		j++
	}
	return slices.Clone(t.recent[i:j]), j < len(t.recent)
}

// sharedRead is one read of a log's frames that all of its followers in
// this process use: one query however many clients watch.
type sharedRead struct {
	gen     uint64 // the log's gen when the read started
	after   int64
	started time.Time
	done    chan struct{}
	// Set before done closes; end is ErrTurnGone or ErrFramesSwept (frames
	// are then the last).
	frames []Frame
	err    error
	end    error
}

// serves tells whether a follower at `after` may use r while the log is at
// gen: r started late enough, no later than the follower, and (once done)
// neither failed nor stopped short of the follower's position.
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
// conversation was deleted) and every frame it had was delivered.
var ErrTurnGone = errors.New("stream: turn no longer exists")

// ErrFramesSwept is what Follow returns for a turn whose frames were swept
// (Retention): the caller answers with the turn's saved ending.
var ErrFramesSwept = errors.New("stream: the turn's frames were swept")

// doneGrace is how long after a turn ended its done frame may still be on
// its way; past it, an ended turn without one had its frames swept.
const doneGrace = time.Minute

// Follow calls fn with every frame after seq `after`, in order, as they are
// published, until the done frame has been delivered (then it returns nil),
// the turn is gone (ErrTurnGone), its frames were swept (ErrFramesSwept),
// fn fails, ctx ends, or the Bus is closed (ErrClosed).
//
// It reads the table first, then takes handed-over frames while each is the
// one after the last delivered (so none is skipped or repeated), and reads
// again on a wake-up without it. A read that finds nothing new checks that
// the turn exists, so a deleted turn's stream ends at its next wake-up.
func (b *Bus) Follow(ctx context.Context, turnID string, after int64, fn func(Frame) error) error {
	return b.follow(ctx, turnID, true, after, fn)
}

// FollowLog is Follow for a log with a head (Append): it has no turn and
// no done frame, so it ends only when fn fails, ctx ends or the Bus (or
// its Notifier) is closed.
func (b *Bus) FollowLog(ctx context.Context, log string, after int64, fn func(Frame) error) error {
	return b.follow(ctx, log, false, after, fn)
}

func (b *Bus) follow(ctx context.Context, log string, turn bool, after int64, fn func(Frame) error) error {
	f, err := b.join(log, turn)
	if err != nil {
		return err
	}
	defer f.Leave()
	return f.follow(ctx, after, nil, fn)
}

// Follower is one follower of a turn for a caller that reads the first
// frames itself (the api, with the turn and the person's access). It must
// Join before that read: from Join on, frames handed over are kept and
// wake-ups counted, so nothing committed between the read and Follow is
// missed.
type Follower struct {
	b   *Bus
	log string
	w   *notify.Follower
	gen uint64 // the log's gen at Join
}

// Join registers a follower of the turn. Call Leave on every path: a
// follower that never leaves keeps the turn's frames in memory.
func (b *Bus) Join(turnID string) (*Follower, error) { return b.join(turnID, true) }

func (b *Bus) join(log string, turn bool) (*Follower, error) {
	b.register()
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.ctx.Done():
		return nil, ErrClosed
	case <-b.n.Done():
		return nil, ErrClosed
	default:
	}
	t := b.logs[log]
	if t == nil {
		t = &followedLog{turn: turn}
		b.logs[log] = t
	}
	return &Follower{b: b, log: log, w: b.followers.Join(log), gen: t.gen}, nil
}

// Leave unregisters the follower; more than once, or on nil (Join failed),
// is harmless. Not while Follow runs.
func (f *Follower) Leave() {
	if f == nil {
		return
	}
	f.b.mu.Lock()
	defer f.b.mu.Unlock()
	if f.w.Leave() {
		delete(f.b.logs, f.log)
	}
}

// Follow is Bus.Follow for a caller that read, after Join, the turn's
// frames after `after` (in order, without a gap) and its tail: it delivers
// them, then goes on as Bus.Follow, reading only what that read lacked.
// Call it once, before Leave.
func (f *Follower) Follow(ctx context.Context, after int64, frames []Frame, tail Tail, fn func(Frame) error) error {
	return f.follow(ctx, after, &firstRead{frames: frames, tail: tail}, fn)
}

// firstRead is what the caller of Follower.Follow read itself.
type firstRead struct {
	frames []Frame
	tail   Tail
}

func (f *Follower) follow(ctx context.Context, after int64, first *firstRead, fn func(Frame) error) error {
	b, log := f.b, f.log
	deliver := func(frames []Frame) (done bool, err error) {
		for _, fr := range frames {
			if fr.Seq <= after {
				continue // delivered already: never twice, whoever read it
			}
			if err := fn(fr); err != nil {
				return false, err
			}
			after = fr.Seq
			if fr.Type == TypeDone {
				return true, nil
			}
		}
		return false, nil
	}
	needRead := true
	var readGen uint64 // the gen of the last read this follower used
	if first != nil {
		if done, err := deliver(first.frames); done || err != nil {
			return err
		}
		switch {
		case first.tail.Swept && (len(first.frames) == 0 || after >= first.tail.Last):
			return ErrFramesSwept
		case after < first.tail.Last: // the read stopped short: read the rest
		default:
			readGen, needRead = f.gen, false
		}
	}
	for {
		if needRead {
			frames, gen, more, end, err := b.read(ctx, log, after)
			if err != nil {
				return err
			}
			if done, err := deliver(frames); done || err != nil {
				return err
			}
			if more {
				continue
			}
			if end != nil {
				return end
			}
			readGen, needRead = gen, false
		}
		b.mu.Lock()
		t := b.logs[log]
		frames, gap := t.take(after)
		if gap && len(frames) == 0 {
			b.wakeLog(log, t) // a read started from now on has the missing frame
		}
		stale := t.gen != readGen
		b.mu.Unlock()
		if done, err := deliver(frames); done || err != nil {
			return err
		}
		if len(frames) > 0 {
			continue // more may have been handed over meanwhile
		}
		if stale {
			needRead = true
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.ctx.Done():
			return ErrClosed
		case <-b.n.Done():
			return ErrClosed
		case <-f.w.Woken():
		}
	}
}

// Done is closed when the Bus is closed, for streams that are not a Follow.
func (b *Bus) Done() <-chan struct{} { return b.ctx.Done() }

// read returns the log's frames after `after` from a shared read started
// after the log's latest wake-up (joining one that serves, else starting
// one) and the gen it started at; more: the read was full; end: no frame
// follows these. The caller has joined the log.
func (b *Bus) read(ctx context.Context, log string, after int64) (frames []Frame, gen uint64, more bool, end, err error) {
	for {
		b.mu.Lock()
		t := b.logs[log]
		r := t.last
		if r == nil || !r.serves(t.gen, after) {
			if b.ctx.Err() != nil {
				b.mu.Unlock()
				return nil, 0, false, nil, ErrClosed
			}
			r = &sharedRead{gen: t.gen, after: after, started: time.Now(), done: make(chan struct{})}
			t.last, t.fresh = r, r.started
			if b.onRead != nil {
				b.onRead(log)
			}
			// The Bus owns the read: another follower must not see this
			// one's context end.
			turn := t.turn
			b.wg.Go(func() {
				defer close(r.done)
				rctx, cancel := context.WithTimeout(b.ctx, readTimeout)
				defer cancel()
				if !turn {
					r.frames, r.err = b.Frames(rctx, log, r.after)
					return
				}
				r.frames, r.end, r.err = b.readFrames(rctx, log, r.after)
			})
		}
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, 0, false, nil, ctx.Err()
		case <-r.done:
		}
		if r.err != nil {
			if b.ctx.Err() != nil {
				return nil, 0, false, nil, ErrClosed
			}
			return nil, 0, false, nil, r.err
		}
		full := len(r.frames) == readLimit
		i := sort.Search(len(r.frames), func(i int) bool { return r.frames[i].Seq > after })
		if full && i == len(r.frames) {
			continue // cut short before this follower's position: read on
		}
		if full {
			return r.frames[i:], r.gen, true, nil, nil
		}
		return r.frames[i:], r.gen, false, r.end, nil
	}
}

// readFrames reads the turn's frames after `after` with the turn's state.
// Once the turn is gone no frame can be added, so frames read after seeing
// it gone are its last (end ErrTurnGone): read then, not before, so none
// published just before the deletion is lost. An ended turn past doneGrace
// without a done frame has end ErrFramesSwept.
func (b *Bus) readFrames(ctx context.Context, turnID string, after int64) (frames []Frame, end, err error) {
	var rows []struct {
		FinishedAt *time.Time
		Seq        *int64
		Type       string
		Data       string
		CreatedAt  *time.Time
	}
	// The id is named in the join too, so frames are read by their key.
	err = b.db.Q(ctx).Raw(`SELECT turns.finished_at, f.seq, f.type, f.data, f.created_at
		FROM turns LEFT JOIN frames f ON f.log = ? AND f.seq > ?
		WHERE turns.id = ? ORDER BY f.seq LIMIT ?`, turnID, after, turnID, readLimit).Scan(&rows).Error
	if err != nil {
		return nil, nil, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	if len(rows) == 0 {
		frames, err = b.Frames(ctx, turnID, after)
		if err != nil {
			return nil, nil, err
		}
		return frames, ErrTurnGone, nil
	}
	if rows[0].Seq != nil {
		frames = make([]Frame, len(rows))
		for i, r := range rows {
			frames[i] = Frame{Seq: *r.Seq, Type: r.Type, Data: json.RawMessage(r.Data), CreatedAt: *r.CreatedAt}
		}
		return frames, nil, nil
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

// wake tells the log's followers in this process to read again, and
// forgets the frames handed over: a reopen changes numbered frames.
func (b *Bus) wake(log string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.logs[log]; t != nil {
		t.recent = nil
		b.wakeLog(log, t)
	}
}

// wakeAll wakes every log, as wake does: after the listener (re)connects.
func (b *Bus) wakeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, t := range b.logs {
		t.recent = nil
		b.wakeLog(id, t)
	}
}

// wakeLog asks the log's followers for a read. b.mu is held.
func (b *Bus) wakeLog(log string, t *followedLog) {
	t.gen++
	b.followers.Wake(log)
}
