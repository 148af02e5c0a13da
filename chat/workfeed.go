package chat

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"gorm.io/gorm"

	"hub/notify"
	"hub/storage"
)

// WorkChannel is the Postgres channel work frames are announced on,
// with the person's id as the payload: the transaction that writes a frame
// sends the NOTIFY (see announce), so it is delivered when the frame can
// be read, and the process's notifier (notify.Notifier) passes it to the
// person's followers here.
const WorkChannel = "hub_activity"

// workFeed is the activity streams followed in this process: their
// followers by person, woken by the Store's own writes once they commit
// and by the process's notifier (a frame another process wrote, the
// listener's reconnect, the poll of the heads). Every Store made from one
// NewStore shares it.
type workFeed struct {
	db        *gorm.DB
	n         *notify.Notifier
	followers *notify.Followers
	listen    sync.Once // registers with n, with the first follower

	mu    sync.Mutex
	heads map[string]int64 // by person: the latest head the poll saw
}

func newWorkFeed(db *gorm.DB, n *notify.Notifier) *workFeed {
	return &workFeed{db: db, n: n, followers: notify.NewFollowers(), heads: map[string]int64{}}
}

// join registers a follower of the person's frames; the first one
// registers the feed with the notifier.
func (w *workFeed) join(personID string) (*notify.Follower, error) {
	w.listen.Do(func() {
		w.n.Listen(WorkChannel, notify.Handler{Notified: w.followers.Wake, Connected: w.followers.WakeAll, Poll: w.poll})
	})
	select {
	case <-w.n.Done():
		return nil, notify.ErrClosed
	default:
	}
	return w.followers.Join(personID), nil
}

// wakeWork tells the person's followers in this process to read again.
// Call it after the transaction that wrote the frame commits (the NOTIFY
// that transaction sent reaches the other processes).
func (s *Store) wakeWork(personID string) {
	if personID != "" {
		s.work.followers.Wake(personID)
	}
}

// headBatch bounds the persons named in one poll query.
const headBatch = 500

// poll reads the heads of the followed persons and wakes those whose head
// moved: frames written by other processes whose wake-up was lost (the
// listener away, or a connection dead without a reset until its ping
// notices). One query for the whole process, however many clients
// follow; the notifier calls it every poll interval.
func (w *workFeed) poll(ctx context.Context) {
	persons := w.followers.Keys()
	seen := make(map[string]int64, len(persons))
	w.mu.Lock()
	for _, p := range persons {
		seen[p] = w.heads[p]
	}
	w.heads = seen // persons no longer followed are forgotten
	w.mu.Unlock()
	for chunk := range slices.Chunk(persons, headBatch) {
		var heads []storage.ActivityHead
		// A failed read is tried again at the next poll; meanwhile frames
		// written in this process still wake their followers.
		if err := w.db.WithContext(ctx).Where("person_id IN ?", chunk).Find(&heads).Error; err != nil {
			return
		}
		for _, h := range heads {
			w.mu.Lock()
			moved := h.Seq > w.heads[h.PersonID]
			if moved {
				w.heads[h.PersonID] = h.Seq
			}
			w.mu.Unlock()
			if moved {
				w.followers.Wake(h.PersonID)
			}
		}
	}
}

// FollowWork calls fn with every work frame of the person after
// seq `after`, in order, as they are written, until fn fails, ctx ends or
// the process's notifier is closed (notify.ErrClosed: the process is
// shutting down). It reads the table again whenever it is woken (a frame
// written in this process, a notification from another, the listener
// reconnecting, or the poll seeing the person's head move), after the last
// number it delivered, so delivery has no gap and no repeat however the
// wake-ups come.
func (s *Store) FollowWork(ctx context.Context, personID string, after int64, fn func(WorkFrame) error) error {
	f, err := s.work.join(personID)
	if err != nil {
		return err
	}
	defer f.Leave()
	for {
		frames, err := s.WorkFrames(ctx, personID, after)
		if err != nil {
			return err
		}
		hidden, err := s.hiddenConversations(ctx, personID, frames)
		if err != nil {
			return err
		}
		for _, f := range frames {
			if hidden[f.Work.ConversationID] {
				f.Work = leftWork(f.Work)
			}
			if err := fn(f); err != nil {
				return err
			}
			after = f.Seq
		}
		if len(frames) == workReadLimit {
			continue // more are waiting
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.work.n.Done():
			return notify.ErrClosed
		case <-f.Woken():
		}
	}
}

// leftWork is what a person who cannot open an activity's space any
// more is told of it: only that it left their top bar, as for a deleted
// conversation (ids, no title, no step), so a client drops what it showed.
func leftWork(a Work) Work {
	status := StatusStopped
	if a.Kind == WorkApply {
		status = StatusDone
	}
	return Work{Kind: a.Kind, ID: a.ID, ConversationID: a.ConversationID, Status: status, Ended: true}
}

// hiddenConversations returns the conversations of frames that are in a
// space the person cannot open now: those frames are delivered as
// leftWork (a person removed from a space reads nothing of it, not even
// a title in the top bar). A deleted conversation's frames, which carry only
// ids, are delivered as written.
func (s *Store) hiddenConversations(ctx context.Context, personID string, frames []WorkFrame) (map[string]bool, error) {
	var ids []string
	for _, f := range frames {
		if !slices.Contains(ids, f.Work.ConversationID) {
			ids = append(ids, f.Work.ConversationID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var hidden []string
	err := s.q(ctx).Model(&storage.Conversation{}).Where("id IN ?", ids).
		Where("NOT EXISTS (SELECT 1 FROM memberships WHERE memberships.space_id = conversations.space_id AND memberships.person_id = ?)", personID).
		Pluck("id", &hidden).Error
	if err != nil {
		return nil, fmt.Errorf("activity frames of %s: %w", personID, err)
	}
	out := make(map[string]bool, len(hidden))
	for _, id := range hidden {
		out[id] = true
	}
	return out, nil
}
