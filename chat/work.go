package chat

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"hub/notify"
	"hub/storage"
)

// Kinds of work in the top bar.
const (
	WorkTurn  = "turn"  // a running turn
	WorkApply = "apply" // a reply whose writes wait for the person's Apply, or are being applied
)

// Work is one piece of a person's running work as the top bar shows
// it. It is also the stored form of an work frame (the JSON tags), so
// a frame keeps what was true when it was written.
type Work struct {
	Kind string `json:"kind"`
	// ID is the turn's id, or for an Apply the id of the reply that
	// proposed the writes.
	ID             string    `json:"id"`
	ConversationID string    `json:"conversationId"`
	Status         Status    `json:"status"`
	Title          string    `json:"title"`
	StartedAt      time.Time `json:"startedAt"`
	Step           int       `json:"step,omitempty"`
	// Ended says the work left the top bar: the turn ended (Status says
	// how), the reply's writes were applied or expired, or the
	// conversation was deleted.
	Ended bool `json:"ended,omitempty"`
}

// WorkFrame is one frame of a person's activity stream: the state of
// one piece of work after a change, numbered per person from 1.
type WorkFrame struct {
	Seq  int64
	Work Work
}

// TopBar lists the person's running work, never anyone else's: unfinished
// turns, oldest first, then replies whose writes wait for Apply or are
// being applied (one entry per reply, titled by its first held write).
func (s *Store) TopBar(ctx context.Context, personID string) ([]Work, error) {
	turns, err := s.RunningTurns(ctx, personID)
	if err != nil {
		return nil, err
	}
	held, err := s.HeldCalls(ctx, personID, HeldForApply)
	if err != nil {
		return nil, err
	}
	out := make([]Work, 0, len(turns)+len(held))
	for _, t := range turns {
		out = append(out, Work{Kind: WorkTurn, ID: t.ID, ConversationID: t.ConversationID, Status: t.Status,
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
	return out, nil
}

// AnnounceDeleted ends, in the person's activity stream, the running turns
// and waiting Applies of a conversation that was deleted (their rows are
// gone, so the frames say only which work ended).
func (s *Store) AnnounceDeleted(ctx context.Context, personID, conversationID string, d Deleted) error {
	if len(d.RunningTurns) == 0 && len(d.HeldReplies) == 0 {
		return nil
	}
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		ended := make([]Work, 0, len(d.RunningTurns)+len(d.HeldReplies))
		for _, id := range d.RunningTurns {
			ended = append(ended, Work{Kind: WorkTurn, ID: id, ConversationID: conversationID, Status: StatusStopped, Ended: true})
		}
		for _, id := range d.HeldReplies {
			ended = append(ended, Work{Kind: WorkApply, ID: id, ConversationID: conversationID, Status: StatusDone, Ended: true})
		}
		for _, a := range ended {
			if err := s.announce(ctx, personID, func() (Work, error) { return a, nil }); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// AnnounceLeft ends, in the person's activity stream, their work in a
// space they were removed from: unfinished turns and replies whose writes
// wait for Apply there leave their top bar at once (a client following the
// stream drops them), told with ids only, as leftWork.
func (s *Store) AnnounceLeft(ctx context.Context, personID, spaceID string) error {
	var ended []Work
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		var turns []storage.Turn
		if err := tx.Where("person_id = ? AND space_id = ? AND finished_at IS NULL", personID, spaceID).Order("created_at, id").Find(&turns).Error; err != nil {
			return err
		}
		for _, t := range turns {
			ended = append(ended, leftWork(Work{Kind: WorkTurn, ID: t.ID, ConversationID: t.ConversationID}))
		}
		var replies []storage.Turn
		err := tx.Where("person_id = ? AND space_id = ? AND id IN (?)", personID, spaceID,
			tx.Model(&storage.ToolCall{}).Select("turn_id").Where("status = ? AND held_for = ?", CallHeld, HeldForApply)).
			Order("created_at, id").Find(&replies).Error
		if err != nil {
			return err
		}
		for _, t := range replies {
			ended = append(ended, leftWork(Work{Kind: WorkApply, ID: t.ReplyMessageID, ConversationID: t.ConversationID}))
		}
		for _, a := range ended {
			if err := s.announce(ctx, personID, func() (Work, error) { return a, nil }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("announce leaving %s: %w", spaceID, err)
	}
	return nil
}

// announceTurn writes the turn's state as an work frame and returns
// its person. Run it in the transaction of the change it reports, after
// that change wrote the turn's row (so the row is locked and its state
// cannot change before the frame is numbered); wake the person's
// followers after that commits.
func (s *Store) announceTurn(ctx context.Context, turnID string) (personID string, err error) {
	personID, a, err := s.turnWork(ctx, turnID)
	if err != nil {
		return "", err
	}
	return personID, s.announceWork(ctx, personID, a)
}

// announceWork writes a, a state its caller read with the work's row
// locked in this transaction (the turn's: see announceTurn), as a work
// frame of the person. Two changes of one piece of work are numbered in
// the order their states were read: the second waits for the first's row
// lock before it reads.
func (s *Store) announceWork(ctx context.Context, personID string, a Work) error {
	return s.announce(ctx, personID, func() (Work, error) { return a, nil })
}

// workRetention is how long work frames are kept for clients that
// resume with Last-Event-ID; a client further behind gets a snapshot.
const workRetention = 10 * time.Minute

// pruneEvery: old frames are removed on every pruneEvery-th frame of a
// person, so pruning costs one statement now and then, not one per frame.
const pruneEvery = 32

// announce is the one place work frames are written. It takes the
// person's head row first (the upsert locks it), then builds the work entry
// from what is committed or written in this transaction: two changes of a
// person's work are numbered in the order their states were read, so the
// last frame of a piece of work always tells its latest state.
func (s *Store) announce(ctx context.Context, personID string, build func() (Work, error)) error {
	var seq int64
	err := s.q(ctx).Raw(`INSERT INTO activity_heads (person_id, seq) VALUES (?, 1)
		ON CONFLICT (person_id) DO UPDATE SET seq = activity_heads.seq + 1 RETURNING seq`, personID).Scan(&seq).Error
	if err != nil {
		return fmt.Errorf("number activity frame of %s: %w", personID, err)
	}
	a, err := build()
	if err != nil {
		return err
	}
	row := storage.ActivityFrame{PersonID: personID, Seq: seq, Data: marshal(a), CreatedAt: s.now()}
	if err := s.q(ctx).Create(&row).Error; err != nil {
		return fmt.Errorf("write activity frame of %s: %w", personID, err)
	}
	// Other processes' followers hear of the frame from Postgres, which
	// delivers a NOTIFY when the transaction commits and drops it on
	// rollback: never before the frame can be read. (On SQLite, hub dev,
	// one process, the caller's in-process wake-up is all there is.)
	if err := notify.Send(ctx, s.db, WorkChannel, personID); err != nil {
		return fmt.Errorf("announce activity frame of %s: %w", personID, err)
	}
	// This process's followers read once the frame is committed (or the
	// commit's answer was lost: a needless read costs little).
	storage.AfterTx(ctx, func(error) { s.wakeWork(personID) })
	return s.prune(ctx, personID, seq)
}

// prune removes the person's old work frames on every pruneEvery-th one.
func (s *Store) prune(ctx context.Context, personID string, seq int64) error {
	if seq%pruneEvery == 0 {
		err := s.q(ctx).Where("person_id = ? AND created_at < ?", personID, s.now().Add(-workRetention)).
			Delete(&storage.ActivityFrame{}).Error
		if err != nil {
			return fmt.Errorf("prune activity frames of %s: %w", personID, err)
		}
	}
	return nil
}

// turnWork is a turn as the top bar shows it, and its person; a
// finished turn is ended.
func (s *Store) turnWork(ctx context.Context, turnID string) (personID string, w Work, err error) {
	var r workRow
	err = s.q(ctx).Table("turns").
		// Not turns.*: the run record (instructions, context) is most of a
		// turn row, and the top bar needs none of it.
		Select("turns.id, turns.person_id, turns.conversation_id, turns.status, turns.step, turns.created_at, turns.finished_at, "+
			"conversations.title AS conv_title, messages.text AS user_text").
		Joins("JOIN conversations ON conversations.id = turns.conversation_id").
		Joins("JOIN messages ON messages.id = turns.user_message_id").
		Where("turns.id = ?", turnID).Take(&r).Error
	if err != nil {
		return "", Work{}, fmt.Errorf("turn activity %s: %w", turnID, err)
	}
	return r.PersonID, r.work(), nil
}

// workRow is what a turn's top-bar entry is made of: turnWork reads it,
// and setTurnStatus has its update return it.
type workRow struct {
	ID             string
	PersonID       string
	ConversationID string
	Status         string
	Step           int
	CreatedAt      time.Time
	FinishedAt     *time.Time
	ConvTitle      string
	UserText       string
}

func (r workRow) work() Work {
	return Work{Kind: WorkTurn, ID: r.ID, ConversationID: r.ConversationID, Status: Status(r.Status),
		Title: workTitle(r.ConvTitle, r.UserText), StartedAt: r.CreatedAt, Step: r.Step, Ended: r.FinishedAt != nil}
}

// applyWork is a reply's Apply as the top bar shows it: waiting while
// any of its writes is held for Apply (working while its Apply runs),
// titled by the first; ended (done) once none is.
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

// workReadLimit caps one read of a person's frames; a follower behind
// by more reads again at once.
const workReadLimit = 500

// WorkFrames returns the person's work frames after seq `after`,
// oldest first, at most 500.
func (s *Store) WorkFrames(ctx context.Context, personID string, after int64) ([]WorkFrame, error) {
	var rows []storage.ActivityFrame
	err := s.q(ctx).Where("person_id = ? AND seq > ?", personID, after).Order("seq").Limit(workReadLimit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read activity frames of %s: %w", personID, err)
	}
	out := make([]WorkFrame, len(rows))
	for i, r := range rows {
		out[i] = WorkFrame{Seq: r.Seq, Work: unmarshal[Work](r.Data)}
	}
	return out, nil
}

// WorkHead returns the number of the person's latest work frame (0
// before the first).
func (s *Store) WorkHead(ctx context.Context, personID string) (int64, error) {
	var h storage.ActivityHead
	err := s.q(ctx).Take(&h, "person_id = ?", personID).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("activity head of %s: %w", personID, err)
	}
	return h.Seq, nil
}

// WorkResumes tells whether a client that saw the person's frames up
// to `after` can get every later one: they have not been removed yet, and
// `after` is a number this stream gave out.
func (s *Store) WorkResumes(ctx context.Context, personID string, after int64) (bool, error) {
	head, err := s.WorkHead(ctx, personID)
	if err != nil || after > head {
		return false, err
	}
	if after == head {
		return true, nil
	}
	var n int64
	err = s.q(ctx).Model(&storage.ActivityFrame{}).Where("person_id = ? AND seq = ?", personID, after+1).Count(&n).Error
	if err != nil {
		return false, fmt.Errorf("activity frames of %s: %w", personID, err)
	}
	return n == 1, nil
}
