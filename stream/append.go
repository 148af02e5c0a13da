package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"hub/storage"
)

// pruneEvery: every pruneEvery-th frame prunes its log's frames older than Retention.
const pruneEvery = 32

// Append appends a frame to a log numbered by a head row of its own and
// returns its number, in the transaction ctx carries (else its own). The
// head's upsert locks it before data is called, so frames are numbered in
// the order their data was read. The NOTIFY goes out on commit, the
// hand-over after it. An error of data is returned as it is.
func (b *Bus) Append(ctx context.Context, log, typ string, data func() (any, error)) (int64, error) {
	var row storage.Frame
	var dataErr error
	err := b.db.InTx(ctx, func(ctx context.Context) error {
		q := b.db.Q(ctx)
		err := q.Raw(`INSERT INTO frame_heads (log, seq) VALUES (?, 1)
			ON CONFLICT (log) DO UPDATE SET seq = frame_heads.seq + 1 RETURNING seq`, log).Scan(&row.Seq).Error
		if err != nil {
			return err
		}
		v, err := data()
		if err != nil {
			dataErr = err
			return err
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		row = storage.Frame{Log: log, Seq: row.Seq, Type: typ, Data: string(raw), CreatedAt: frameTime()}
		if err := b.storeAnnounced(ctx, &row); err != nil {
			return err
		}
		storage.AfterTx(ctx, func(err error) { b.published(&row, err) })
		if row.Seq%pruneEvery != 0 {
			return nil
		}
		return q.Where("log = ? AND created_at < ?", log, frameTime().Add(-Retention)).Delete(&storage.Frame{}).Error
	})
	switch {
	case dataErr != nil:
		return 0, dataErr
	case err != nil:
		return 0, fmt.Errorf("append %s frame to %s: %w", typ, log, err)
	}
	return row.Seq, nil
}

// Head returns the number of the latest frame of a log with a head (0
// before the first).
func (b *Bus) Head(ctx context.Context, log string) (int64, error) {
	var h storage.FrameHead
	err := b.db.Q(ctx).Take(&h, "log = ?", log).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, fmt.Errorf("head of %s: %w", log, err)
	}
	return h.Seq, nil
}

// Resumes tells whether a client that has a log's frames up to `after` can
// get every later one: none pruned, and `after` not beyond the head.
func (b *Bus) Resumes(ctx context.Context, log string, after int64) (bool, error) {
	head, err := b.Head(ctx, log)
	if err != nil {
		return false, err
	}
	if after >= head {
		return after == head, nil
	}
	var n int64
	if err := b.db.Q(ctx).Model(&storage.Frame{}).Where("log = ? AND seq = ?", log, after+1).Count(&n).Error; err != nil {
		return false, fmt.Errorf("read frames of %s: %w", log, err)
	}
	return n == 1, nil
}

// storeAnnounced stores a numbered frame and sends its NOTIFY: one
// statement on Postgres, as publishSQL.
func (b *Bus) storeAnnounced(ctx context.Context, row *storage.Frame) error {
	if b.db.Dialect != storage.Postgres {
		return b.db.Q(ctx).Create(row).Error
	}
	return b.db.Q(ctx).Exec(`WITH stored AS (
	INSERT INTO frames (log, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?) RETURNING seq
)
SELECT pg_notify(?, ? || ' ' || seq::text || ?) FROM stored`, row.Log, row.Seq, row.Type, row.Data, row.CreatedAt,
		Channel, notifyPayload(b.origin, row.Log), frameSuffix(b.origin, row)).Error
}
