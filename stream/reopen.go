package stream

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"hub/notify"
	"hub/storage"
)

// Draft is a frame to append: its type and data.
type Draft struct {
	Type string
	Data any
}

// ResetStatus is the data of the status frame that opens a new attempt
// after an operator reset: "reset" tells the client to drop everything the
// turn showed, not only the text a plain "discard" drops.
func ResetStatus(step int) map[string]any {
	return map[string]any{"status": StatusWorking, "step": step, "discard": true, "reset": true,
		"text": "This turn runs again…"}
}

// replacedDone is what a reopened turn's old done frame becomes: a
// follower reading from the start must not stop at it.
var replacedDone = map[string]any{"status": StatusReset, "text": "This turn was reset and runs again."}

// Reopen does the stream's part of reopening a turn, in the transaction
// ctx carries (chat.Store.ClaimTurn): the done frame becomes a status
// frame (numbers stay gapless), then a ResetStatus frame and the given
// ones are appended; the reset frame's number becomes the turn's
// attempt_seq. Followers here are woken once the transaction ended,
// whatever its outcome.
func (b *Bus) Reopen(ctx context.Context, turnID string, step int, frames []Draft) error {
	tx := b.db.Q(ctx)
	storage.AfterTx(ctx, func(error) { b.wake(turnID) })
	replaced, err := json.Marshal(replacedDone)
	if err != nil {
		return err
	}
	if err := tx.Model(&storage.Frame{}).Where("log = ? AND type = ?", turnID, TypeDone).
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
		row := storage.Frame{Log: turnID, Type: d.Type, Data: string(raw), CreatedAt: frameTime()}
		if first != 0 && OnePerAttempt(d.Type) {
			attempt := first // (a frame of another type is in no attempt: NULL)
			row.Attempt = &attempt
		}
		if err := b.insert(ctx, &row); err != nil {
			return fmt.Errorf("reopen frames of %s: %w", turnID, err)
		}
		if first == 0 {
			first = row.Seq
		}
	}
	if err := tx.Model(&storage.Turn{}).Where("id = ?", turnID).Update("attempt_seq", first).Error; err != nil {
		return fmt.Errorf("reopen frames of %s: %w", turnID, err)
	}
	if err := notify.Send(ctx, b.db, Channel, notifyPayload(b.origin, turnID)); err != nil {
		return fmt.Errorf("announce reopened %s: %w", turnID, err)
	}
	return nil
}

// HasInAttempt tells whether the turn's current attempt (frames after its
// attempt_seq) has a frame of the given type.
func (b *Bus) HasInAttempt(ctx context.Context, turnID, typ string) (bool, error) {
	var n int64
	err := b.db.Q(ctx).Raw(`SELECT count(*) FROM frames WHERE log = ? AND type = ?
		AND seq > (SELECT attempt_seq FROM turns WHERE id = ?)`, turnID, typ, turnID).Scan(&n).Error
	if err != nil {
		return false, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	return n > 0, nil
}

// Last returns the turn's latest frame of the given type, if it has one.
func (b *Bus) Last(ctx context.Context, turnID, typ string) (Frame, bool, error) {
	var rows []storage.Frame
	err := b.db.Q(ctx).Where("log = ? AND type = ?", turnID, typ).Order("seq DESC").Limit(1).Find(&rows).Error
	if err != nil {
		return Frame{}, false, fmt.Errorf("read frames of %s: %w", turnID, err)
	}
	if len(rows) == 0 {
		return Frame{}, false, nil
	}
	return toFrame(rows[0]), true, nil
}

// OnePerAttempt tells the frame types a turn's attempt sends at most one of
// (see HasInAttempt): the unique index frames_once holds them to it.
func OnePerAttempt(typ string) bool {
	switch typ {
	case TypeRefs, TypeProposal, TypeTurnError, TypeError, TypeDone:
		return true
	}
	return false
}

// ErrFirstTaken is what PublishFirst returns in a transaction when a
// racing publisher stored the attempt's frame first: the transaction is
// aborted, and the caller's retry finds the frame.
var ErrFirstTaken = errors.New("stream: the attempt's frame of this type was stored by another publisher")

// PublishFirst publishes a frame of a OnePerAttempt type unless the
// attempt has one, and tells whether it published. Of two calls racing for
// one attempt one stores the frame (the unique index frames_once decides)
// and the other answers false, or ErrFirstTaken in a transaction ctx
// carries. A missing turn is an error, as for Publish.
func (b *Bus) PublishFirst(ctx context.Context, turnID, typ string, data any) (bool, error) {
	var row *storage.Frame
	sent := false
	inTx := b.db.InTxNow(ctx)
	publish := func(ctx context.Context) error {
		var err error
		row, sent, err = b.publishFirst(ctx, turnID, typ, data)
		return err
	}
	var err error
	if b.db.Dialect == storage.Postgres {
		err = publish(ctx) // one statement, publishFirstSQL
	} else {
		err = b.db.InTx(ctx, publish)
	}
	if errors.Is(err, ErrFirstTaken) && !inTx {
		return false, nil // nothing stored: the attempt has its frame
	}
	stored := err
	storage.AfterTx(ctx, func(err error) {
		switch {
		case stored != nil || err != nil:
			b.wake(turnID) // a commit whose answer was lost may have committed
		case sent:
			b.published(row, nil)
		}
	})
	if err != nil {
		return false, err
	}
	return sent, nil
}

// publishFirst stores a frame of a once-per-attempt type in tx unless the
// attempt has one; a unique violation is ErrFirstTaken.
func (b *Bus) publishFirst(ctx context.Context, turnID, typ string, data any) (*storage.Frame, bool, error) {
	if !OnePerAttempt(typ) {
		return nil, false, fmt.Errorf("publish %s frame once: not a frame an attempt sends once", typ)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, false, fmt.Errorf("publish %s frame: %w", typ, err)
	}
	row := &storage.Frame{Log: turnID, Type: typ, Data: string(raw), CreatedAt: frameTime()}
	if b.db.Dialect == storage.Postgres {
		return b.publishFirstPostgres(ctx, row)
	}
	has, err := b.HasInAttempt(ctx, turnID, typ)
	if err != nil || has {
		return nil, false, err
	}
	var attempt int64
	if err := b.db.Q(ctx).Raw("UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? RETURNING frame_seq, attempt_seq", turnID).
		Row().Scan(&row.Seq, &attempt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, false, fmt.Errorf("publish %s frame: no turn %s", typ, turnID)
		}
		return nil, false, fmt.Errorf("publish %s frame to %s: %w", typ, turnID, err)
	}
	row.Attempt = &attempt
	if err := b.db.Q(ctx).Create(row).Error; err != nil {
		if storage.IsUniqueViolation(err) {
			return nil, false, ErrFirstTaken
		}
		return nil, false, fmt.Errorf("publish %s frame to %s: %w", typ, turnID, err)
	}
	return row, true, nil
}

// publishFirstSQL is publishFirst in one statement (as publishSQL): the
// turn is numbered only if its attempt has no frame of the type, and the
// frame stored and announced with it. A racing publisher that stored the
// frame first makes the insert break frames_once, and the whole statement
// with it, so no number is used.
const publishFirstSQL = `WITH numbered AS (
	UPDATE turns SET frame_seq = frame_seq + 1 WHERE id = ? AND NOT EXISTS (
		SELECT 1 FROM frames WHERE frames.log = turns.id AND frames.type = ? AND frames.seq > turns.attempt_seq)
	RETURNING id, frame_seq, attempt_seq
), stored AS (
	INSERT INTO frames (log, seq, type, data, created_at, attempt)
	SELECT id, frame_seq, ?, ?, ?, attempt_seq FROM numbered
	RETURNING seq, attempt
)
SELECT (SELECT seq FROM stored) AS seq, (SELECT attempt FROM stored) AS attempt,
	EXISTS (SELECT 1 FROM turns WHERE id = ?) AS turn,
	(SELECT pg_notify(?, ? || ' ' || seq::text || ?)::text FROM stored) AS notified`

// publishFirstPostgres is publishFirst with publishFirstSQL, which also
// sends the frame's NOTIFY.
func (b *Bus) publishFirstPostgres(ctx context.Context, row *storage.Frame) (*storage.Frame, bool, error) {
	var out struct {
		Seq, Attempt *int64
		Turn         bool
	}
	err := b.db.Q(ctx).Raw(publishFirstSQL, row.Log, row.Type, row.Type, row.Data, row.CreatedAt, row.Log,
		Channel, notifyPayload(b.origin, row.Log), frameSuffix(b.origin, row)).Scan(&out).Error
	switch {
	case storage.IsUniqueViolation(err):
		return nil, false, ErrFirstTaken
	case err != nil:
		return nil, false, fmt.Errorf("publish %s frame to %s: %w", row.Type, row.Log, err)
	case !out.Turn:
		return nil, false, fmt.Errorf("publish %s frame: no turn %s", row.Type, row.Log)
	case out.Seq == nil:
		return nil, false, nil // the attempt has its frame
	}
	row.Seq, row.Attempt = *out.Seq, out.Attempt
	return row, true, nil
}
