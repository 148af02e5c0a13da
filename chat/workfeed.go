package chat

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"gorm.io/gorm"

	"hub/models"
)

// WorkChannel is the Postgres channel work frames are announced
// on, with the person's id as the payload: the transaction that writes a
// frame sends the NOTIFY (see announce), so it is delivered when the frame
// can be read, and the api process's frame-bus listener passes it to
// WakeWorkFollowers (wired in cmd/hub).
const WorkChannel = "hub_activity"

// WorkPollInterval is how often each process reads the heads of every
// person it follows, in one query, and wakes those whose head moved. It is
// the safety net under the wake-ups, not the way frames travel: frames
// written in this process wake their followers at once, and frames written
// by another process (the worker, another api) wake them through
// WorkChannel. A notification can still be late or lost where the poll
// is not: while the listener's connection is dead without a reset (it is
// noticed by a ping after 30 s of silence), or in a process that has no
// listener; the poll bounds how late a frame is then. Two seconds, like a
// turn stream's poll: one cheap query per process.
const WorkPollInterval = 2 * time.Second

// workPoll is the poll interval in use; tests that prove a frame came
// by notification stretch it.
var workPoll = WorkPollInterval

// WakeWorkFollowers tells the person's activity followers in this
// process to read again: a frame of theirs was announced on
// WorkChannel. That includes this process's own frames, whose
// followers were woken already; the second wake-up costs one read.
func WakeWorkFollowers(personID string) { wakeWork(personID) }

// WakeAllWorkFollowers tells every activity follower in this process to
// read again: the listener has just (re)connected, and a notification sent
// while it was away is lost, while the frame it announced is in the table.
func WakeAllWorkFollowers() {
	workFollowers.mu.Lock()
	defer workFollowers.mu.Unlock()
	for _, d := range workFollowers.dbs {
		for _, p := range d.persons {
			p.wake()
		}
	}
}

// workFollowers are the followers of activity streams in this process,
// by database. It is process-wide on purpose: a frame written through any
// Store value (the worker's and the api's are different ones in `hub dev`)
// must wake the followers, the way a NOTIFY reaches every listener. A
// wake-up only says "read again"; person ids are unique, so one never
// reaches a follower of another person.
var workFollowers = struct {
	mu  sync.Mutex
	dbs map[*gorm.DB]*followedDB
}{dbs: map[*gorm.DB]*followedDB{}}

// followedDB is the persons followed over one database, and the poll of
// their heads, which runs while there is any.
type followedDB struct {
	persons map[string]*followedPerson
	stop    context.CancelFunc
	done    chan struct{}
}

type followedPerson struct {
	wakes map[chan struct{}]struct{} // one per FollowWork
	head  int64                      // the latest head the poll saw
}

func (p *followedPerson) wake() {
	for w := range p.wakes {
		select {
		case w <- struct{}{}:
		default: // one pending wake-up is enough: the follower reads everything after it
		}
	}
}

// wakeWork tells the person's followers in this process to read
// again. Call it after the transaction that wrote the frame commits (the
// NOTIFY that transaction sent reaches the other processes).
func wakeWork(personID string) {
	if personID == "" {
		return
	}
	workFollowers.mu.Lock()
	defer workFollowers.mu.Unlock()
	for _, d := range workFollowers.dbs {
		if p := d.persons[personID]; p != nil {
			p.wake()
		}
	}
}

// FollowWork calls fn with every work frame of the person after
// seq `after`, in order, as they are written, until fn fails or ctx ends.
// It reads the table again whenever it is woken (a frame written in this
// process, a notification from another, the listener reconnecting, or the
// poll seeing the person's head move), after the last number it delivered,
// so delivery has no gap and no repeat however the wake-ups come.
func (s *Store) FollowWork(ctx context.Context, personID string, after int64, fn func(WorkFrame) error) error {
	wake := make(chan struct{}, 1)
	leave := joinWork(s.db, personID, wake)
	defer leave()
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
		case <-wake:
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
	err := s.q(ctx).Model(&models.Conversation{}).Where("id IN ?", ids).
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

// joinWork registers a follower, starting the database's poll with the
// first one; leave stops the poll with the last and waits for it.
func joinWork(db *gorm.DB, personID string, wake chan struct{}) (leave func()) {
	f := &workFollowers
	f.mu.Lock()
	d := f.dbs[db]
	if d == nil {
		ctx, stop := context.WithCancel(context.Background())
		d = &followedDB{persons: map[string]*followedPerson{}, stop: stop, done: make(chan struct{})}
		f.dbs[db] = d
		go d.poll(ctx, db, workPoll)
	}
	p := d.persons[personID]
	if p == nil {
		p = &followedPerson{wakes: map[chan struct{}]struct{}{}}
		d.persons[personID] = p
	}
	p.wakes[wake] = struct{}{}
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(p.wakes, wake)
		if len(p.wakes) == 0 {
			delete(d.persons, personID)
		}
		last := len(d.persons) == 0
		if last {
			delete(f.dbs, db)
			d.stop()
		}
		f.mu.Unlock()
		if last {
			<-d.done
		}
	}
}

// headBatch bounds the persons named in one poll query.
const headBatch = 500

// poll reads the heads of the followed persons every interval and wakes
// those whose head moved: frames written by other processes whose wake-up
// was lost (see WorkPollInterval). One query a tick for the whole
// process, however many clients follow.
func (d *followedDB) poll(ctx context.Context, db *gorm.DB, interval time.Duration) {
	defer close(d.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		workFollowers.mu.Lock()
		persons := make([]string, 0, len(d.persons))
		for id := range d.persons {
			persons = append(persons, id)
		}
		workFollowers.mu.Unlock()
		for chunk := range slices.Chunk(persons, headBatch) {
			var heads []models.ActivityHead
			// A failed read is tried again next tick; meanwhile frames
			// written in this process still wake their followers.
			if err := db.WithContext(ctx).Where("person_id IN ?", chunk).Find(&heads).Error; err != nil {
				break
			}
			workFollowers.mu.Lock()
			for _, h := range heads {
				if p := d.persons[h.PersonID]; p != nil && h.Seq > p.head {
					p.head = h.Seq
					p.wake()
				}
			}
			workFollowers.mu.Unlock()
		}
	}
}
