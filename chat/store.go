package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/storage"
	"hub/stream"
	"hub/workspace"
)

// Store reads and writes the assistant's records. Its methods run in the
// transaction their context carries (storage.DB.InTx), so a caller joins
// its writes to another store's by calling them inside one.
type Store struct {
	db   *storage.DB
	now  func() time.Time
	work *stream.Bus // the persons' work logs (workLog)
}

// NewStore returns a Store over db that keeps the persons' work logs on
// frames, the process's one Bus.
func NewStore(db *storage.DB, frames *stream.Bus) *Store {
	return &Store{db: db, now: func() time.Time { return time.Now().UTC() }, work: frames}
}

func (s *Store) q(ctx context.Context) *gorm.DB { return s.db.Q(ctx) }

// Conversation is one chat of a person in a space.
type Conversation struct {
	ID        string
	SpaceID   string
	PersonID  string
	AgentID   string // the agent whose conversation it is; "": the person's own
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

func toConversation(r storage.Conversation) Conversation {
	return Conversation{ID: r.ID, SpaceID: r.SpaceID, PersonID: r.PersonID, AgentID: r.AgentID, Title: r.Title, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// CreateConversation starts a conversation. The caller has checked the
// person may open the space.
func (s *Store) CreateConversation(ctx context.Context, personID, spaceID, title, agentID string) (Conversation, error) {
	r := storage.Conversation{ID: storage.NewID("conv"), SpaceID: spaceID, PersonID: personID, AgentID: agentID, Title: title}
	if err := s.q(ctx).Create(&r).Error; err != nil {
		return Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	return toConversation(r), nil
}

// GetConversation returns a conversation of the person in a space they can
// open now; any other is not found.
func (s *Store) GetConversation(ctx context.Context, personID, id string) (Conversation, error) {
	var row storage.Conversation
	err := s.q(ctx).Table("conversations").Where("conversations.id = ? AND conversations.person_id = ?", id, personID).
		Where(memberOf("conversations.space_id", personID)).Take(&row).Error
	if err := found(err, "conversation", id); err != nil {
		return Conversation{}, err
	}
	return toConversation(row), nil
}

// RenameConversation sets the title (checked by the caller) of a
// conversation GetConversation finds. Its updatedAt, which orders the list
// by activity, stays.
func (s *Store) RenameConversation(ctx context.Context, personID, id, title string) (Conversation, error) {
	res := s.q(ctx).Model(&storage.Conversation{}).Where("id = ? AND person_id = ?", id, personID).
		Where(memberOf("conversations.space_id", personID)).UpdateColumn("title", title)
	if res.Error != nil {
		return Conversation{}, fmt.Errorf("rename conversation %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return Conversation{}, &workspace.NotFoundError{Kind: "conversation", ID: id}
	}
	return s.GetConversation(ctx, personID, id)
}

// MaxFirstMessageTitle is how long, in characters, a title taken from a
// conversation's first message may be.
const MaxFirstMessageTitle = 80

// TitleFromMessage is the title an untitled conversation takes from its
// first message: the text on one line, cut to MaxFirstMessageTitle at a
// word's end where one is near, with "…" when cut.
func TitleFromMessage(text string) string {
	clean := strings.Map(func(r rune) rune {
		if _, bad := workspace.LineControl(string(r)); bad {
			return ' '
		}
		return r
	}, text)
	t := strings.Join(strings.Fields(clean), " ")
	rs := []rune(t)
	if len(rs) <= MaxFirstMessageTitle {
		return t
	}
	cut := string(rs[:MaxFirstMessageTitle-1])
	if i := strings.LastIndexByte(cut, ' '); i >= len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// ListConversations returns the person's conversations in a space, most
// recently active first; none in a space they cannot open.
func (s *Store) ListConversations(ctx context.Context, personID, spaceID string) ([]Conversation, error) {
	var rows []storage.Conversation
	err := s.q(ctx).Where("person_id = ? AND space_id = ?", personID, spaceID).Where(memberOf("conversations.space_id", personID)).
		Order("updated_at DESC, id").Limit(200).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	return mapped(rows, toConversation), nil
}

// Deleted says what a deleted conversation left running (unfinished turns,
// replies with held writes), so the caller can end their workflows.
type Deleted struct {
	RunningTurns []string
	HeldReplies  []string
	AgentID      string // the conversation's agent: its turns are that kind of work
}

// DeleteConversation removes a conversation with its messages, turns, tool
// calls and receipts.
func (s *Store) DeleteConversation(ctx context.Context, personID, id string) (Deleted, error) {
	var d Deleted
	conv, err := s.GetConversation(ctx, personID, id)
	if err != nil {
		return d, err
	}
	d.AgentID = conv.AgentID
	err = s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		if err := tx.Model(&storage.Turn{}).Where("conversation_id = ? AND finished_at IS NULL", id).Pluck("id", &d.RunningTurns).Error; err != nil {
			return err
		}
		err := tx.Model(&storage.Turn{}).Distinct("reply_message_id").
			Where("conversation_id = ? AND id IN (?)", id, tx.Model(&storage.ToolCall{}).Select("turn_id").Where("held_for <> ''")).
			Pluck("reply_message_id", &d.HeldReplies).Error
		if err != nil {
			return err
		}
		return tx.Delete(&storage.Conversation{}, "id = ?", id).Error
	})
	if err != nil {
		return Deleted{}, fmt.Errorf("delete conversation %s: %w", id, err)
	}
	return d, nil
}

// found answers a read's err: not found as workspace.NotFoundError, any
// other wrapped as "get kind id".
func found(err error, kind, id string) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return &workspace.NotFoundError{Kind: kind, ID: id}
	}
	if err != nil {
		return fmt.Errorf("get %s %s: %w", kind, id, err)
	}
	return nil
}

// memberOf is the condition that the person is a member, now, of the space
// in column spaceCol: every read checks access in its own query.
func memberOf(spaceCol, personID string) clause.Expr {
	return gorm.Expr("EXISTS (SELECT 1 FROM memberships WHERE memberships.space_id = "+spaceCol+" AND memberships.person_id = ?)", personID)
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only this package's types, which always encode
	}
	return string(b)
}

// mapped is f of each element of s, never nil.
func mapped[T, U any](s []T, f func(T) U) []U {
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

func unmarshal[T any](s string) T {
	var v T
	if s != "" {
		_ = json.Unmarshal([]byte(s), &v) // columns are written by marshal; a bad one reads as empty
	}
	return v
}
