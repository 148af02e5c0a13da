package notify

import "sync"

// Followers are the followers of one feed in a process, by key. A wake-up
// signals each follower of its key, keeping one pending while it is busy:
// none is lost and a burst costs one read.
type Followers struct {
	mu    sync.Mutex
	byKey map[string]map[*Follower]struct{}
}

// Follower is one follower of a key, from Join to Leave.
type Follower struct {
	fs   *Followers
	key  string
	wake chan struct{}
	left bool // under fs.mu
}

// NewFollowers returns an empty set of followers.
func NewFollowers() *Followers { return &Followers{byKey: map[string]map[*Follower]struct{}{}} }

// Join registers a follower of key.
func (fs *Followers) Join(key string) *Follower {
	f := &Follower{fs: fs, key: key, wake: make(chan struct{}, 1)}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.byKey[key] == nil {
		fs.byKey[key] = map[*Follower]struct{}{}
	}
	fs.byKey[key][f] = struct{}{}
	return f
}

// Woken receives once after each wake-up of the follower's key (several
// wake-ups before it is read are one).
func (f *Follower) Woken() <-chan struct{} { return f.wake }

// Leave unregisters the follower, and tells whether it was its key's last.
// More than once is harmless (false).
func (f *Follower) Leave() (last bool) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.left {
		return false
	}
	f.left = true
	delete(f.fs.byKey[f.key], f)
	if len(f.fs.byKey[f.key]) == 0 {
		delete(f.fs.byKey, f.key)
		return true
	}
	return false
}

// Wake signals the followers of key.
func (fs *Followers) Wake(key string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for f := range fs.byKey[key] {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}
