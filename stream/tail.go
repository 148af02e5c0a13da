package stream

import (
	"context"
	"fmt"
	"time"

	"hub/storage"
)

// Tail is where a turn's stream stands, as a client that resumes it needs
// to know before anything is sent: whether there is anything left for it.
type Tail struct {
	// Last is the number of the turn's latest frame (0 before the first):
	// every number the stream gave out is at most Last.
	Last int64
	// Done is the number of its done frame, 0 while it has none (it is
	// running, or its frames were swept).
	Done int64
	// Swept is true when the turn ended more than doneGrace ago and has no
	// done frame: its frames were swept (or its done was never written);
	// no frame will come any more.
	Swept bool
}

// Delivered tells whether a client that has the frames up to `after` has
// everything the turn will ever send, so that following it would only
// wait: it has the done frame, or every frame of a turn whose frames were
// swept, or `after` is beyond the turn's last frame (a number this stream
// never gave out). The api answers such a client 204, which ends an
// EventSource's reconnects.
func (t Tail) Delivered(after int64) bool {
	return after > t.Last || (t.Done > 0 && after >= t.Done) || (t.Swept && after >= t.Last)
}

// Tail reads where the turn's stream stands, in one query. It returns
// ErrTurnGone when the turn does not exist.
func (b *Bus) Tail(ctx context.Context, turnID string) (Tail, error) {
	var rows []struct {
		FrameSeq   int64
		FinishedAt *time.Time
		DoneSeq    *int64
	}
	err := b.db.Q(ctx).Model(&storage.Turn{}).
		Select("frame_seq, finished_at, (SELECT MAX(seq) FROM frames WHERE frames.log = turns.id AND frames.type = ?) AS done_seq", TypeDone).
		Where("id = ?", turnID).Limit(1).Find(&rows).Error
	if err != nil {
		return Tail{}, fmt.Errorf("read the stream's end of %s: %w", turnID, err)
	}
	if len(rows) == 0 {
		return Tail{}, ErrTurnGone
	}
	r := rows[0]
	var done int64
	if r.DoneSeq != nil {
		done = *r.DoneSeq
	}
	return TailOf(r.FrameSeq, done, r.FinishedAt), nil
}

// TailOf is the Tail of a turn read by another query (the api's read of
// the turn with its access, chat.Store.GetTurnForStream): the number of its
// latest frame, of its done frame (0: none), and when it ended (nil: it
// runs).
func TailOf(last, done int64, finishedAt *time.Time) Tail {
	return Tail{Last: last, Done: done, Swept: done == 0 && finishedAt != nil && time.Since(*finishedAt) >= doneGrace}
}

// StandIn is the number a done frame the api writes itself (for a turn
// whose done frame was swept) takes, for a client that has the frames up
// to `delivered`: the turn's last number, which its own done frame had,
// so a client that reconnects with it is Delivered; or, for a client that
// already has that number (its done was never written), the next one,
// which is beyond the last and Delivered too. Either way an EventSource
// that reconnects after it gets 204, not another done.
func (t Tail) StandIn(delivered int64) int64 {
	if delivered < t.Last {
		return t.Last
	}
	return delivered + 1 // delivered ≤ Last: the api does not follow a client beyond the last frame
}
