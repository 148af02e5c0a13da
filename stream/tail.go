package stream

import (
	"context"
	"fmt"
	"time"

	"hub/storage"
)

// Tail is where a turn's stream stands, for a client that resumes it.
type Tail struct {
	Last  int64 // the latest frame's number (0 before the first)
	Done  int64 // the done frame's number (0: none)
	Swept bool  // ended more than doneGrace ago without a done frame: none will come
}

// Delivered tells whether a client that has the frames up to `after` has
// everything the turn will ever send (the api answers it 204).
func (t Tail) Delivered(after int64) bool {
	return after > t.Last || (t.Done > 0 && after >= t.Done) || (t.Swept && after >= t.Last)
}

// Tail reads where the turn's stream stands, in one query. It returns
// ErrTurnGone when the turn does not exist.
func (b *Bus) Tail(ctx context.Context, turnID string) (Tail, error) {
	var rows []struct {
		FrameSeq   int64
		FinishedAt *time.Time
		DoneSeq    int64
	}
	err := b.db.Q(ctx).Model(&storage.Turn{}).
		Select("frame_seq, finished_at, COALESCE((SELECT MAX(seq) FROM frames "+
			"WHERE frames.log = turns.id AND frames.type = ?), 0) AS done_seq", TypeDone).
		Where("id = ?", turnID).Limit(1).Find(&rows).Error
	if err != nil {
		return Tail{}, fmt.Errorf("read the stream's end of %s: %w", turnID, err)
	}
	if len(rows) == 0 {
		return Tail{}, ErrTurnGone
	}
	return TailOf(rows[0].FrameSeq, rows[0].DoneSeq, rows[0].FinishedAt), nil
}

// TailOf is the Tail of a turn read by another query
// (chat.Store.GetTurnForStream); finishedAt nil: it runs.
func TailOf(last, done int64, finishedAt *time.Time) Tail {
	return Tail{Last: last, Done: done, Swept: done == 0 && finishedAt != nil && time.Since(*finishedAt) >= doneGrace}
}

// StandIn is the number of a done frame the api writes itself for a swept
// turn, to a client that has the frames up to `delivered`: one that is
// Delivered, so a reconnect gets 204, not another done.
func (t Tail) StandIn(delivered int64) int64 {
	if delivered < t.Last {
		return t.Last
	}
	return delivered + 1 // delivered ≤ Last: the api does not follow a client beyond the last frame
}
