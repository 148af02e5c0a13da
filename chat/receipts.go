package chat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/storage"
	"hub/workspace"
)

// Receipt statuses, as docs/api.md names them, plus "sending": an outside write
// on its way, which a later Apply reports as unknown.
const (
	ReceiptSucceeded   = "succeeded"
	ReceiptFailed      = "failed"
	ReceiptUnattempted = "unattempted"
	ReceiptUnknown     = "unknown"
	ReceiptSending     = "sending"
)

// CallApplied is the status of a held call once Apply ran it.
const CallApplied = "applied"

// Receipt is what became of one applied call.
type Receipt struct {
	CallID       string
	Tool         string
	SpaceID      string
	Status       string
	Summary      string
	ErrorCode    string
	ErrorMessage string
	UndoGroupID  string
	Attempts     int
	Refs         []workspace.Ref // the records an applied call changed (its refs too)
}

// Proposal returns the calls a reply proposed (held, or already applied),
// for the person who owns the conversation; anything else is not found.
func (s *Store) Proposal(ctx context.Context, personID, conversationID, messageID string) ([]HeldCall, error) {
	if _, err := s.GetConversation(ctx, personID, conversationID); err != nil {
		return nil, err
	}
	var turn storage.Turn
	err := s.q(ctx).Where("conversation_id = ? AND reply_message_id = ?", conversationID, messageID).Take(&turn).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, &workspace.NotFoundError{Kind: "message", ID: messageID, Path: "/messageId"}
	}
	if err != nil {
		return nil, fmt.Errorf("proposal %s: %w", messageID, err)
	}
	var rows []storage.ToolCall
	if err := s.q(ctx).Where("turn_id = ? AND held_for <> ''", turn.ID).Order("step, idx").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("proposal %s: %w", messageID, err)
	}
	return mapped(rows, func(r storage.ToolCall) HeldCall {
		return HeldCall{ToolCall: toToolCall(r), ConversationID: conversationID, MessageID: messageID,
			SpaceID: cmp.Or(r.SpaceID, turn.SpaceID), CreatedAt: r.CreatedAt}
	}), nil
}

// Receipts returns the receipts of a message's applied calls by call id.
func (s *Store) Receipts(ctx context.Context, messageID string) (map[string]Receipt, error) {
	var rows []storage.Receipt
	if err := s.q(ctx).Where("message_id = ?", messageID).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("receipts of %s: %w", messageID, err)
	}
	out := make(map[string]Receipt, len(rows))
	for _, r := range rows {
		out[r.CallID] = toReceipt(r)
	}
	return out, nil
}

func toReceipt(r storage.Receipt) Receipt {
	return Receipt{CallID: r.CallID, SpaceID: r.SpaceID, Status: r.Status, Summary: r.Summary,
		ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, UndoGroupID: r.UndoGroupID, Attempts: r.Attempts,
		Refs: unmarshal[[]workspace.Ref](r.Refs)}
}

// SaveReceipt writes a call's receipt (replacing an earlier one) and, when
// it succeeded, marks the call applied with the records it changed as its
// refs. Run it in the transaction of the write it reports.
func (s *Store) SaveReceipt(ctx context.Context, messageID string, r Receipt) error {
	row := storage.Receipt{CallID: r.CallID, MessageID: messageID, SpaceID: r.SpaceID, Status: r.Status, Summary: r.Summary,
		ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, UndoGroupID: r.UndoGroupID, Attempts: r.Attempts,
		Refs: marshal(nonNil(r.Refs)), UpdatedAt: s.now()}
	err := s.q(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "call_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"status", "summary", "error_code", "error_message", "undo_group_id", "attempts", "refs", "updated_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("save receipt %s: %w", r.CallID, err)
	}
	if r.Status == ReceiptSucceeded {
		if err := s.q(ctx).Model(&storage.ToolCall{}).Where("id = ?", r.CallID).
			Updates(map[string]any{"status": CallApplied, "undo_group_id": r.UndoGroupID, "refs": marshal(nonNil(r.Refs)),
				"updated_at": s.now()}).Error; err != nil {
			return fmt.Errorf("mark %s applied: %w", r.CallID, err)
		}
	}
	return nil
}

// CallExpired is the status of a held call nobody applied in time.
const CallExpired = "expired"

// ExpireHeld marks held calls proposed before the cutoff as expired, and
// announces each reply whose writes expired.
func (s *Store) ExpireHeld(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		var replies []struct{ ReplyMessageID, PersonID string }
		err := tx.Table("tool_calls").Distinct("turns.reply_message_id", "turns.person_id").
			Joins("JOIN turns ON turns.id = tool_calls.turn_id").
			Where("tool_calls.status = ? AND tool_calls.held_for = ? AND tool_calls.created_at < ?", CallHeld, HeldForApply, before.UTC()).
			Scan(&replies).Error
		if err != nil {
			return err
		}
		res := tx.Model(&storage.ToolCall{}).Where("status = ? AND created_at < ?", CallHeld, before.UTC()).
			Updates(map[string]any{"status": CallExpired, "updated_at": s.now()})
		if res.Error != nil {
			return res.Error
		}
		n = res.RowsAffected
		for _, r := range replies {
			err := s.announce(ctx, r.PersonID, func() (Work, error) { return s.applyWork(ctx, r.ReplyMessageID) })
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("expire held calls: %w", err)
	}
	return n, nil
}

// AddReplyRefs adds to a reply's refs the records its applied calls
// changed (those it has already are kept as they are), at most limit in
// all: after Apply, the reply names what was done as a reply whose writes
// ran at once does.
func (s *Store) AddReplyRefs(ctx context.Context, messageID string, refs []workspace.Ref, limit int) error {
	if len(refs) == 0 {
		return nil
	}
	return s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		var m storage.Message
		if err := tx.Select("id", "refs").Take(&m, "id = ?", messageID).Error; err != nil {
			return fmt.Errorf("refs of %s: %w", messageID, err)
		}
		have := unmarshal[[]workspace.Ref](m.Refs)
		seen := map[string]bool{}
		for _, r := range have {
			seen[r.Kind+"/"+r.ID] = true
		}
		added := false
		for _, r := range refs {
			if k := r.Kind + "/" + r.ID; !seen[k] && r.ID != "" && len(have) < limit {
				seen[k] = true
				have = append(have, r)
				added = true
			}
		}
		if !added {
			return nil
		}
		if err := tx.Model(&storage.Message{}).Where("id = ?", messageID).Update("refs", marshal(have)).Error; err != nil {
			return fmt.Errorf("add refs to %s: %w", messageID, err)
		}
		return nil
	})
}
