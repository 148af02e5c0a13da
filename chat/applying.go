package chat

import (
	"context"
	"fmt"
	"time"

	"hub/storage"
)

// applyingFresh bounds how long a running Apply shows as working without
// answering: a terminated one never clears its mark. No Apply runs this long.
const applyingFresh = 15 * time.Minute

// MarkApplying records that the Apply of a reply started running (on) or
// answered (off), and announces it when that changed what it shows.
func (s *Store) MarkApplying(ctx context.Context, messageID string, on bool) error {
	var since *time.Time
	cond, args := "applying_since IS NOT NULL", []any{messageID}
	if on {
		// A stale mark (an Apply that never answered) is renewed too.
		now := s.now()
		since, cond = &now, "(applying_since IS NULL OR applying_since < ?)"
		args = append(args, now.Add(-applyingFresh))
	}
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		var t storage.Turn
		res := tx.Model(&t).Where("reply_message_id = ? AND "+cond, args...).Update("applying_since", since)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		if err := tx.Select("person_id").Take(&t, "reply_message_id = ?", messageID).Error; err != nil {
			return err
		}
		return s.announce(ctx, t.PersonID, func() (Work, error) { return s.applyWork(ctx, messageID) })
	})
	if err != nil {
		return fmt.Errorf("mark apply of %s running=%v: %w", messageID, on, err)
	}
	return nil
}

// applying tells whether an Apply marked running at since still counts.
func (s *Store) applying(since *time.Time) bool {
	return since != nil && s.now().Sub(*since) < applyingFresh
}
