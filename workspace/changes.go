package workspace

import (
	"context"
	"log/slog"
	"slices"
	"sync"
)

// What a Change did to its record.
const (
	OpCreated = "created"
	OpUpdated = "updated"
	OpDeleted = "deleted"
)

// Change is one committed change to a record, as subscribers see it: what
// changed, who changed it and through what.
type Change struct {
	Kind    string // KindTask or KindProject
	ID      string
	SpaceID string
	Op      string // OpCreated, OpUpdated or OpDeleted
	Actor   Actor
	// Title is the record's title after the change, or before a deletion.
	Title string
}

// Subscribe calls fn with every change committed through any Service of the
// same NewService, after its transaction commits, never for one that rolls
// back. fn runs on the writer's goroutine, so it must be quick; a panic in
// it is logged. unsubscribe may be called any number of times.
func (s *Service) Subscribe(fn func(Change)) (unsubscribe func()) {
	return s.shared.subscribers.add(fn)
}

// subscribers is the set of Subscribe callbacks, called in the order they
// subscribed. A change copies the list, which deliver reads unlocked.
type subscribers struct {
	mu   sync.Mutex
	list []*func(Change)
}

func (b *subscribers) add(fn func(Change)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	sub := &fn
	b.list = append(b.list, sub)
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.list = slices.DeleteFunc(slices.Clone(b.list), func(f *func(Change)) bool { return f == sub })
	}
}

// deliver calls every subscriber with each change, outside the lock so a
// subscriber may subscribe or unsubscribe from its callback.
func (b *subscribers) deliver(ctx context.Context, changes []Change) {
	if len(changes) == 0 {
		return
	}
	b.mu.Lock()
	list := b.list
	b.mu.Unlock()
	for _, c := range changes {
		for _, sub := range list {
			callSubscriber(ctx, *sub, c)
		}
	}
}

// callSubscriber keeps a panicking subscriber from failing a committed write.
func callSubscriber(ctx context.Context, fn func(Change), c Change) {
	defer func() {
		if p := recover(); p != nil {
			slog.ErrorContext(ctx, "change subscriber panicked", "kind", c.Kind, "id", c.ID, "op", c.Op, "panic", p)
		}
	}()
	fn(c)
}

// notify hands a change to subscribers once ctx's transaction commits.
func (s *Service) notify(ctx context.Context, c Change) {
	if st := s.txOf(ctx); st != nil {
		st.mu.Lock()
		st.changes = append(st.changes, c)
		st.mu.Unlock()
		return
	}
	s.shared.subscribers.deliver(ctx, []Change{c})
}
