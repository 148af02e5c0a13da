package stream

import (
	"context"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"

	"hub/models"
)

// Draft is a frame to append: its type and data.
type Draft struct {
	Type string
	Data any
}

// ResetStatus is the data of the status frame that opens a new attempt of
// a turn's frames after an operator reset its workflow: "reset" tells the
// client to drop everything the turn showed before it (text, tool rows, a
// proposal, an error), not only the text since the last status frame as a
// plain "discard" does.
func ResetStatus(step int) map[string]any {
	return map[string]any{"status": StatusWorking, "step": step, "discard": true, "reset": true,
		"text": "This turn runs again…"}
}

// replacedDone is what a turn's old done frame becomes when a reset run
// reopens the turn: a turn has one done frame, its last, and a follower
// reading from the start must not stop at the old one.
var replacedDone = map[string]any{"status": StatusReset, "text": "This turn was reset and runs again."}

// Reopen returns the stream's part of reopening a turn for a new attempt,
// to run in the transaction that reopens the turn (chat.Store.ClaimTurn):
// the turn's done frame, if it has one, becomes a status frame (so the
// numbers stay gapless and a follower reading from the start reads on to
// the new attempt), then frames are appended: a ResetStatus frame first,
// then the given ones (what the new run keeps of the old one). The reset
// frame's number becomes the turn's attempt_seq, after which HasInAttempt
// looks. On Postgres the notification goes out when the transaction
// commits; call Wake then for this process's followers.
func (b *Bus) Reopen(turnID string, step int, frames []Draft) func(tx *gorm.DB) error {
	return func(tx *gorm.DB) error {
		replaced, err := json.Marshal(replacedDone)
		if err != nil {
			return err
		}
		if err := tx.Model(&models.TurnFrame{}).Where("turn_id = ? AND type = ?", turnID, TypeDone).
			Updates(map[string]any{"type": TypeStatus, "data": string(replaced)}).Error; err != nil {
			return fmt.Errorf("reopen frames of %s: %w", turnID, err)
		}
		all := append([]Draft{{Type: TypeStatus, Data: ResetStatus(step)}}, frames...)
		var first int64
		for _, d := range all {
			raw, err := json.Marshal(d.Data)
			if err != nil {
				return fmt.Errorf("reopen frames of %s: %w", turnID, err)
			}
			row := models.TurnFrame{TurnID: turnID, Type: d.Type, Data: string(raw), CreatedAt: frameTime()}
			if err := tx.Raw("UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING frame_seq", turnID).Scan(&row.Seq).Error; err != nil {
				return fmt.Errorf("reopen frames of %s: %w", turnID, err)
			}
			if row.Seq == 0 {
				return fmt.Errorf("reopen frames: no turn %s", turnID)
			}
			if err := tx.Create(&row).Error; err != nil {
				return fmt.Errorf("reopen frames of %s: %w", turnID, err)
			}
			if first == 0 {
				first = row.Seq
			}
		}
		if err := tx.Model(&models.Turn{}).Where("id = ?", turnID).Update("attempt_seq", first).Error; err != nil {
			return fmt.Errorf("reopen frames of %s: %w", turnID, err)
		}
		if b.db.Dialect == models.Postgres {
			// Delivered when the transaction commits, like a publish's.
			if err := tx.Exec("SELECT pg_notify(?, ?)", Channel, notifyPayload(b.origin, turnID)).Error; err != nil {
				return fmt.Errorf("announce reopened %s: %w", turnID, err)
			}
		}
		return nil
	}
}

// Wake tells the turn's followers in this process to read again (after a
// Reopen committed; other processes hear of it by notification).
func (b *Bus) Wake(turnID string) { b.wake(turnID) }

// HasInAttempt tells whether the turn's current attempt of frames (after
// its attempt_seq, see Reopen) has a frame of the given type: refs, error,
// proposal and done are sent once per attempt.
func (b *Bus) HasInAttempt(ctx context.Context, turnID, typ string) (bool, error) {
	var n int64
	err := b.db.WithContext(ctx).Model(&models.TurnFrame{}).
		Where("turn_id = ? AND type = ? AND seq > (?)", turnID, typ,
			b.db.Model(&models.Turn{}).Select("attempt_seq").Where("id = ?", turnID)).
		Count(&n).Error
	if err != nil {
		return false, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	return n > 0, nil
}

// Last returns the turn's latest frame of the given type, if it has one.
func (b *Bus) Last(ctx context.Context, turnID, typ string) (Frame, bool, error) {
	var rows []models.TurnFrame
	err := b.db.WithContext(ctx).Where("turn_id = ? AND type = ?", turnID, typ).Order("seq DESC").Limit(1).Find(&rows).Error
	if err != nil {
		return Frame{}, false, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	if len(rows) == 0 {
		return Frame{}, false, nil
	}
	r := rows[0]
	return Frame{Seq: r.Seq, Type: r.Type, Data: json.RawMessage(r.Data), CreatedAt: r.CreatedAt}, true, nil
}

// publishOnceSQL is publishSQL for a frame sent once per attempt: the
// counter moves, and the frame is stored, only while the attempt has no
// frame of its type. found tells a turn that exists from a missing one;
// the NOTIFY goes out when a frame was stored or the turn is missing (its
// followers then read, find it gone and end), not when one was there.
const publishOnceSQL = `WITH numbered AS (
	UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? AND NOT EXISTS (
		SELECT 1 FROM turn_frames WHERE turn_frames.turn_id = turns.id AND turn_frames.type = ? AND turn_frames.seq > turns.attempt_seq
	) RETURNING id, frame_seq
), stored AS (
	INSERT INTO turn_frames (turn_id, seq, type, data, created_at)
	SELECT id, frame_seq, ?, ?, ? FROM numbered
	RETURNING seq
), found AS (
	SELECT EXISTS (SELECT 1 FROM turns WHERE id = ?) AS found
)
SELECT (SELECT seq FROM stored) AS seq, found.found,
	CASE WHEN EXISTS (SELECT 1 FROM stored) OR NOT found.found
		THEN pg_notify(?, ? || COALESCE(' ' || (SELECT seq FROM stored)::text || ?, ''))::text END AS notified
FROM found`

// PublishOnce publishes a frame of a type a turn's attempt has at most
// one of (refs, error, proposal, done: see HasInAttempt), unless the
// attempt has one already; it tells whether it published. On Postgres the
// check and the publish are one statement, one round trip — not a lock:
// two calls racing for one attempt (a retried activity whose first attempt
// still runs) can both publish, as with the check-then-publish on SQLite;
// a follower ends at the first done frame either way. A turn that does not
// exist is an error, as for Publish.
func (b *Bus) PublishOnce(ctx context.Context, turnID, typ string, data any) (bool, error) {
	if b.db.Dialect != models.Postgres {
		has, err := b.HasInAttempt(ctx, turnID, typ)
		if err != nil || has {
			return false, err
		}
		_, err = b.Publish(ctx, turnID, typ, data)
		return err == nil, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return false, fmt.Errorf("publish %s frame: %w", typ, err)
	}
	row := models.TurnFrame{TurnID: turnID, Type: typ, Data: string(raw), CreatedAt: frameTime()}
	var out struct {
		Seq   *int64
		Found bool
	}
	err = b.db.WithContext(ctx).Raw(publishOnceSQL, turnID, typ, typ, row.Data, row.CreatedAt, turnID,
		Channel, notifyPayload(b.origin, turnID), frameSuffix(b.origin, &row)).Scan(&out).Error
	switch {
	case err == nil && out.Seq != nil:
		row.Seq = *out.Seq
		b.published(&row, nil)
		return true, nil
	case err == nil && out.Found:
		return false, nil // the attempt has one
	case err == nil:
		err = fmt.Errorf("no turn %s", turnID)
	}
	b.wake(turnID)
	return false, fmt.Errorf("publish %s frame to %s: %w", typ, turnID, err)
}
