package chat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"hub/storage"
	"hub/workspace"
)

// HistoryLimit is how many earlier messages a turn shows the model: the
// conversation's last 12, as the person and the assistant wrote them.
const HistoryLimit = 12

// Message roles: the person's message and the assistant's reply.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// MessageRunning is the status of a reply whose turn has not ended. A
// person's message is saved done; a reply takes its turn's final Status
// (done, stopped or error) when the turn ends.
const MessageRunning = "running"

// Message is one message with the tool calls of its turn (for replies).
type Message struct {
	ID           string
	TurnID       string
	Role         string
	Text         string
	Status       string
	Mentions     []workspace.Ref
	Refs         []workspace.Ref
	PageContext  string
	ToolCalls    []ToolCall
	Usage        Usage
	ErrorCode    string
	ErrorMessage string
	CreatedAt    time.Time
}

func toMessage(r storage.Message) Message {
	return Message{ID: r.ID, TurnID: r.TurnID, Role: r.Role, Text: r.Text, Status: r.Status,
		Mentions: unmarshal[[]workspace.Ref](r.Mentions), Refs: unmarshal[[]workspace.Ref](r.Refs), PageContext: r.PageContext,
		Usage: Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}, ErrorCode: r.ErrorCode,
		ErrorMessage: r.ErrorMessage, CreatedAt: r.CreatedAt}
}

// Messages returns a conversation of the person with every message, oldest
// first; a reply carries its turn's tool calls. What a turn did in another
// space the person has left since is hidden (hideLeftSpaces).
func (s *Store) Messages(ctx context.Context, personID, conversationID string) ([]Message, error) {
	if _, err := s.GetConversation(ctx, personID, conversationID); err != nil {
		return nil, err
	}
	var rows []storage.Message
	if err := s.q(ctx).Where("conversation_id = ?", conversationID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	var calls []storage.ToolCall
	err := s.q(ctx).Where("turn_id IN (?)", s.q(ctx).Model(&storage.Turn{}).Select("id").Where("conversation_id = ?", conversationID)).
		Order("step, idx").Find(&calls).Error
	if err != nil {
		return nil, fmt.Errorf("list tool calls: %w", err)
	}
	var receipts []storage.Receipt
	err = s.q(ctx).Where("message_id IN (?)", s.q(ctx).Model(&storage.Message{}).Select("id").
		Where("conversation_id = ? AND role = ?", conversationID, RoleAssistant)).Find(&receipts).Error
	if err != nil {
		return nil, fmt.Errorf("list receipts: %w", err)
	}
	out := mapped(rows, toMessage)
	attachCalls(out, calls, receipts)
	if err := s.hideLeftSpaces(ctx, personID, out); err != nil {
		return nil, err
	}
	return out, nil
}

// hideLeftSpaces takes out of msgs what names records of spaces other than
// the conversation's that the person can no longer open: the refs and
// mentions of their records, and their calls' summary, input, arguments,
// result, refs and receipt's summary and refs.
func (s *Store) hideLeftSpaces(ctx context.Context, personID string, msgs []Message) error {
	var others []string
	for _, m := range msgs {
		for _, r := range slices.Concat(m.Refs, m.Mentions) {
			if r.SpaceID != "" && !slices.Contains(others, r.SpaceID) {
				others = append(others, r.SpaceID)
			}
		}
		for _, c := range m.ToolCalls {
			if c.SpaceID != "" && !slices.Contains(others, c.SpaceID) {
				others = append(others, c.SpaceID)
			}
		}
	}
	if len(others) == 0 {
		return nil
	}
	var open []string
	if err := s.q(ctx).Model(&storage.Membership{}).Where("person_id = ? AND space_id IN ?", personID, others).
		Pluck("space_id", &open).Error; err != nil {
		return fmt.Errorf("spaces of messages: %w", err)
	}
	left := func(spaceID string) bool { return spaceID != "" && !slices.Contains(open, spaceID) }
	for i := range msgs {
		msgs[i].Refs = slices.DeleteFunc(msgs[i].Refs, func(r workspace.Ref) bool { return left(r.SpaceID) })
		msgs[i].Mentions = slices.DeleteFunc(msgs[i].Mentions, func(r workspace.Ref) bool { return left(r.SpaceID) })
		for j := range msgs[i].ToolCalls {
			c := &msgs[i].ToolCalls[j]
			if left(c.SpaceID) {
				c.Summary, c.Input, c.Arguments, c.Result, c.Refs = "", "", "", "", nil
				if c.Receipt != nil {
					r := *c.Receipt
					r.Summary, r.Refs = "", nil
					c.Receipt = &r
				}
			}
		}
	}
	return nil
}

// GetMessage returns one message by id.
func (s *Store) GetMessage(ctx context.Context, id string) (Message, error) {
	var r storage.Message
	if err := found(s.q(ctx).Take(&r, "id = ?", id).Error, "message", id); err != nil {
		return Message{}, err
	}
	return toMessage(r), nil
}

// History returns the messages a turn shows the model before the person's
// new one: at most HistoryLimit, oldest first, finished ones only, and none
// from a turn that ended in error (an error is never an answer).
func (s *Store) History(ctx context.Context, turn Turn) ([]Message, error) {
	var user storage.Message
	if err := s.q(ctx).Take(&user, "id = ?", turn.UserMessageID).Error; err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return s.HistoryBefore(ctx, turn, toMessage(user))
}

// HistoryBefore is History for a caller that has read the turn's user
// message already.
func (s *Store) HistoryBefore(ctx context.Context, turn Turn, user Message) ([]Message, error) {
	var rows []storage.Message
	err := s.q(ctx).Table("messages").Select("messages.*").
		Joins("JOIN turns ON turns.id = messages.turn_id").
		Where("messages.conversation_id = ? AND messages.id <> ? AND messages.created_at <= ?", turn.ConversationID, user.ID, user.CreatedAt).
		Where("turns.id <> ? AND turns.status IN ?", turn.ID, []string{string(StatusDone), string(StatusStopped)}).
		Where("messages.status IN ?", []string{string(StatusDone), string(StatusStopped)}).
		Where("messages.role = 'user' OR messages.text <> ''").
		Order("messages.created_at DESC, messages.id DESC").Limit(HistoryLimit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := make([]Message, len(rows))
	var turnIDs []string
	for i, r := range rows {
		out[len(rows)-1-i] = toMessage(r)
		if r.Role == RoleAssistant {
			turnIDs = append(turnIDs, r.TurnID)
		}
	}
	if len(turnIDs) == 0 {
		return out, nil
	}
	// Replies carry their calls, so a later request can name the records an
	// earlier write touched, and proposed calls their receipts.
	var calls []storage.ToolCall
	if err := s.q(ctx).Where("turn_id IN ?", turnIDs).Order("step, idx").Find(&calls).Error; err != nil {
		return nil, fmt.Errorf("history tool calls: %w", err)
	}
	var proposed []string
	for _, c := range calls {
		if c.HeldFor != "" {
			proposed = append(proposed, c.ID)
		}
	}
	var receipts []storage.Receipt
	if len(proposed) > 0 {
		if err := s.q(ctx).Where("call_id IN ?", proposed).Find(&receipts).Error; err != nil {
			return nil, fmt.Errorf("history receipts: %w", err)
		}
	}
	attachCalls(out, calls, receipts)
	return out, nil
}

// attachCalls gives each reply of msgs its turn's calls, with their receipts.
func attachCalls(msgs []Message, calls []storage.ToolCall, receipts []storage.Receipt) {
	byCall := map[string]*Receipt{}
	for _, r := range receipts {
		rc := toReceipt(r)
		byCall[r.CallID] = &rc
	}
	byTurn := map[string][]ToolCall{}
	for _, c := range calls {
		tc := toToolCall(c)
		tc.Receipt = byCall[c.ID]
		byTurn[c.TurnID] = append(byTurn[c.TurnID], tc)
	}
	for i := range msgs {
		if msgs[i].Role == RoleAssistant {
			msgs[i].ToolCalls = byTurn[msgs[i].TurnID]
		}
	}
}
