// Package stream carries a turn's frames (refs, status, text deltas, tool
// phases, done) from the worker that produces them to every SSE client.
//
// Frames are stored per turn with a sequence number (turn_frames), so a
// client that reconnects with Last-Event-ID reads exactly the frames after
// it: no gap, no repeat, from any api process. Publishing wakes followers in
// the same process at once; followers in other processes find new frames by
// polling until Postgres LISTEN/NOTIFY replaces the poll.
package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"gorm.io/gorm"

	"hub/models"
)

// Frame types, as API.md names them.
const (
	TypeRefs     = "refs"
	TypeStatus   = "status"
	TypeText     = "text"
	TypeTool     = "tool"
	TypeProposal = "proposal"
	TypeError    = "error"
	TypeDone     = "done"
)

// Frame is one event of a turn's stream.
type Frame struct {
	Seq       int64
	Type      string
	Data      json.RawMessage
	CreatedAt time.Time
}

// Bus stores and delivers frames.
type Bus struct {
	db *models.DB
	// PollInterval bounds how late a follower in another process sees a
	// frame while frames only arrive by polling.
	PollInterval time.Duration

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
}

// NewBus returns a Bus over db.
func NewBus(db *models.DB) *Bus {
	return &Bus{db: db, PollInterval: 200 * time.Millisecond, waiters: map[string]map[chan struct{}]struct{}{}}
}

// Publish appends a frame to the turn's stream and returns its sequence
// number. The number comes from the turn row, incremented in the same
// transaction as the insert, so concurrent publishers (tool calls run side
// by side) get distinct, gapless numbers.
func (b *Bus) Publish(ctx context.Context, turnID, typ string, data any) (int64, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return 0, fmt.Errorf("publish %s frame: %w", typ, err)
	}
	var seq int64
	err = b.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Raw("UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING frame_seq", turnID).Scan(&seq).Error; err != nil {
			return err
		}
		if seq == 0 {
			return fmt.Errorf("no turn %s", turnID)
		}
		return tx.Create(&models.TurnFrame{TurnID: turnID, Seq: seq, Type: typ, Data: string(raw)}).Error
	})
	if err != nil {
		return 0, fmt.Errorf("publish %s frame to %s: %w", typ, turnID, err)
	}
	b.wake(turnID)
	return seq, nil
}

// Frames returns the turn's frames after seq, oldest first.
func (b *Bus) Frames(ctx context.Context, turnID string, after int64) ([]Frame, error) {
	var rows []models.TurnFrame
	err := b.db.WithContext(ctx).Where("turn_id = ? AND seq > ?", turnID, after).Order("seq").Limit(1000).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	out := make([]Frame, len(rows))
	for i, r := range rows {
		out[i] = Frame{Seq: r.Seq, Type: r.Type, Data: json.RawMessage(r.Data), CreatedAt: r.CreatedAt}
	}
	return out, nil
}

// Follow calls fn with every frame after seq `after`, in order, as they are
// published, until the done frame has been delivered (then it returns nil),
// fn fails, or ctx ends.
func (b *Bus) Follow(ctx context.Context, turnID string, after int64, fn func(Frame) error) error {
	wake := make(chan struct{}, 1)
	b.mu.Lock()
	if b.waiters[turnID] == nil {
		b.waiters[turnID] = map[chan struct{}]struct{}{}
	}
	b.waiters[turnID][wake] = struct{}{}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiters[turnID], wake)
		if len(b.waiters[turnID]) == 0 {
			delete(b.waiters, turnID)
		}
		b.mu.Unlock()
	}()
	tick := time.NewTicker(b.PollInterval)
	defer tick.Stop()
	for {
		frames, err := b.Frames(ctx, turnID, after)
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
		if len(frames) == 1000 {
			continue // more are waiting
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		case <-tick.C:
		}
	}
}

func (b *Bus) wake(turnID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.waiters[turnID] {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// Sweep removes the frames of turns that ended before the cutoff; API.md
// promises at least 10 minutes after a turn ends. Frames whose turn is gone
// (its conversation was deleted) go once they are older than the cutoff.
func (b *Bus) Sweep(ctx context.Context, endedBefore time.Time) (int64, error) {
	// SQLite compares times as the text the driver wrote, with its zone
	// offset: every stored time is UTC, so the cutoff must be too.
	endedBefore = endedBefore.UTC()
	q := b.db.WithContext(ctx)
	res := q.Where("turn_id IN (?)",
		q.Model(&models.Turn{}).Select("id").Where("finished_at IS NOT NULL AND finished_at < ?", endedBefore)).
		Or("created_at < ? AND turn_id NOT IN (?)", endedBefore, q.Model(&models.Turn{}).Select("id")).
		Delete(&models.TurnFrame{})
	if res.Error != nil {
		return 0, fmt.Errorf("sweep frames: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// Has tells whether the turn already has a frame of the given type.
func (b *Bus) Has(ctx context.Context, turnID, typ string) (bool, error) {
	var n int64
	if err := b.db.WithContext(ctx).Model(&models.TurnFrame{}).Where("turn_id = ? AND type = ?", turnID, typ).Count(&n).Error; err != nil {
		return false, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	return n > 0, nil
}
