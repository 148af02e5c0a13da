package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"hub/storage"
	"hub/workspace"
)

// Status is where a turn is. The first five are running states the top bar
// shows; the last three are final.
type Status string

// Turn statuses, as docs/api.md names them.
const (
	StatusQueued   Status = "queued"
	StatusWorking  Status = "working"
	StatusWaiting  Status = "waiting"
	StatusPaused   Status = "paused"
	StatusStopping Status = "stopping"
	StatusStopped  Status = "stopped"
	StatusDone     Status = "done"
	StatusError    Status = "error"
)

// Final tells whether the turn has ended.
func (s Status) Final() bool { return s == StatusStopped || s == StatusDone || s == StatusError }

// Turn is one run of the assistant for one message of the person.
type Turn struct {
	ID             string
	ConversationID string
	SpaceID        string
	PersonID       string
	UserMessageID  string
	ReplyMessageID string
	RetryOf        string
	// Spaces are the other spaces the turn may act in besides its
	// conversation's (SpaceID): a tool call names one with its space
	// argument.
	Spaces       []string
	Status       Status
	Step         int
	ErrorCode    string
	ErrorMessage string
	// Model is the catalog model the turn runs (chosen when it started:
	// the turn's, the person's default or the catalog's) and Effort its
	// reasoning effort ("" none). A retry runs with the same.
	Model      string
	Effort     string
	Usage      Usage
	CreatedAt  time.Time
	FinishedAt *time.Time
	// RunID is the Temporal run that owns the turn ("" before its first
	// activity; see ClaimTurn).
	RunID string
	// Interrupts counts the Stops and Pauses the api signalled
	// (RecordInterrupt).
	Interrupts int
}

// Usage counts tokens.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

func toTurn(r storage.Turn) Turn {
	return Turn{ID: r.ID, ConversationID: r.ConversationID, SpaceID: r.SpaceID, PersonID: r.PersonID,
		UserMessageID: r.UserMessageID, ReplyMessageID: r.ReplyMessageID, RetryOf: r.RetryOf,
		Spaces: nonNil(unmarshal[[]string](r.Spaces)), Status: Status(r.Status), Step: r.Step, Interrupts: r.Interrupts, ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, Model: r.Model, Effort: r.Effort,
		Usage: Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt,
		RunID: r.RunID}
}

// NewTurn is a person's message that starts a turn.
type NewTurn struct {
	ConversationID string
	PersonID       string
	Text           string
	Mentions       []workspace.Ref
	PageContext    string // JSON the client sent as "context", or ""
	// Spaces are other spaces of the person the turn may act in; the
	// caller has checked the person can open each.
	Spaces []string
	// Model and Effort are what the turn runs with, checked by the caller
	// (workspace.Service.TurnModel).
	Model, Effort string
	// Conversation is the conversation as the caller read it
	// (GetConversation, which checked the person's access), so StartTurn
	// does not read it again; nil: StartTurn reads it.
	Conversation *Conversation
}

// StartTurn saves the person's message, an empty running reply and a queued
// turn, and announces the turn in the person's activity stream, in one
// transaction. A conversation with an unfinished turn answers
// workspace.ErrConflict (a unique index decides, so two racing requests cannot
// both start one). The person's access to the conversation is checked in
// the transaction, by the write that marks the conversation active: one
// removed from its space since the caller read it starts nothing. Called
// inside a transaction (storage.DB.InTx), it runs in that one: the turn's
// stream token (workspace.Service.CreateStreamToken) commits with the turn
// or not at all.
func (s *Store) StartTurn(ctx context.Context, in NewTurn) (Turn, error) {
	var conv Conversation
	if in.Conversation != nil {
		conv = *in.Conversation
	} else {
		var err error
		if conv, err = s.GetConversation(ctx, in.PersonID, in.ConversationID); err != nil {
			return Turn{}, err
		}
	}
	if conv.PersonID != in.PersonID {
		return Turn{}, &workspace.NotFoundError{Kind: "conversation", ID: conv.ID}
	}
	turnID := storage.NewID("turn")
	user := storage.Message{ID: storage.NewID("msg"), ConversationID: conv.ID, TurnID: turnID, Role: RoleUser,
		Text: in.Text, Status: string(StatusDone), Mentions: marshal(nonNil(in.Mentions)), PageContext: in.PageContext, Refs: "[]"}
	var out Turn
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		// An untitled conversation takes its title from its first message.
		if err := s.touchConversation(ctx, conv, TitleFromMessage(in.Text)); err != nil {
			return err
		}
		if err := tx.Create(&user).Error; err != nil {
			return err
		}
		t, err := s.createTurn(ctx, conv, user.ID, turnID, "", in.Spaces, in.Model, in.Effort)
		if err != nil {
			return err
		}
		out = t
		// The top bar shows the queued turn before its workflow can move
		// it on, from what this transaction wrote.
		return s.announceWork(ctx, t.PersonID, Work{Kind: WorkTurn, ID: t.ID, ConversationID: t.ConversationID,
			Status: StatusQueued, Title: workTitle(conv.Title, in.Text), StartedAt: t.CreatedAt})
	})
	if err != nil {
		return Turn{}, turnStartError(err)
	}
	return out, nil
}

// RetryTurn runs the person's message of a failed turn again as a new turn.
// Only a turn that ended in error can be retried. Like StartTurn, it runs
// in the transaction ctx carries, if any.
func (s *Store) RetryTurn(ctx context.Context, personID, turnID string) (Turn, error) {
	old, err := s.GetTurnFor(ctx, personID, turnID)
	if err != nil {
		return Turn{}, err
	}
	if old.Status != StatusError {
		return Turn{}, fmt.Errorf("only a turn that ended in error can be retried; this one is %s: %w", old.Status, workspace.ErrConflict)
	}
	// The turn's conversation: GetTurnFor checked the person's access, and
	// the retry's transaction checks it again as it writes.
	conv := Conversation{ID: old.ConversationID, SpaceID: old.SpaceID, PersonID: old.PersonID}
	var out Turn
	err = s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		if err := s.touchConversation(ctx, conv, ""); err != nil {
			return err
		}
		newID := storage.NewID("turn")
		// The message now belongs to the new turn, so history (which leaves
		// out error turns) shows it with the retry's answer. A message that
		// already moved was retried before: retrying the old turn again would
		// take the message away from that retry's answer.
		res := tx.Model(&storage.Message{}).Where("id = ? AND turn_id = ?", old.UserMessageID, old.ID).Update("turn_id", newID)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errAlreadyRetried
		}
		t, err := s.createTurn(ctx, conv, old.UserMessageID, newID, old.ID, old.Spaces, old.Model, old.Effort)
		if err != nil {
			return err
		}
		if err := s.placeRetryReply(ctx, old.ReplyMessageID, t.ReplyMessageID); err != nil {
			return err
		}
		out = t
		err = s.announceTurn(ctx, t.ID) // queued, as StartTurn's
		return err
	})
	if err != nil {
		return Turn{}, turnStartError(err)
	}
	return out, nil
}

func (s *Store) createTurn(ctx context.Context, conv Conversation, userMessageID, turnID, retryOf string, spaces []string, model, effort string) (Turn, error) {
	reply := storage.Message{ID: storage.NewID("msg"), ConversationID: conv.ID, TurnID: turnID, Role: RoleAssistant,
		Status: MessageRunning, Mentions: "[]", Refs: "[]"}
	if err := s.q(ctx).Create(&reply).Error; err != nil {
		return Turn{}, err
	}
	t := storage.Turn{ID: turnID, ConversationID: conv.ID, SpaceID: conv.SpaceID, PersonID: conv.PersonID,
		UserMessageID: userMessageID, ReplyMessageID: reply.ID, RetryOf: retryOf, Status: string(StatusQueued),
		OfferedTools: "[]", AddedTools: "[]", HistoryIDs: "[]", Spaces: marshal(nonNil(spaces)), Model: model, Effort: effort,
		// As stored on Postgres (microseconds): the queued announcement is
		// built from this row, the later ones read it back.
		CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if err := s.q(ctx).Create(&t).Error; err != nil {
		return Turn{}, err
	}
	return toTurn(t), nil
}

// placeRetryReply puts a retry's reply right after the reply of the turn
// it retries, which follows the person's message: a conversation lists
// (and the model's history reads) its messages by creation time, and a
// retry made after later turns would otherwise answer below them. One
// microsecond (the finest time Postgres keeps) after the failed reply,
// so a retry of that retry follows it in turn; messages made later in
// another request are milliseconds apart.
func (s *Store) placeRetryReply(ctx context.Context, failedReplyID, replyID string) error {
	var failed storage.Message
	if err := s.q(ctx).Select("created_at").Take(&failed, "id = ?", failedReplyID).Error; err != nil {
		return fmt.Errorf("read the retried reply: %w", err)
	}
	at := failed.CreatedAt.UTC().Truncate(time.Microsecond).Add(time.Microsecond)
	if err := s.q(ctx).Model(&storage.Message{}).Where("id = ?", replyID).UpdateColumn("created_at", at).Error; err != nil {
		return fmt.Errorf("place the retry's reply: %w", err)
	}
	return nil
}

// touchConversation marks the person's conversation active, if they can
// open its space now: the first write of a turn's start, which checks
// the access the caller read in the same statement (and locks the
// conversation's row). Another person's conversation, one deleted, and
// one in a space the person has left, are not found. When the caller read
// the conversation without a title, title ("" none) becomes its title in
// the same statement, unless one was set since.
func (s *Store) touchConversation(ctx context.Context, conv Conversation, title string) error {
	set := map[string]any{"updated_at": s.now()}
	if conv.Title == "" && title != "" {
		set["title"] = gorm.Expr("CASE WHEN title = '' THEN ? ELSE title END", title)
	}
	res := s.q(ctx).Model(&storage.Conversation{}).Where("id = ? AND person_id = ?", conv.ID, conv.PersonID).
		Where(memberOf("conversations.space_id", conv.PersonID)).Updates(set)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return &workspace.NotFoundError{Kind: "conversation", ID: conv.ID}
	}
	return nil
}

// errAlreadyRetried refuses a second retry of the same failed turn.
var errAlreadyRetried = fmt.Errorf("this turn was already retried; retry the newest turn instead: %w", workspace.ErrConflict)

func turnStartError(err error) error {
	if errors.Is(err, errAlreadyRetried) {
		return err
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return fmt.Errorf("a turn is already running in this conversation; stop it or wait for it to finish: %w", workspace.ErrConflict)
	}
	if errors.Is(err, workspace.ErrNotFound) {
		return err
	}
	return fmt.Errorf("start turn: %w", err)
}

// runRecordColumns are the turn row's run record: most of its bytes,
// which the person's reads of a turn (GetTurnFor) leave unread.
var runRecordColumns = []string{"instructions", "context", "offered_tools", "added_tools", "offer_why", "history_ids"}

// GetTurn returns a turn by id, whoever owns it, with its run record: the
// worker's read (and an operator's).
func (s *Store) GetTurn(ctx context.Context, id string) (Turn, RunRecord, error) {
	var r storage.Turn
	err := s.q(ctx).Take(&r, "id = ?", id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Turn{}, RunRecord{}, &workspace.NotFoundError{Kind: "turn", ID: id}
	}
	if err != nil {
		return Turn{}, RunRecord{}, fmt.Errorf("get turn %s: %w", id, err)
	}
	return toTurn(r), toRunRecord(r), nil
}

// GetTurnFor returns a turn of the person in a space they can open now
// (its conversation's); another person's turn, and one in a space the
// person has left, is not found. One read: the access is checked in it.
func (s *Store) GetTurnFor(ctx context.Context, personID, id string) (Turn, error) {
	var rows []storage.Turn
	err := s.q(ctx).Model(&storage.Turn{}).Omit(runRecordColumns...).
		Where("id = ? AND person_id = ?", id, personID).Where(memberOf("turns.space_id", personID)).Limit(1).Find(&rows).Error
	if err != nil {
		return Turn{}, fmt.Errorf("get turn %s: %w", id, err)
	}
	if len(rows) == 0 {
		return Turn{}, &workspace.NotFoundError{Kind: "turn", ID: id}
	}
	return toTurn(rows[0]), nil
}

// TurnStream is what the api's stream of a turn needs before it sends
// anything, as GetTurnForStream reads it.
type TurnStream struct {
	// ReplyMessageID and FinishedAt are the turn's (nil: it runs).
	ReplyMessageID string
	FinishedAt     *time.Time
	// Last is the number of the turn's latest frame (0 before the first),
	// Done of its done frame (0 while it has none).
	Last, Done int64
	// Frames are the turn's frames after the number asked for, oldest
	// first, at most streamFrames of them.
	Frames []StreamFrame
}

// StreamFrame is a stored frame of a turn's stream: stream.Frame's fields
// (chat stays beside stream; the api converts).
type StreamFrame struct {
	Seq       int64
	Type      string
	Data      string
	CreatedAt time.Time
}

// streamFrames bounds the frames GetTurnForStream reads, as stream bounds
// one read of a follower's (1,000): a stream further behind reads on from
// the follower, which compares the last frame read with TurnStream.Last.
const streamFrames = 1000

// doneFrame is stream.TypeDone (chat stays beside stream).
const doneFrame = "done"

// GetTurnForStream is GetTurnFor for the api's stream of the turn, in one
// query: what the stream needs of the turn, where its frames stand (as
// stream.Bus.Tail reads it), and its frames after `after`, which a
// follower registered before this read takes on from
// (stream.Follower.Follow). Reading them here saves the follower's own
// first read: one statement where there were two before the first frame.
func (s *Store) GetTurnForStream(ctx context.Context, personID, id string, after int64) (TurnStream, error) {
	var rows []struct {
		ReplyMessageID string
		FinishedAt     *time.Time
		FrameSeq       int64
		DoneSeq        *int64
		Seq            *int64
		Type           *string
		Data           *string
		CreatedAt      *time.Time
	}
	// The turn's few columns come with each frame; without a frame after
	// `after` the outer join gives one row, the turn's. The turn's id is
	// named in the join and in the done frame's subquery, so the frames
	// are read by their key and the subquery runs once.
	err := s.q(ctx).Table("turns").
		Select(`turns.reply_message_id, turns.finished_at, turns.frame_seq,
			(SELECT MAX(seq) FROM frames WHERE frames.log = ? AND frames.type = ?) AS done_seq,
			f.seq, f.type, f.data, f.created_at`, id, doneFrame).
		Joins("LEFT JOIN frames f ON f.log = ? AND f.seq > ?", id, after).
		Where("turns.id = ? AND turns.person_id = ?", id, personID).Where(memberOf("turns.space_id", personID)).
		Order("f.seq").Limit(streamFrames).Find(&rows).Error
	if err != nil {
		return TurnStream{}, fmt.Errorf("get turn %s: %w", id, err)
	}
	if len(rows) == 0 {
		return TurnStream{}, &workspace.NotFoundError{Kind: "turn", ID: id}
	}
	r := rows[0]
	ts := TurnStream{ReplyMessageID: r.ReplyMessageID, FinishedAt: r.FinishedAt, Last: r.FrameSeq}
	if r.DoneSeq != nil {
		ts.Done = *r.DoneSeq
	}
	for _, r := range rows {
		if r.Seq == nil {
			break // no frame after `after` (a frame's columns are NOT NULL)
		}
		ts.Frames = append(ts.Frames, StreamFrame{Seq: *r.Seq, Type: *r.Type, Data: *r.Data, CreatedAt: *r.CreatedAt})
	}
	return ts, nil
}

// SetTurnStatus records a running turn's status and step; a finished turn
// is left as it is, and so is a stopping one (a stop is never taken back:
// only the turn's ending replaces it). The change is announced on the
// person's activity stream in the same transaction.
func (s *Store) SetTurnStatus(ctx context.Context, id string, status Status, step int) error {
	return s.setTurnStatus(ctx, id, status, step, false, nil, StatusStopping)
}

// RecordInterrupt records a Stop or Pause the api signalled: one more in
// the turn's count of interrupts, then its status as SetTurnStatus does. A
// model call compares the count with the number of stops and pauses its
// workflow had heard when it scheduled the call (activities.CallModel): a
// higher count means a signal that will cancel the call, even when a
// Resume has already put the status back to working. The count goes first,
// so a Resume (which the api sends only to a turn that reads paused) is
// never recorded before the pause it resumes is counted.
//
// Each of changed runs in the status change's transaction, only when the
// status changed (the turn still runs, and was not stopping already): the
// turn's own status frame is stored with it, so it never follows the done
// frame.
func (s *Store) RecordInterrupt(ctx context.Context, id string, status Status, step int, changed ...func(ctx context.Context) error) error {
	err := s.q(ctx).Model(&storage.Turn{}).Where("id = ? AND finished_at IS NULL", id).
		UpdateColumn("interrupts", gorm.Expr("interrupts + 1")).Error
	if err != nil {
		return fmt.Errorf("count interrupt of %s: %w", id, err)
	}
	return s.setTurnStatus(ctx, id, status, step, len(changed) > 0, changed, StatusStopping)
}

// MarkWorking records that the turn works on a step, unless the person
// stopped or paused it: the api records those before the workflow hears of
// them, and a model call starting in between must not hide them (the top
// bar would show working, and a worker closes a model call on an announced
// interrupt only while the turn reads stopping or paused).
//
// Called inside a transaction (storage.DB.InTx), it runs in that one: a
// model call's status frame is stored with the status it shows
// (stream.Bus.Publish), at no commit of its own.
func (s *Store) MarkWorking(ctx context.Context, id string, step int) error {
	return s.setTurnStatus(ctx, id, StatusWorking, step, false, nil, StatusStopping, StatusPaused)
}

// setTurnStatus changes a running turn's status unless it is one of keep
// (and different from status), and runs each of also in its transaction:
// whatever it found, or with onChange only when the status changed (a
// status that is already the one asked for is then left as it is).
func (s *Store) setTurnStatus(ctx context.Context, id string, status Status, step int, onChange bool, also []func(ctx context.Context) error, keep ...Status) error {
	kept := make([]string, 0, len(keep))
	for _, k := range keep {
		if k != status {
			kept = append(kept, string(k))
		}
	}
	// The update returns what the top bar shows of the turn, so the
	// announcement reads nothing (the row is locked from here on).
	sql := `UPDATE turns SET status = ?, step = ?, updated_at = ? WHERE id = ? AND finished_at IS NULL`
	args := []any{string(status), step, s.now(), id}
	if len(kept) > 0 {
		sql += ` AND status NOT IN ?`
		args = append(args, kept)
	}
	if onChange {
		// A repeated pause or stop leaves the row, and runs nothing.
		sql += ` AND status <> ?`
		args = append(args, string(status))
	}
	sql += ` RETURNING id, person_id, conversation_id, status, step, created_at, finished_at,
		(SELECT title FROM conversations WHERE conversations.id = turns.conversation_id) AS conv_title,
		(SELECT text FROM messages WHERE messages.id = turns.user_message_id) AS user_text`
	var personID string
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		var rows []workRow
		if err := tx.Raw(sql, args...).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) > 0 {
			personID = rows[0].PersonID
			if err := s.announceWork(ctx, personID, rows[0].work()); err != nil {
				return err
			}
		} else if onChange {
			return nil
		}
		for _, fn := range also {
			if err := fn(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set turn %s status: %w", id, err)
	}
	return nil
}

// RunRecord is exactly what the model was shown at the start of a turn.
type RunRecord struct {
	Model        string
	Instructions string
	Context      string
	OfferedTools []string
	// AddedTools were made available during the turn (hub_how_to,
	// hub_find_tools) and stay offered for the rest of it.
	AddedTools []string
	// OfferWhy is why the offer at the start is what it is.
	OfferWhy   OfferWhy
	HistoryIDs []string
}

// OfferWhy is why a turn's first offer is what it is, for the run
// inspector: the playbooks its message was routed to, a simple request's
// recipe, or the fallback (the ranker found nothing) and why.
type OfferWhy struct {
	Playbooks      []string `json:"playbooks"`
	Simple         bool     `json:"simple,omitempty"`
	Fallback       bool     `json:"fallback,omitempty"`
	FallbackReason string   `json:"fallbackReason,omitempty"`
}

// SaveRunRecord stores the turn's run record; SetTurnStatus marks it working.
func (s *Store) SaveRunRecord(ctx context.Context, turnID string, rec RunRecord) error {
	err := s.q(ctx).Model(&storage.Turn{}).Where("id = ?", turnID).Updates(map[string]any{
		"model": rec.Model, "instructions": rec.Instructions, "context": rec.Context,
		"offered_tools": marshal(nonNil(rec.OfferedTools)), "added_tools": marshal(nonNil(rec.AddedTools)),
		"offer_why": marshal(rec.OfferWhy), "history_ids": marshal(nonNil(rec.HistoryIDs)),
		"updated_at": s.now(),
	}).Error
	if err != nil {
		return fmt.Errorf("save run record %s: %w", turnID, err)
	}
	return nil
}

// ErrClaimedMeanwhile is what Claim returns when the turn was no longer
// unclaimed and running: the caller rolls back and claims it with
// ClaimTurn, which tells a run that owns it from a reset's.
var ErrClaimedMeanwhile = errors.New("the turn was claimed or ended meanwhile")

// Claim is ClaimTurn's first claim of a running turn, to make in the
// transaction of the first writes the run makes (the status change that
// marks it working): the run takes the turn at no commit of its own. It
// returns ErrClaimedMeanwhile when the turn was claimed (by another run)
// or ended since it was read.
func (s *Store) Claim(ctx context.Context, turnID, runID string) error {
	res := s.q(ctx).Model(&storage.Turn{}).Where("id = ? AND run_id = '' AND finished_at IS NULL", turnID).Update("run_id", runID)
	if res.Error != nil {
		return fmt.Errorf("claim turn %s: %w", turnID, res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrClaimedMeanwhile
	}
	return nil
}

func toRunRecord(r storage.Turn) RunRecord {
	return RunRecord{Model: r.Model, Instructions: r.Instructions, Context: r.Context,
		OfferedTools: unmarshal[[]string](r.OfferedTools), AddedTools: unmarshal[[]string](r.AddedTools),
		OfferWhy: unmarshal[OfferWhy](r.OfferWhy), HistoryIDs: unmarshal[[]string](r.HistoryIDs)}
}

// AddTools keeps tools made available during a turn (hub_how_to,
// hub_find_tools) in its run record and sets its offer to what offer
// computes from all the tools added so far (offer must not use the
// database: on SQLite the transaction holds the only connection). Two
// calls of one model step
// run at once: the turn row is locked first (by a write, which SQLite and
// Postgres both order), so neither loses the other's tools.
func (s *Store) AddTools(ctx context.Context, turnID string, names []string, offer func(added []string) ([]string, error)) error {
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		res := tx.Model(&storage.Turn{}).Where("id = ?", turnID).Update("updated_at", s.now())
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return &workspace.NotFoundError{Kind: "turn", ID: turnID}
		}
		var r storage.Turn
		if err := tx.Select("added_tools").Take(&r, "id = ?", turnID).Error; err != nil {
			return err
		}
		added := unmarshal[[]string](r.AddedTools)
		for _, n := range names {
			if !slices.Contains(added, n) {
				added = append(added, n)
			}
		}
		offered, err := offer(added)
		if err != nil {
			return err
		}
		return tx.Model(&storage.Turn{}).Where("id = ?", turnID).Updates(map[string]any{
			"added_tools": marshal(nonNil(added)), "offered_tools": marshal(nonNil(offered))}).Error
	})
	if err != nil {
		return fmt.Errorf("add tools to %s: %w", turnID, err)
	}
	return nil
}

// Ending is how a turn ended.
type Ending struct {
	Status       Status
	ErrorCode    string
	ErrorMessage string
	Text         string
	Refs         []workspace.Ref
	// Named are the records the reply's text names by id, saved as the
	// reply's mentions (at most MaxNamedRefs).
	Named []workspace.Ref
	Usage Usage
}

// MaxNamedRefs bounds the records a reply is saved naming.
const MaxNamedRefs = 60

// FinishTurn saves the reply and ends the turn, in one transaction. It is
// idempotent: a turn that already ended keeps its first ending, which is
// returned. (A run started by an operator's reset reopens the turn first,
// with ClaimTurn, so the ending saved is that run's.)
//
// Called inside a transaction (storage.DB.InTx), it runs in that one: the
// turn's last frames (error, proposal, done: stream.Bus.PublishFirst),
// published after it in the same transaction, commit with the ending or
// not at all, so a turn never ends without its done frame, and a retry
// that finds the ending saved sends what the attempt has not sent yet.
//
// The ending's update is the transaction's first write and takes the
// turn's row lock: of two attempts racing to finish one turn, the second
// waits for the first to commit, then finds the turn ended (finished_at
// is set) and its frames stored.
func (s *Store) FinishTurn(ctx context.Context, turnID string, e Ending) (Turn, error) {
	var out Turn
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		now := s.now()
		// The update returns the turn and what the top bar shows of it,
		// and whether the turn holds writes for Apply: nothing is read
		// before or after it. On Postgres it updates the reply too.
		var rows []finishedRow
		update := `UPDATE turns SET status = ?, error_code = ?, error_message = ?, input_tokens = ?, output_tokens = ?,
			finished_at = ?, updated_at = ? WHERE id = ? AND finished_at IS NULL RETURNING *,` + finishedColumns
		args := []any{string(e.Status), e.ErrorCode, e.ErrorMessage, e.Usage.InputTokens, e.Usage.OutputTokens, now, now, turnID,
			CallHeld, HeldForApply}
		reply := []any{e.Text, string(e.Status), marshal(nonNil(e.Refs)), marshal(nonNil(e.Named)), e.Usage.InputTokens,
			e.Usage.OutputTokens, e.ErrorCode, e.ErrorMessage, now}
		postgres := tx.Dialector.Name() == string(storage.Postgres)
		if postgres {
			// The reply's update rides in the same statement.
			update = `WITH ended AS (` + update + `), reply AS (
				UPDATE messages SET text = ?, status = ?, refs = ?, mentions = ?, input_tokens = ?, output_tokens = ?,
					error_code = ?, error_message = ?, updated_at = ?
				WHERE id = (SELECT reply_message_id FROM ended) RETURNING id
			) SELECT * FROM ended`
			args = append(args, reply...)
		}
		if err := tx.Raw(update, args...).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			// Ended already (its first ending stands), or missing.
			var err error
			out, _, err = s.GetTurn(ctx, turnID)
			return err
		}
		r := rows[0]
		out = toTurn(r.Turn)
		if !postgres {
			err := tx.Exec(`UPDATE messages SET text = ?, status = ?, refs = ?, mentions = ?, input_tokens = ?, output_tokens = ?,
				error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`, append(reply, r.ReplyMessageID)...).Error
			if err != nil {
				return err
			}
		}
		// The top bar follows, in this transaction: the turn ends, and
		// writes it held appear as waiting for Apply.
		w := workRow{ID: r.ID, PersonID: r.PersonID, ConversationID: r.ConversationID, Status: r.Status, Step: r.Step,
			CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt, ConvTitle: r.ConvTitle, UserText: r.UserText}
		if err := s.announceWork(ctx, r.PersonID, w.work()); err != nil {
			return err
		}
		if r.Held > 0 {
			if err := s.announce(ctx, r.PersonID, func() (Work, error) { return s.applyWork(ctx, r.ReplyMessageID) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Turn{}, fmt.Errorf("finish turn %s: %w", turnID, err)
	}
	return out, nil
}

// finishedColumns is what FinishTurn's update returns besides the
// turn: the top bar's title parts, and
// how many of its writes are held for Apply (two arguments: CallHeld,
// HeldForApply).
const finishedColumns = `
	(SELECT title FROM conversations WHERE conversations.id = turns.conversation_id) AS conv_title,
	(SELECT text FROM messages WHERE messages.id = turns.user_message_id) AS user_text,
	(SELECT count(*) FROM tool_calls WHERE tool_calls.turn_id = turns.id AND tool_calls.status = ? AND tool_calls.held_for = ?) AS held`

// finishedRow scans finishedColumns.
type finishedRow struct {
	storage.Turn
	ConvTitle string
	UserText  string
	Held      int64
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Running is a person's unfinished turn, for the top bar.
type Running struct {
	Turn
	Title string // the conversation's title, or the start of the person's message
}

// RunningTurns lists the person's unfinished turns in spaces they can open
// now, oldest first.
func (s *Store) RunningTurns(ctx context.Context, personID string) ([]Running, error) {
	var rows []struct {
		storage.Turn
		ConvTitle string
		UserText  string
	}
	err := s.q(ctx).Table("turns").
		Select("turns.*, conversations.title AS conv_title, messages.text AS user_text").
		Joins("JOIN conversations ON conversations.id = turns.conversation_id").
		Joins("JOIN messages ON messages.id = turns.user_message_id").
		Where("turns.person_id = ? AND turns.finished_at IS NULL", personID).Where(memberOf("turns.space_id", personID)).
		Order("turns.created_at, turns.id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("running turns: %w", err)
	}
	out := make([]Running, len(rows))
	for i, r := range rows {
		title := r.ConvTitle
		if title == "" {
			title = r.UserText
			if rs := []rune(title); len(rs) > 80 {
				title = string(rs[:80]) + "…"
			}
		}
		out[i] = Running{Turn: toTurn(r.Turn), Title: title}
	}
	return out, nil
}

// UnfinishedTurnsIn lists a person's unfinished turns in a space, whether
// or not they can still open it: for ending the work of a member who was
// removed.
func (s *Store) UnfinishedTurnsIn(ctx context.Context, personID, spaceID string) ([]Turn, error) {
	var rows []storage.Turn
	err := s.q(ctx).Where("person_id = ? AND space_id = ? AND finished_at IS NULL", personID, spaceID).
		Order("created_at, id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("unfinished turns: %w", err)
	}
	out := make([]Turn, len(rows))
	for i, r := range rows {
		out[i] = toTurn(r)
	}
	return out, nil
}
