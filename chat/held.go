package chat

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"hub/storage"
)

// HeldCall is a write waiting for the person's Apply, with where it came
// from.
type HeldCall struct {
	ToolCall
	ConversationID string
	MessageID      string // the reply that proposed it
	SpaceID        string
	CreatedAt      time.Time
	Applying       bool // the reply's Apply is running now
}

type heldRow struct {
	storage.ToolCall
	ConversationID string
	ReplyMessageID string
	TurnSpaceID    string
	ApplyingSince  *time.Time
}

// HeldCalls lists the person's held calls waiting in a list (HeldFor*),
// oldest first, only where the person can open both the conversation's
// space and the call's.
func (s *Store) HeldCalls(ctx context.Context, personID, heldFor string) ([]HeldCall, error) {
	var rows []heldRow
	err := s.q(ctx).Table("tool_calls").
		Select("tool_calls.*, turns.conversation_id, turns.reply_message_id, turns.space_id AS turn_space_id, turns.applying_since").
		Joins("JOIN turns ON turns.id = tool_calls.turn_id").
		Where("turns.person_id = ? AND tool_calls.status = ? AND tool_calls.held_for = ?", personID, CallHeld, heldFor).
		Where(memberOf("turns.space_id", personID)).
		Where(memberOf("COALESCE(NULLIF(tool_calls.space_id, ''), turns.space_id)", personID)).
		Order("tool_calls.created_at, tool_calls.id").Limit(500).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("held calls: %w", err)
	}
	return mapped(rows, func(r heldRow) HeldCall {
		return HeldCall{ToolCall: toToolCall(r.ToolCall), ConversationID: r.ConversationID,
			MessageID: r.ReplyMessageID, SpaceID: cmp.Or(r.SpaceID, r.TurnSpaceID), CreatedAt: r.ToolCall.CreatedAt,
			Applying: s.applying(r.ApplyingSince)}
	}), nil
}
