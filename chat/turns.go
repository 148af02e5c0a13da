package chat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"hub/storage"
	"hub/workspace"
)

// Status is where a turn is: the first five run, the last three are final.
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
	Spaces         []string // other spaces the turn may act in besides SpaceID
	AgentID        string   // the agent of its conversation, whose persona and tools it runs with; "": none
	Purpose        string   // the usage bucket its model calls count under (PurposeChat, or its agent's)
	// ReferenceContext goes to the model in the turn's context, never into
	// the transcript.
	ReferenceContext string
	// WritePolicy overrides the person's write policy for the turn ("":
	// theirs), and ScheduleID names the agent schedule that started it.
	WritePolicy, ScheduleID string
	Status                  Status
	Step                    int
	ErrorCode               string
	ErrorMessage            string
	// Model is the catalog model the turn runs, chosen when it started,
	// and Effort its reasoning effort ("" none).
	Model      string
	Effort     string
	Usage      Usage
	CreatedAt  time.Time
	FinishedAt *time.Time
	RunID      string // the Temporal run that owns the turn (ClaimTurn)
	Interrupts int    // the Stops and Pauses the api signalled
}

// PurposeChat is the usage bucket of a person's own turns.
const PurposeChat = "chat"

// Usage counts tokens.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

func toTurn(r storage.Turn) Turn {
	return Turn{ID: r.ID, ConversationID: r.ConversationID, SpaceID: r.SpaceID, PersonID: r.PersonID,
		UserMessageID: r.UserMessageID, ReplyMessageID: r.ReplyMessageID, RetryOf: r.RetryOf,
		Spaces: nonNil(unmarshal[[]string](r.Spaces)), AgentID: r.AgentID, Purpose: r.Purpose, ReferenceContext: r.ReferenceContext, WritePolicy: r.WritePolicy, ScheduleID: r.ScheduleID, Status: Status(r.Status), Step: r.Step, Interrupts: r.Interrupts, ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, Model: r.Model, Effort: r.Effort,
		Usage: Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt,
		RunID: r.RunID}
}

// NewTurn is a person's message that starts a turn.
type NewTurn struct {
	ConversationID string
	PersonID       string
	Text           string
	Mentions       []workspace.Ref
	PageContext    string   // JSON the client sent as "context", or ""
	Spaces         []string // other spaces the turn may act in, checked by the caller
	Model, Effort  string   // checked by the caller (workspace.Service.TurnModel)
	Purpose        string   // "": PurposeChat
	// ReferenceContext is for the model only, checked by the caller.
	ReferenceContext string
	// WritePolicy overrides the person's for this turn ("": theirs).
	WritePolicy string
	// ScheduleID and ScheduleRun name the schedule firing that started
	// the turn: one turn a firing (a unique index decides).
	ScheduleID, ScheduleRun string
	// Conversation is the conversation as the caller read it
	// (GetConversation); nil: StartTurn reads it.
	Conversation *Conversation
}

// StartTurn saves the person's message, an empty running reply and a queued
// turn, and announces the turn, in one transaction (the one ctx carries,
// if any). A conversation with an unfinished turn answers
// workspace.ErrConflict (a unique index decides). The person's access is
// checked again by the write that marks the conversation active.
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
		// An untitled conversation takes its title from its first message.
		if err := s.touchConversation(ctx, conv, TitleFromMessage(in.Text)); err != nil {
			return err
		}
		if err := s.q(ctx).Create(&user).Error; err != nil {
			return err
		}
		t, err := s.createTurn(ctx, conv, user.ID, turnID, "", newTurnRow{spaces: in.Spaces, model: in.Model, effort: in.Effort,
			purpose: in.Purpose, reference: in.ReferenceContext, writePolicy: in.WritePolicy, scheduleID: in.ScheduleID, scheduleRun: in.ScheduleRun})
		if err != nil {
			return err
		}
		out = t
		return s.announceWork(ctx, t.PersonID, Work{Kind: turnKind(t.AgentID), ID: t.ID, ConversationID: t.ConversationID,
			Status: StatusQueued, Title: workTitle(conv.Title, in.Text), StartedAt: t.CreatedAt})
	})
	if err != nil {
		return Turn{}, turnStartError(err)
	}
	return out, nil
}

// RetryTurn runs the person's message of a turn that ended in error again
// as a new turn, as StartTurn does.
func (s *Store) RetryTurn(ctx context.Context, personID, turnID string) (Turn, error) {
	old, err := s.GetTurnFor(ctx, personID, turnID)
	if err != nil {
		return Turn{}, err
	}
	if old.Status != StatusError {
		return Turn{}, fmt.Errorf("only a turn that ended in error can be retried; this one is %s: %w", old.Status, workspace.ErrConflict)
	}
	conv := Conversation{ID: old.ConversationID, SpaceID: old.SpaceID, PersonID: old.PersonID, AgentID: old.AgentID}
	var out Turn
	err = s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.touchConversation(ctx, conv, ""); err != nil {
			return err
		}
		newID := storage.NewID("turn")
		// The message moves to the new turn, so history (which leaves out
		// error turns) shows it with the retry's answer; one that moved
		// already was retried before.
		res := s.q(ctx).Model(&storage.Message{}).Where("id = ? AND turn_id = ?", old.UserMessageID, old.ID).
			Update("turn_id", newID)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errAlreadyRetried
		}
		t, err := s.createTurn(ctx, conv, old.UserMessageID, newID, old.ID, newTurnRow{spaces: old.Spaces, model: old.Model,
			effort: old.Effort, purpose: old.Purpose, reference: old.ReferenceContext, writePolicy: old.WritePolicy, scheduleID: old.ScheduleID})
		if err != nil {
			return err
		}
		if err := s.placeRetryReply(ctx, old.ReplyMessageID, t.ReplyMessageID); err != nil {
			return err
		}
		out = t
		return s.announceTurn(ctx, t.ID)
	})
	if err != nil {
		return Turn{}, turnStartError(err)
	}
	return out, nil
}

// newTurnRow is what a new turn takes from its message, or from the turn
// a retry runs again.
type newTurnRow struct {
	spaces                            []string
	model, effort, purpose, reference string
	writePolicy, scheduleID           string
	scheduleRun                       string // a retry's is "": the firing's turn is the first
}

func (s *Store) createTurn(ctx context.Context, conv Conversation, userMessageID, turnID, retryOf string, in newTurnRow) (Turn, error) {
	reply := storage.Message{ID: storage.NewID("msg"), ConversationID: conv.ID, TurnID: turnID, Role: RoleAssistant,
		Status: MessageRunning, Mentions: "[]", Refs: "[]"}
	if err := s.q(ctx).Create(&reply).Error; err != nil {
		return Turn{}, err
	}
	t := storage.Turn{ID: turnID, ConversationID: conv.ID, SpaceID: conv.SpaceID, PersonID: conv.PersonID,
		UserMessageID: userMessageID, ReplyMessageID: reply.ID, RetryOf: retryOf, Status: string(StatusQueued),
		OfferedTools: "[]", AddedTools: "[]", HistoryIDs: "[]", Spaces: marshal(nonNil(in.spaces)), AgentID: conv.AgentID, Purpose: cmp.Or(in.purpose, PurposeChat), Model: in.model,
		Effort: in.effort, ReferenceContext: in.reference, WritePolicy: in.writePolicy, ScheduleID: in.scheduleID, ScheduleRun: in.scheduleRun,
		// As Postgres stores it: the queued announcement is built from this row.
		CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if err := s.q(ctx).Create(&t).Error; err != nil {
		return Turn{}, err
	}
	return toTurn(t), nil
}

// placeRetryReply puts a retry's reply one microsecond (Postgres's finest
// time) after the reply it retries: messages are listed by creation time,
// and a retry made after later turns would otherwise answer below them.
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

// touchConversation marks the person's conversation active if they can
// open its space now (else not found), locking its row; an untitled one
// takes title ("" none) unless one was set since.
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

// runRecordColumns are the turn row's run record, most of its bytes.
var runRecordColumns = []string{"instructions", "context", "offered_tools", "added_tools", "offer_why", "history_ids"}

// GetTurn returns a turn by id, whoever owns it, with its run record.
func (s *Store) GetTurn(ctx context.Context, id string) (Turn, RunRecord, error) {
	var r storage.Turn
	if err := found(s.q(ctx).Take(&r, "id = ?", id).Error, "turn", id); err != nil {
		return Turn{}, RunRecord{}, err
	}
	return toTurn(r), toRunRecord(r), nil
}

// GetTurnFor returns a turn of the person in a space they can open now;
// any other is not found.
func (s *Store) GetTurnFor(ctx context.Context, personID, id string) (Turn, error) {
	var r storage.Turn
	err := s.q(ctx).Omit(runRecordColumns...).
		Where("id = ? AND person_id = ?", id, personID).Where(memberOf("turns.space_id", personID)).Take(&r).Error
	if err := found(err, "turn", id); err != nil {
		return Turn{}, err
	}
	return toTurn(r), nil
}

// TurnStream is what the api's stream of a turn needs before it sends
// anything.
type TurnStream struct {
	ReplyMessageID string
	FinishedAt     *time.Time    // nil: it runs
	Last, Done     int64         // the numbers of the latest and the done frame (0: none)
	Frames         []StreamFrame // after the number asked for, at most streamFrames
}

// StreamFrame is a stored frame of a turn's stream (stream.Frame's fields).
type StreamFrame struct {
	Seq       int64
	Type      string
	Data      string
	CreatedAt time.Time
}

// streamFrames bounds the frames GetTurnForStream reads, as stream bounds
// a follower's read; the follower reads the rest.
const streamFrames = 1000

const doneFrame = "done" // stream.TypeDone

// GetTurnForStream is GetTurnFor for the api's stream of the turn, in one
// query: the turn, where its frames stand and its frames after `after`,
// for a stream.Follower joined before it.
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
	// The turn's columns come with each frame (one row without a frame);
	// the id is named in the join and the subquery, so frames are read by
	// their key.
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

// SetTurnStatus records a running turn's status and step, and announces
// it; a finished or stopping turn is left as it is.
func (s *Store) SetTurnStatus(ctx context.Context, id string, status Status, step int) error {
	return s.setTurnStatus(ctx, id, status, step, nil, StatusStopping)
}

// RecordInterrupt records a Stop or Pause the api signalled: one more in
// the turn's count of interrupts (activities.CallModel compares it), then
// its status as SetTurnStatus does. The count goes first, so a Resume is
// never recorded before the pause it resumes is counted. Each of changed
// runs in the status change's transaction, only when the status changed.
func (s *Store) RecordInterrupt(ctx context.Context, id string, status Status, step int, changed ...func(ctx context.Context) error) error {
	err := s.q(ctx).Model(&storage.Turn{}).Where("id = ? AND finished_at IS NULL", id).
		UpdateColumn("interrupts", gorm.Expr("interrupts + 1")).Error
	if err != nil {
		return fmt.Errorf("count interrupt of %s: %w", id, err)
	}
	return s.setTurnStatus(ctx, id, status, step, changed, StatusStopping)
}

// MarkWorking records that the turn works on a step, unless the person
// stopped or paused it: the api records those before the workflow hears of
// them, and a model call starting in between must not hide them. It runs
// in the transaction ctx carries, if any.
func (s *Store) MarkWorking(ctx context.Context, id string, step int) error {
	return s.setTurnStatus(ctx, id, StatusWorking, step, nil, StatusStopping, StatusPaused)
}

// setTurnStatus changes a running turn's status unless it is one of keep
// (and different from status). With changed, a turn already at status is
// left too (a repeated pause or stop), and each of changed runs in the
// transaction only when the status changed.
func (s *Store) setTurnStatus(ctx context.Context, id string, status Status, step int, changed []func(ctx context.Context) error, keep ...Status) error {
	kept := make([]string, 0, len(keep))
	for _, k := range keep {
		if k != status {
			kept = append(kept, string(k))
		}
	}
	// The update returns what the top bar shows and locks the row.
	sql := `UPDATE turns SET status = ?, step = ?, updated_at = ? WHERE id = ? AND finished_at IS NULL`
	args := []any{string(status), step, s.now(), id}
	if len(kept) > 0 {
		sql += ` AND status NOT IN ?`
		args = append(args, kept)
	}
	if len(changed) > 0 {
		sql += ` AND status <> ?`
		args = append(args, string(status))
	}
	sql += ` RETURNING id, person_id, conversation_id, agent_id, status, step, created_at, finished_at,
		(SELECT title FROM conversations WHERE conversations.id = turns.conversation_id) AS conv_title,
		(SELECT text FROM messages WHERE messages.id = turns.user_message_id) AS user_text`
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		var rows []workRow
		if err := s.q(ctx).Raw(sql, args...).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		if err := s.announceWork(ctx, rows[0].PersonID, rows[0].work()); err != nil {
			return err
		}
		for _, fn := range changed {
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
	AddedTools   []string // made available during the turn; they stay offered
	OfferWhy     OfferWhy
	HistoryIDs   []string
}

// OfferWhy is why a turn's first offer is what it is, for the run
// inspector.
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

// ErrClaimedMeanwhile is what Claim returns when the turn was claimed or
// ended since it was read: the caller rolls back and uses ClaimTurn.
var ErrClaimedMeanwhile = errors.New("the turn was claimed or ended meanwhile")

// Claim is ClaimTurn's first claim of a running turn, made in the
// transaction of the run's first writes, at no commit of its own.
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

// AddTools adds tools made available during a turn to its run record and
// sets its offer to what offer computes from all added so far (offer must
// not use the database: on SQLite the transaction holds the only
// connection). The turn row is locked first, by a write, so two calls of
// one step do not lose each other's tools.
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
	Named        []workspace.Ref // records the reply's text names by id, saved as its mentions
	Usage        Usage
}

// MaxNamedRefs bounds the records a reply is saved naming.
const MaxNamedRefs = 60

// FinishTurn saves the reply and ends the turn, in one transaction (the
// one ctx carries, if any, so the turn's last frames commit with it). A
// turn that already ended keeps its first ending, which is returned. The
// update is the first write and takes the turn's row lock: a racing second
// attempt waits, then finds the turn ended and its frames stored.
func (s *Store) FinishTurn(ctx context.Context, turnID string, e Ending) (Turn, error) {
	var out Turn
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		now := s.now()
		// The update returns all the rest needs; on Postgres it updates
		// the reply too.
		var rows []workRow
		update := `UPDATE turns SET status = ?, error_code = ?, error_message = ?, input_tokens = ?, output_tokens = ?,
			finished_at = ?, updated_at = ? WHERE id = ? AND finished_at IS NULL RETURNING *,` + finishedColumns
		args := []any{string(e.Status), e.ErrorCode, e.ErrorMessage, e.Usage.InputTokens, e.Usage.OutputTokens, now, now, turnID,
			CallHeld, HeldForApply}
		reply := []any{e.Text, string(e.Status), marshal(nonNil(e.Refs)), marshal(nonNil(e.Named)), e.Usage.InputTokens,
			e.Usage.OutputTokens, e.ErrorCode, e.ErrorMessage, now}
		const updateReply = `UPDATE messages SET text = ?, status = ?, refs = ?, mentions = ?, input_tokens = ?,
			output_tokens = ?, error_code = ?, error_message = ?, updated_at = ?`
		postgres := tx.Dialector.Name() == string(storage.Postgres)
		if postgres {
			update = `WITH ended AS (` + update + `), reply AS (` + updateReply + `
				WHERE id = (SELECT reply_message_id FROM ended) RETURNING id
			) SELECT * FROM ended`
			args = append(args, reply...)
		}
		if err := tx.Raw(update, args...).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 { // ended already, or missing
			var err error
			out, _, err = s.GetTurn(ctx, turnID)
			return err
		}
		r := rows[0]
		out = toTurn(r.Turn)
		if !postgres {
			if err := tx.Exec(updateReply+` WHERE id = ?`, append(reply, r.ReplyMessageID)...).Error; err != nil {
				return err
			}
		}
		if err := s.announceWork(ctx, r.PersonID, r.work()); err != nil {
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

// finishedColumns is what FinishTurn's update returns besides the turn:
// the top bar's title parts and the writes held for Apply (arguments
// CallHeld, HeldForApply).
const finishedColumns = `
	(SELECT title FROM conversations WHERE conversations.id = turns.conversation_id) AS conv_title,
	(SELECT text FROM messages WHERE messages.id = turns.user_message_id) AS user_text,
	(SELECT count(*) FROM tool_calls WHERE tool_calls.turn_id = turns.id AND tool_calls.status = ? AND tool_calls.held_for = ?) AS held`

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
	var rows []workRow
	err := s.q(ctx).Table("turns").
		Select("turns.*, conversations.title AS conv_title, messages.text AS user_text").
		Joins("JOIN conversations ON conversations.id = turns.conversation_id").
		Joins("JOIN messages ON messages.id = turns.user_message_id").
		Where("turns.person_id = ? AND turns.finished_at IS NULL", personID).Where(memberOf("turns.space_id", personID)).
		Order("turns.created_at, turns.id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("running turns: %w", err)
	}
	return mapped(rows, func(r workRow) Running {
		return Running{Turn: toTurn(r.Turn), Title: workTitle(r.ConvTitle, r.UserText)}
	}), nil
}

// UnfinishedTurnsIn lists a person's unfinished turns in a space, whether
// or not they can still open it.
func (s *Store) UnfinishedTurnsIn(ctx context.Context, personID, spaceID string) ([]Turn, error) {
	var rows []storage.Turn
	err := s.q(ctx).Where("person_id = ? AND space_id = ? AND finished_at IS NULL", personID, spaceID).
		Order("created_at, id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("unfinished turns: %w", err)
	}
	return mapped(rows, toTurn), nil
}

// ScheduledTurn returns the turn a schedule's firing started (run is the
// firing workflow's id), or ErrNotFound: a firing retried after a crash
// finds the turn its first attempt saved.
func (s *Store) ScheduledTurn(ctx context.Context, run string) (Turn, error) {
	var r storage.Turn
	err := s.q(ctx).Where("schedule_run = ?", run).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Turn{}, workspace.ErrNotFound
	}
	if err != nil {
		return Turn{}, fmt.Errorf("read the turn of firing %s: %w", run, err)
	}
	return toTurn(r), nil
}

// ScheduledRuns returns the owner's turns that the given firings started,
// by firing.
func (s *Store) ScheduledRuns(ctx context.Context, personID string, runs []string) (map[string]Turn, error) {
	out := map[string]Turn{}
	if len(runs) == 0 {
		return out, nil
	}
	var rows []storage.Turn
	if err := s.q(ctx).Where("person_id = ? AND schedule_run IN ?", personID, runs).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read the turns of a schedule's firings: %w", err)
	}
	for _, r := range rows {
		out[r.ScheduleRun] = toTurn(r)
	}
	return out, nil
}
