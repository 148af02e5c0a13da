package chat

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"hub/storage"
	"hub/stream"
)

// Kinds of work in the top bar.
const (
	WorkTurn  = "turn"  // a running turn
	WorkAgent = "agent" // a running turn of one of the person's agents (turnKind)
	WorkApply = "apply" // a reply whose writes wait for the person's Apply, or are being applied
	// WorkIndexing is a file the person uploaded being made searchable
	// (package retrieval); its id is the file's, SpaceID its space's.
	WorkIndexing = "indexing"
	// WorkCompletion is a completion of the person's (completions.go); its
	// id is the completion's, SpaceID its space's.
	WorkCompletion = "completion"
)

// turnKind is a turn's kind of work: an agent's turn is its own kind.
func turnKind(agentID string) string {
	if agentID != "" {
		return WorkAgent
	}
	return WorkTurn
}

// IsTurn tells whether a kind of work is a turn, the person's or an agent's.
func IsTurn(kind string) bool { return kind == WorkTurn || kind == WorkAgent }

// Work is one piece of a person's running work as the top bar shows it,
// and the stored form of a work frame (the JSON tags).
type Work struct {
	Kind           string    `json:"kind"`
	ID             string    `json:"id"` // the turn's, or for an Apply the reply's
	ConversationID string    `json:"conversationId"`
	SpaceID        string    `json:"spaceId,omitempty"`
	Status         Status    `json:"status"`
	Title          string    `json:"title"`
	StartedAt      time.Time `json:"startedAt"`
	Step           int       `json:"step,omitempty"`
	Ended          bool      `json:"ended,omitempty"` // the work left the top bar
}

// WorkFrame is one frame of a person's activity stream: the state of
// one piece of work after a change, numbered per person from 1.
type WorkFrame struct {
	Seq  int64
	Work Work
}

// TopBar lists the person's running work, never anyone else's: unfinished
// turns, oldest first, then replies whose writes wait for Apply or are
// being applied (one entry per reply, titled by its first held write),
// then unended completions, oldest first.
func (s *Store) TopBar(ctx context.Context, personID string) ([]Work, error) {
	turns, err := s.RunningTurns(ctx, personID)
	if err != nil {
		return nil, err
	}
	held, err := s.HeldCalls(ctx, personID, HeldForApply)
	if err != nil {
		return nil, err
	}
	completions, err := s.RunningCompletions(ctx, personID)
	if err != nil {
		return nil, err
	}
	out := make([]Work, 0, len(turns)+len(held)+len(completions))
	for _, t := range turns {
		out = append(out, Work{Kind: turnKind(t.AgentID), ID: t.ID, ConversationID: t.ConversationID, Status: t.Status,
			Title: t.Title, StartedAt: t.CreatedAt, Step: t.Step})
	}
	seen := map[string]bool{}
	for _, h := range held {
		if seen[h.MessageID] {
			continue
		}
		seen[h.MessageID] = true
		status := StatusWaiting
		if h.Applying {
			status = StatusWorking
		}
		out = append(out, Work{Kind: WorkApply, ID: h.MessageID, ConversationID: h.ConversationID,
			Status: status, Title: h.Summary, StartedAt: h.CreatedAt})
	}
	for _, c := range completions {
		out = append(out, c.work())
	}
	return out, nil
}

// AnnounceDeleted ends, in the person's activity stream, the running turns
// and waiting Applies of a deleted conversation, with ids only (leftWork).
func (s *Store) AnnounceDeleted(ctx context.Context, personID, conversationID string, d Deleted) error {
	if len(d.RunningTurns) == 0 && len(d.HeldReplies) == 0 {
		return nil
	}
	var ended []Work
	for _, id := range d.RunningTurns {
		ended = append(ended, leftWork(Work{Kind: turnKind(d.AgentID), ID: id, ConversationID: conversationID}))
	}
	for _, id := range d.HeldReplies {
		ended = append(ended, leftWork(Work{Kind: WorkApply, ID: id, ConversationID: conversationID}))
	}
	return s.db.InTx(ctx, func(ctx context.Context) error { return s.announceAll(ctx, personID, ended) })
}

// AnnounceLeft ends, in the person's activity stream, their unfinished
// turns, waiting Applies and unended completions in a space they were
// removed from (leftWork).
func (s *Store) AnnounceLeft(ctx context.Context, personID, spaceID string) error {
	var ended []Work
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		turns, err := s.UnfinishedTurnsIn(ctx, personID, spaceID)
		if err != nil {
			return err
		}
		for _, t := range turns {
			ended = append(ended, leftWork(Work{Kind: turnKind(t.AgentID), ID: t.ID, ConversationID: t.ConversationID}))
		}
		tx := s.q(ctx)
		var replies []storage.Turn
		err = tx.Where("person_id = ? AND space_id = ? AND id IN (?)", personID, spaceID,
			tx.Model(&storage.ToolCall{}).Select("turn_id").Where("status = ? AND held_for = ?", CallHeld, HeldForApply)).
			Order("created_at, id").Find(&replies).Error
		if err != nil {
			return err
		}
		for _, t := range replies {
			ended = append(ended, leftWork(Work{Kind: WorkApply, ID: t.ReplyMessageID, ConversationID: t.ConversationID}))
		}
		var completions []storage.Completion
		err = tx.Where("person_id = ? AND space_id = ? AND ended_at IS NULL", personID, spaceID).Order("created_at, id").Find(&completions).Error
		if err != nil {
			return err
		}
		for _, c := range completions {
			ended = append(ended, leftWork(Work{Kind: WorkCompletion, ID: c.ID, SpaceID: c.SpaceID}))
		}
		return s.announceAll(ctx, personID, ended)
	})
	if err != nil {
		return fmt.Errorf("announce leaving %s: %w", spaceID, err)
	}
	return nil
}

// announceTurn writes the turn's state as a work frame of its person, in
// the transaction of the change, after it wrote (and locked) the turn's row.
func (s *Store) announceTurn(ctx context.Context, turnID string) error {
	personID, a, err := s.turnWork(ctx, turnID)
	if err != nil {
		return err
	}
	return s.announceWork(ctx, personID, a)
}

// announceWork writes a, read with the work's row locked in this
// transaction, as a work frame of the person.
func (s *Store) announceWork(ctx context.Context, personID string, a Work) error {
	return s.announce(ctx, personID, func() (Work, error) { return a, nil })
}

// AnnounceIndexing writes a file's indexing as a work frame of the person
// who uploaded it, in the transaction of the change it reports.
func (s *Store) AnnounceIndexing(ctx context.Context, personID string, w Work) error {
	w.Kind = WorkIndexing
	return s.announceWork(ctx, personID, w)
}

// announceAll writes each of ended as a work frame of the person.
func (s *Store) announceAll(ctx context.Context, personID string, ended []Work) error {
	for _, a := range ended {
		if err := s.announceWork(ctx, personID, a); err != nil {
			return err
		}
	}
	return nil
}

// workLog names the person's log of work frames (a log with a head).
func workLog(personID string) string { return "work:" + personID }

const workFrame = "work" // a work frame's type

// announce is the one place work frames are written, in the transaction
// of the change they report. The log's head is locked before build reads
// the work's state (stream.Bus.Append), so a piece of work's last frame
// tells its latest state.
func (s *Store) announce(ctx context.Context, personID string, build func() (Work, error)) error {
	_, err := s.work.Append(ctx, workLog(personID), workFrame, func() (any, error) { return build() })
	return err
}

// turnWork is a turn as the top bar shows it, and its person.
func (s *Store) turnWork(ctx context.Context, turnID string) (personID string, w Work, err error) {
	var r workRow
	err = s.q(ctx).Table("turns").
		// Not turns.*: the run record is most of a row.
		Select("turns.id, turns.person_id, turns.conversation_id, turns.agent_id, turns.status, turns.step, turns.created_at, turns.finished_at, "+
			"conversations.title AS conv_title, messages.text AS user_text").
		Joins("JOIN conversations ON conversations.id = turns.conversation_id").
		Joins("JOIN messages ON messages.id = turns.user_message_id").
		Where("turns.id = ?", turnID).Take(&r).Error
	if err != nil {
		return "", Work{}, fmt.Errorf("turn activity %s: %w", turnID, err)
	}
	return r.PersonID, r.work(), nil
}

// workRow is what a turn's top-bar entry is made of: the turn's columns
// read, its title parts, and for FinishTurn the writes held for Apply.
type workRow struct {
	storage.Turn
	ConvTitle string
	UserText  string
	Held      int64
}

func (r workRow) work() Work {
	return Work{Kind: turnKind(r.AgentID), ID: r.ID, ConversationID: r.ConversationID, Status: Status(r.Status),
		Title: workTitle(r.ConvTitle, r.UserText), StartedAt: r.CreatedAt, Step: r.Step, Ended: r.FinishedAt != nil}
}

// applyWork is a reply's Apply as the top bar shows it: waiting (working
// while it runs) titled by its first held write, or ended once none is.
func (s *Store) applyWork(ctx context.Context, messageID string) (Work, error) {
	var t storage.Turn
	if err := s.q(ctx).Take(&t, "reply_message_id = ?", messageID).Error; err != nil {
		return Work{}, fmt.Errorf("apply activity %s: %w", messageID, err)
	}
	a := Work{Kind: WorkApply, ID: messageID, ConversationID: t.ConversationID}
	var first storage.ToolCall
	err := s.q(ctx).Where("turn_id = ? AND status = ? AND held_for = ?", t.ID, CallHeld, HeldForApply).
		Order("created_at, id").Take(&first).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		a.Status, a.Ended = StatusDone, true
		return a, nil
	case err != nil:
		return Work{}, fmt.Errorf("apply activity %s: %w", messageID, err)
	}
	a.Status, a.Title, a.StartedAt = StatusWaiting, first.Summary, first.CreatedAt
	if s.applying(t.ApplyingSince) {
		a.Status = StatusWorking
	}
	return a, nil
}

// workTitle names a turn in the top bar: its conversation's title, or
// the start of the person's message.
func workTitle(convTitle, userText string) string {
	if convTitle != "" {
		return convTitle
	}
	if rs := []rune(userText); len(rs) > 80 {
		return string(rs[:80]) + "…"
	}
	return userText
}

// WorkFrames returns the person's work frames after seq `after`,
// oldest first, at most 1,000.
func (s *Store) WorkFrames(ctx context.Context, personID string, after int64) ([]WorkFrame, error) {
	frames, err := s.work.Frames(ctx, workLog(personID), after)
	if err != nil {
		return nil, err
	}
	return mapped(frames, toWorkFrame), nil
}

func toWorkFrame(f stream.Frame) WorkFrame {
	return WorkFrame{Seq: f.Seq, Work: unmarshal[Work](string(f.Data))}
}

// WorkHead returns the number of the person's latest work frame (0
// before the first).
func (s *Store) WorkHead(ctx context.Context, personID string) (int64, error) {
	return s.work.Head(ctx, workLog(personID))
}

// WorkResumes tells whether a client that saw the person's frames up to
// `after` can get every later one (stream.Bus.Resumes).
func (s *Store) WorkResumes(ctx context.Context, personID string, after int64) (bool, error) {
	return s.work.Resumes(ctx, workLog(personID), after)
}

// FollowWork calls fn with every work frame of the person after seq
// `after` as stream.Bus.FollowLog delivers them; a frame of a conversation
// in a space the person cannot open now, or of a completion in such a
// space, is delivered as leftWork.
func (s *Store) FollowWork(ctx context.Context, personID string, after int64, fn func(WorkFrame) error) error {
	return s.work.FollowLog(ctx, workLog(personID), after, func(f stream.Frame) error {
		wf := toWorkFrame(f)
		hidden, err := s.hidden(ctx, personID, wf.Work)
		if err != nil {
			return err
		}
		if hidden {
			wf.Work = leftWork(wf.Work)
		}
		return fn(wf)
	})
}

// leftWork tells only that a piece of work left the top bar: ids, no
// title, no step.
func leftWork(a Work) Work {
	status := StatusStopped
	if a.Kind == WorkApply {
		status = StatusDone
	}
	return Work{Kind: a.Kind, ID: a.ID, ConversationID: a.ConversationID, SpaceID: a.SpaceID, Status: status, Ended: true}
}

// hidden tells whether a piece of work is in a space the person cannot
// open now: a conversation's (a deleted one is not: its frames carry only
// ids), or a completion's.
func (s *Store) hidden(ctx context.Context, personID string, w Work) (bool, error) {
	var n int64
	if w.Kind == WorkCompletion {
		err := s.q(ctx).Model(&storage.Membership{}).Where("space_id = ? AND person_id = ?", w.SpaceID, personID).Count(&n).Error
		if err != nil {
			return false, fmt.Errorf("activity frames of %s: %w", personID, err)
		}
		return n == 0, nil
	}
	err := s.q(ctx).Model(&storage.Conversation{}).Where("id = ?", w.ConversationID).
		Where("NOT EXISTS (SELECT 1 FROM memberships WHERE memberships.space_id = conversations.space_id AND memberships.person_id = ?)", personID).
		Count(&n).Error
	if err != nil {
		return false, fmt.Errorf("activity frames of %s: %w", personID, err)
	}
	return n > 0, nil
}
