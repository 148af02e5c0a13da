package chat

import (
	"context"
	"slices"
	"sync"
	"time"

	"gorm.io/gorm"

	"hub/models"
)

// ActivityPollInterval bounds how late a follower sees an activity frame
// written by another process (the worker, another api): each process reads
// the heads of every person it follows, in one query, this often. Frames
// written in this process wake its followers at once.
const ActivityPollInterval = 250 * time.Millisecond

// activityFollowers are the followers of activity streams in this process,
// by database. It is process-wide on purpose: a frame written through any
// Store value (the worker's and the api's are different ones in `hub dev`)
// must wake the followers, the way a NOTIFY reaches every listener. A
// wake-up only says "read again"; person ids are unique, so one never
// reaches a follower of another person.
var activityFollowers = struct {
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
	wakes map[chan struct{}]struct{} // one per FollowActivity
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

// wakeActivity tells the person's followers in this process to read
// again. Call it after the transaction that wrote the frame commits.
func wakeActivity(personID string) {
	if personID == "" {
		return
	}
	activityFollowers.mu.Lock()
	defer activityFollowers.mu.Unlock()
	for _, d := range activityFollowers.dbs {
		if p := d.persons[personID]; p != nil {
			p.wake()
		}
	}
}

// FollowActivity calls fn with every activity frame of the person after
// seq `after`, in order, as they are written, until fn fails or ctx ends.
// It reads the table again whenever it is woken (a frame written in this
// process, or the poll seeing the person's head move), after the last
// number it delivered, so delivery has no gap and no repeat however the
// wake-ups come.
func (s *Store) FollowActivity(ctx context.Context, personID string, after int64, fn func(ActivityFrame) error) error {
	wake := make(chan struct{}, 1)
	leave := joinActivity(s.db, personID, wake)
	defer leave()
	for {
		frames, err := s.ActivityFrames(ctx, personID, after)
		if err != nil {
			return err
		}
		for _, f := range frames {
			if err := fn(f); err != nil {
				return err
			}
			after = f.Seq
		}
		if len(frames) == activityReadLimit {
			continue // more are waiting
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

// joinActivity registers a follower, starting the database's poll with the
// first one; leave stops the poll with the last and waits for it.
func joinActivity(db *gorm.DB, personID string, wake chan struct{}) (leave func()) {
	f := &activityFollowers
	f.mu.Lock()
	d := f.dbs[db]
	if d == nil {
		ctx, stop := context.WithCancel(context.Background())
		d = &followedDB{persons: map[string]*followedPerson{}, stop: stop, done: make(chan struct{})}
		f.dbs[db] = d
		go d.poll(ctx, db)
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

// poll reads the heads of the followed persons every ActivityPollInterval
// and wakes those whose head moved: frames written by other processes. One
// query a tick for the whole process, however many clients follow.
func (d *followedDB) poll(ctx context.Context, db *gorm.DB) {
	defer close(d.done)
	t := time.NewTicker(ActivityPollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		activityFollowers.mu.Lock()
		persons := make([]string, 0, len(d.persons))
		for id := range d.persons {
			persons = append(persons, id)
		}
		activityFollowers.mu.Unlock()
		for chunk := range slices.Chunk(persons, headBatch) {
			var heads []models.ActivityHead
			// A failed read is tried again next tick; meanwhile frames
			// written in this process still wake their followers.
			if err := db.WithContext(ctx).Where("person_id IN ?", chunk).Find(&heads).Error; err != nil {
				break
			}
			activityFollowers.mu.Lock()
			for _, h := range heads {
				if p := d.persons[h.PersonID]; p != nil && h.Seq > p.head {
					p.head = h.Seq
					p.wake()
				}
			}
			activityFollowers.mu.Unlock()
		}
	}
}
