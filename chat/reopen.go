package chat

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"hub/storage"
	"hub/workspace"
)

// ClaimTurn makes runID (a Temporal run id) the run that owns the turn,
// before the run writes anything; the first run to ask takes it. A run
// started by an operator's reset finds the turn owned by another run (or
// ended) and reopens it in one transaction: the turn and its reply run
// again with no ending, usage or text; steps after keep (-1: all) go, with
// their calls that never committed (pending or held); committed calls keep
// their outcome; reopen does the stream's part (stream.Bus.Reopen). It
// reports whether it reopened the turn. While another turn of the
// conversation runs, or once the turn was retried, it is
// workspace.ErrConflict.
func (s *Store) ClaimTurn(ctx context.Context, turnID, runID string, keep int, reopen func(ctx context.Context) error) (bool, error) {
	if err := s.Claim(ctx, turnID, runID); !errors.Is(err, ErrClaimedMeanwhile) {
		return false, err
	}
	reopened := false
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		var r storage.Turn
		if err := found(tx.Take(&r, "id = ?", turnID).Error, "turn", turnID); err != nil {
			return err
		}
		switch {
		case r.RunID == runID:
			return nil
		case r.RunID == "" && r.FinishedAt == nil: // never reopened
			return tx.Model(&storage.Turn{}).Where("id = ? AND run_id = ''", turnID).Update("run_id", runID).Error
		}
		var retry storage.Turn
		if err := tx.Select("id").Where("retry_of = ?", turnID).Limit(1).Find(&retry).Error; err != nil {
			return err
		}
		if retry.ID != "" {
			return fmt.Errorf("turn %s was retried as %s, which answers its message; reset that one instead: %w", turnID, retry.ID, workspace.ErrConflict)
		}
		now := s.now()
		res := tx.Model(&storage.Turn{}).Where("id = ? AND run_id = ?", turnID, r.RunID).Updates(map[string]any{
			"run_id": runID, "status": string(StatusWorking), "error_code": "", "error_message": "",
			"input_tokens": 0, "output_tokens": 0, "finished_at": nil, "updated_at": now,
		})
		if errors.Is(res.Error, gorm.ErrDuplicatedKey) {
			return fmt.Errorf("another turn of conversation %s is running; reset turn %s once it has ended: %w", r.ConversationID, turnID, workspace.ErrConflict)
		}
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error // 0: a call of the same run reopened it just now
		}
		if err := tx.Model(&storage.Message{}).Where("id = ?", r.ReplyMessageID).Updates(map[string]any{
			"text": "", "status": MessageRunning, "refs": "[]", "input_tokens": 0, "output_tokens": 0,
			"error_code": "", "error_message": "", "updated_at": now,
		}).Error; err != nil {
			return err
		}
		if err := tx.Where("turn_id = ? AND step > ?", turnID, keep).Delete(&storage.TurnStep{}).Error; err != nil {
			return err
		}
		if err := tx.Where("turn_id = ? AND step > ? AND status IN ?", turnID, keep, []string{CallPending, CallHeld}).
			Delete(&storage.ToolCall{}).Error; err != nil {
			return err
		}
		if err := reopen(ctx); err != nil {
			return err
		}
		reopened = true
		return s.announceTurn(ctx, turnID)
	})
	if err != nil {
		return false, fmt.Errorf("claim turn %s: %w", turnID, err)
	}
	return reopened, nil
}
