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

// readTimeout bounds one shared read of a log's frames: it takes
// milliseconds, so this long means the database is gone; the followers then
// see the error (and their SSE clients reconnect).
const readTimeout = 30 * time.Second

// followedLog is what a Bus keeps for a log with followers in this
// process.
type followedLog struct {
	// turn tells a turn's log (Follow, Join) from one with a head
	// (FollowLog): only a turn can be gone or swept.
	turn bool
	// gen counts the wake-ups of the log that call for a read: a frame
	// not handed over in memory (a notification without it, the listener
	// coming back, a poll, a publish that failed, a reopen, a gap a
	// follower saw). A read started at gen g sees every frame announced
	// by such wake-ups up to g.
	gen  uint64
	last *sharedRead // the latest read of the log's frames
	// recent are frames known committed that were handed over in memory
	// (see handOver): published by this process, or carried by another's
	// notification. Sorted by number, without repeats, at most
	// recentLimit; a follower whose next frame is among them takes it and
	// those that follow it without reading the table.
	recent []Frame
	// fresh is when the log last had a read start or a frame handed
	// over: the poll reads only after a quiet half poll interval.
	fresh time.Time
	// polled is the head the poll last saw of a log with a head.
	polled int64
}

// recentLimit bounds the frames a log keeps in memory for its followers:
// a follower further behind reads the table.
const recentLimit = 64

// recentBytes bounds the data of the frames a log keeps in memory.
const recentBytes = 256 << 10

// handOver gives the log's followers in this process a frame that is
// committed, without a read: the publisher's own (Publish), or one a
// notification carried from another process. Followers take it when it is
// the next one they need; one that needs an earlier frame reads the table
// (a read started now sees every frame up to this one: numbers commit in
// order, see Publish). It wakes the followers without asking for a read.
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
// whether recent holds a later frame that cannot be reached without
// reading the table (the frames in between were not handed over).
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

// sharedRead is one read of a log's frames that all of the log's
// followers in this process use: a frame watched by 500 clients costs one
// query, not 500.
type sharedRead struct {
	gen     uint64 // the log's gen when the read started
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

// serves tells whether a follower at `after` may use r while the log is at
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
// fn fails, ctx ends, or the Bus is closed (ErrClosed).
//
// It reads the table when it starts, then takes the frames handed over in
// memory (published in this process, or carried by a notification from
// another: see handOver) as long as they follow the last one it delivered.
// It reads the table again whenever that is not enough: the turn was woken
// without the frame (a notification too large to carry it, the listener
// (re)connecting, a publish that failed, the poll), or a frame it has not
// got is missing before one it has. Taking only the frame after the last
// number it delivered is what keeps delivery free of gaps and repeats,
// however the frames come; the reads are shared by the turn's followers. A
// read that finds nothing new also checks that the turn still exists, so a
// deleted turn's stream ends at its next wake-up: a publish to it (the
// worker, whose model call is still streaming when the conversation goes)
// or, at the latest, the poll.
//
// Follow is Join, then Follower.Follow with a read of its own, then Leave.
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

// Follower is one follower of a turn, registered with the Bus before
// anything of the turn's frames is read, for a caller that reads the first
// frames itself: the api reads them in the query that reads the turn and
// the person's access to it. From Join on, every frame handed over to the
// turn in this process (published here, or carried by another process's
// notification) is kept for the follower, and every wake-up that calls for
// a read is counted; a read started after Join therefore leaves nothing
// between it and Follower.Follow that the follower would not see: a frame
// committed before the read is in it, one committed after was handed over
// (or woke the turn) after Join. Registering after the read instead would
// drop a frame handed over in between until the next frame or the poll
// showed the gap.
type Follower struct {
	b   *Bus
	log string
	w   *notify.Follower
	// gen is the log's gen at Join: the caller's read, started after
	// Join, sees every frame announced by a wake-up up to it (see
	// followedLog.gen).
	gen uint64
}

// Join registers a follower of the turn (the first one registers the Bus
// with its notifier). Call Leave when done with it, on every path: a
// follower that never leaves keeps the turn's frames in memory.
func (b *Bus) Join(turnID string) (*Follower, error) { return b.join(turnID, true) }

func (b *Bus) join(log string, turn bool) (*Follower, error) {
	b.register()
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.closed:
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

// Leave unregisters the follower; once is enough, more is harmless, and
// so is a nil Follower's (Join failed). It must not be called while
// Follow runs.
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

// Follow is Bus.Follow for a caller that read the turn's first frames
// itself, after Join: frames are the turn's frames after `after` that the
// read returned (in order, without a gap: all of them, or as many as it
// took), tail where the turn's stream stood in the same read. Follow
// delivers them, then goes on as Bus.Follow does, reading only what the
// read did not have: the frames beyond those it returned up to tail.Last,
// and whatever was handed over or announced since Join. A read that found
// no frame of a turn whose frames were swept (tail.Swept) ends it with
// ErrFramesSwept, as Bus.Follow's own read would. Call it once, before
// Leave.
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
			// Nothing after `after`, long after the turn ended and
			// without a done frame: readFrames' ErrFramesSwept.
			return ErrFramesSwept
		case after < first.tail.Last:
			// The read stopped short of the turn's last frame: the rest
			// is read as Bus.Follow reads.
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
			// A frame before those handed over is missing here: a read
			// that starts from now on has it.
			b.wakeLog(log, t)
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
		case <-b.closed:
			return ErrClosed
		case <-b.n.Done():
			return ErrClosed
		case <-f.w.Woken():
			// A frame handed over, a read asked for (a wake-up without
			// the frame, the notifier's reconnect or poll: see poll).
		}
	}
}

// Done is closed when the Bus is closed: the process is shutting down, and
// a stream that is not a Follow (the activity stream) ends with the turns'.
func (b *Bus) Done() <-chan struct{} { return b.closed }

// read returns the log's frames after `after` (at most readLimit) from a
// read that started after the log's latest wake-up, joining one in flight
// or done when it serves, else starting one; gen is the log's gen that
// read started at. more tells that the read was full, so more frames may
// be waiting; end (ErrTurnGone, ErrFramesSwept) that no frame will follow
// these. The caller has joined the log.
func (b *Bus) read(ctx context.Context, log string, after int64) (frames []Frame, gen uint64, more bool, end, err error) {
	for {
		b.mu.Lock()
		t := b.logs[log]
		r := t.last
		if r == nil || !r.serves(t.gen, after) {
			select {
			case <-b.closed:
				b.mu.Unlock()
				return nil, 0, false, nil, ErrClosed
			default:
			}
			r = &sharedRead{gen: t.gen, after: after, started: time.Now(), done: make(chan struct{})}
			t.last, t.fresh = r, r.started
			if b.hooks.read != nil {
				b.hooks.read(log)
			}
			// The Bus owns the read, not this follower: another follower
			// waiting on it must not see this one's context ending.
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

// readFrames reads the turn's frames after `after`; when there are none,
// it checks that the turn still exists. Once the turn is gone no frame can
// be added (Publish finds no turn to number it), so the frames read after
// seeing it gone are its last: reading them then, not before, is what keeps
// a frame published just before the deletion from being lost (end is
// ErrTurnGone). A turn that ended more than doneGrace ago and has no done
// frame had its frames swept (end is ErrFramesSwept).
func (b *Bus) readFrames(ctx context.Context, turnID string, after int64) (frames []Frame, end, err error) {
	// The frames and the turn's state in one read: a read that finds no
	// frame needs to know whether the turn still exists and when it ended.
	var rows []struct {
		FinishedAt *time.Time
		Seq        *int64
		Type       string
		Data       string
		CreatedAt  *time.Time
	}
	// The turn's id is named on both sides: an outer join's condition is
	// not carried over from the WHERE, and the frames are read by their
	// key (log, seq), not scanned.
	err = b.db.Q(ctx).Raw(`SELECT turns.finished_at, f.seq, f.type, f.data, f.created_at
		FROM turns LEFT JOIN frames f ON f.log = ? AND f.seq > ?
		WHERE turns.id = ? ORDER BY f.seq LIMIT ?`, turnID, after, turnID, readLimit).Scan(&rows).Error
	if err != nil {
		return nil, nil, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	if len(rows) == 0 {
		// Gone: the frames read now are its last.
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

// wake tells the turn's followers in this process to read again, and
// forgets the frames handed over: what woke them may have changed frames
// already numbered (a reopen, see Reopen). A follower busy delivering
// keeps one pending wake-up, so none is lost and a burst costs one read.
func (b *Bus) wake(log string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.logs[log]; t != nil {
		t.recent = nil
		b.wakeLog(log, t)
	}
}

// wakeAll tells every follower in this process to read again: after the
// listener (re)connects, any of them may have missed a notification.
func (b *Bus) wakeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, t := range b.logs {
		t.recent = nil
		b.wakeLog(id, t)
	}
}

// wakeLog asks the log's followers for a read: it bumps the log's gen and
// signals them. b.mu is held.
func (b *Bus) wakeLog(log string, t *followedLog) {
	t.gen++
	b.followers.Wake(log)
}
