package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"hub/storage"
)

// The states of an Undo group.
const (
	// UndoDone: the group's writes stand as they were made.
	UndoDone = "done"
	// UndoUndone: Undo put the records back as they were before.
	UndoUndone = "undone"
	// UndoRedone: Redo made the writes again after an Undo.
	UndoRedone = "redone"
)

// UndoResult is what Undo and Redo did: the group's new state and the
// records they put back.
type UndoResult struct {
	GroupID string
	State   string // UndoUndone or UndoRedone
	Records []Ref
}

// NewUndoGroup opens an Undo group for the actor's writes in a space, with a
// label people read next to its Undo button ("Create 3 tasks"); only this
// person may undo it. Open it in the transaction of the writes, so a
// rollback leaves no empty group behind.
func (s *Service) NewUndoGroup(ctx context.Context, actor Actor, spaceID, label string) (string, error) {
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return "", err
	}
	label = clip(strings.TrimSpace(label), MaxTitleLength)
	via := actor.Via
	if via == "" {
		via = ViaREST
	}
	g := storage.UndoGroup{ID: storage.NewID("undo"), SpaceID: spaceID, PersonID: actor.PersonID, Via: via,
		Label: label, State: UndoDone, CreatedAt: s.now()}
	if err := s.q(ctx).Create(&g).Error; err != nil {
		return "", fmt.Errorf("new undo group: %w", err)
	}
	return g.ID, nil
}

// WithUndo returns a Service whose writes of tasks, projects and people
// record one entry per record they change in the Undo group, with the
// record before and after, in the write's transaction. A write into a group
// of another space, or one already undone, fails with ErrConflict. An empty
// id records nothing.
func (s *Service) WithUndo(groupID string) *Service {
	c := *s
	c.undoGroup = groupID
	return &c
}

// Undo puts back exactly the records the group changed, as they were before
// it, in reverse order and in one transaction. It is refused with
// ErrConflict, naming the record, when any of them has changed since (it
// would overwrite newer work), and when the group is undone already. Only
// the group's maker may undo it (anyone else: ErrNotFound; the maker who
// may only read its space: ErrForbidden). Every restored record gets a new
// revision, so an edit made against the state Undo replaced is stale.
func (s *Service) Undo(ctx context.Context, personID, groupID string) (UndoResult, error) {
	return s.undoRedo(ctx, personID, groupID, true)
}

// Redo makes a group's writes again after Undo, with the same checks: every
// record must still be as Undo left it. Redo of a group that is not undone is
// ErrConflict.
func (s *Service) Redo(ctx context.Context, personID, groupID string) (UndoResult, error) {
	return s.undoRedo(ctx, personID, groupID, false)
}

func (s *Service) undoRedo(ctx context.Context, personID, groupID string, undo bool) (UndoResult, error) {
	verb, from, to, at, already := "redo", []string{UndoUndone}, UndoRedone, "redone_at", "it is not undone"
	if undo {
		verb, from, to, at, already = "undo", []string{UndoDone, UndoRedone}, UndoUndone, "undone_at", "it is undone already"
	}
	var out UndoResult
	err := s.InTx(ctx, func(ctx context.Context) error {
		g, err := s.undoGroupRow(ctx, personID, groupID)
		if err != nil {
			return err
		}
		if err := s.CanWrite(ctx, personID, g.SpaceID); err != nil {
			if errors.Is(err, ErrNotFound) {
				return &NotFoundError{Kind: "undo group", ID: groupID}
			}
			return err
		}
		name := "this change"
		if g.Label != "" {
			name = fmt.Sprintf("%q", g.Label)
		}
		// Moving the state first, guarded by the state read, makes two
		// concurrent Undos of one group take turns: the second is refused.
		res := s.q(ctx).Model(&storage.UndoGroup{}).Where("id = ? AND state IN ?", g.ID, from).
			Updates(map[string]any{"state": to, at: s.now()})
		refused := fmt.Errorf("cannot %s %s: %s: %w", verb, name, already, ErrConflict)
		if err := guarded(res, verb+" "+g.ID, refused); err != nil {
			return err
		}

		entries, err := s.undoEntries(ctx, g.ID)
		if err != nil {
			return err
		}
		plan, err := s.planUndo(ctx, g.SpaceID, entries)
		if err != nil {
			return err
		}
		// Check every record before writing any, so a refusal names the
		// record that changed rather than a side effect of an earlier write.
		var changed []string
		for _, r := range plan {
			want := r.last
			if !undo {
				want = r.first
			}
			if !sameSnapshot(r.cur, want) {
				changed = append(changed, describeChange(r, r.cur, want))
			}
		}
		if len(changed) > 0 {
			more := ""
			if len(changed) > 1 {
				more = fmt.Sprintf(" (and %d more)", len(changed)-1)
			}
			return fmt.Errorf("cannot %s %s: %s%s since, and %sing would overwrite that: %w",
				verb, name, changed[0], more, verb, ErrConflict)
		}

		// Undo walks the entries backward, Redo forward, so each step undoes
		// or repeats a write valid in its order (a project is back before
		// its tasks point at it again).
		actor := Actor{PersonID: personID, Via: ViaREST}
		for n := range entries {
			e, target := entries[n], entries[n].after
			if undo {
				e = entries[len(entries)-1-n]
				target = e.before
			}
			r := &plan[e.record]
			if r.cur, err = s.restore(ctx, actor, g.SpaceID, *r, target, verb, name); err != nil {
				return err
			}
		}
		out = UndoResult{GroupID: g.ID, State: to, Records: mapRows(plan, plannedRecord.ref)}
		return nil
	})
	if err != nil {
		return UndoResult{}, err
	}
	return out, nil
}

// describeChange says how a record differs from what Undo or Redo expects.
func describeChange(r plannedRecord, cur, want snapshot) string {
	switch {
	case cur == nil:
		return fmt.Sprintf("%s %q was deleted", r.kind, want.title())
	case want == nil:
		return fmt.Sprintf("%s %q was created again", r.kind, cur.title())
	}
	return fmt.Sprintf("%s %q was changed", r.kind, cur.title())
}

// memberOfGroupSpace: the person (the argument) is in the Undo group's space now.
const memberOfGroupSpace = "EXISTS (SELECT 1 FROM memberships " +
	"WHERE memberships.space_id = undo_groups.space_id AND memberships.person_id = ?)"

// undoGroupRow reads one of the person's Undo groups in a space they're in.
func (s *Service) undoGroupRow(ctx context.Context, personID, groupID string) (storage.UndoGroup, error) {
	q := s.q(ctx).Where("id = ? AND person_id = ?", groupID, personID).Where(memberOfGroupSpace, personID)
	return takeOne[storage.UndoGroup](q, &NotFoundError{Kind: "undo group", ID: groupID}, "get undo group "+groupID)
}

// undoEntry is an entry with its states decoded; record is its record's
// index in the group's plan (planUndo).
type undoEntry struct {
	kind, id      string
	before, after snapshot
	record        int
}

func (s *Service) undoEntries(ctx context.Context, groupID string) ([]undoEntry, error) {
	var rows []storage.UndoEntry
	if err := s.q(ctx).Where("group_id = ?", groupID).Order("seq").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("undo entries of %s: %w", groupID, err)
	}
	out := make([]undoEntry, len(rows))
	for i, r := range rows {
		e := undoEntry{kind: r.Kind, id: r.RecordID}
		var err error
		if e.before, err = decodeSnapshot(r.Kind, r.Before); err == nil {
			e.after, err = decodeSnapshot(r.Kind, r.After)
		}
		if err != nil {
			return nil, fmt.Errorf("undo entry %s/%d: %w", groupID, r.Seq, err)
		}
		out[i] = e
	}
	return out, nil
}

// plannedRecord is one record of a group with its state before the group's
// first write to it, after its last, and now (cur).
type plannedRecord struct {
	kind, id         string
	first, last, cur snapshot
	// maxRevision is the highest revision any of its states carried: a
	// record brought back into existence continues after it.
	maxRevision int
}

// ref names the record by its current title, else its last or first one.
func (r plannedRecord) ref() Ref {
	title := ""
	for _, st := range []snapshot{r.cur, r.last, r.first} {
		if st != nil {
			title = st.title()
			break
		}
	}
	return Ref{Kind: r.kind, ID: r.id, Label: title}
}

// planUndo folds a group's entries into one plannedRecord per record, in the
// order the group first changed them, each read as it is now; it sets the
// entries' record.
func (s *Service) planUndo(ctx context.Context, spaceID string, entries []undoEntry) ([]plannedRecord, error) {
	var plan []plannedRecord
	index := map[[2]string]int{}
	for n, e := range entries {
		i, ok := index[[2]string{e.kind, e.id}]
		if !ok {
			cur, err := s.loadSnapshot(ctx, e.kind, spaceID, e.id)
			if err != nil {
				return nil, err
			}
			i = len(plan)
			index[[2]string{e.kind, e.id}] = i
			plan = append(plan, plannedRecord{kind: e.kind, id: e.id, first: e.before, cur: cur})
		}
		entries[n].record = i
		p := &plan[i]
		p.last = e.after
		for _, st := range []snapshot{e.before, e.after} {
			if st != nil && st.revision() > p.maxRevision {
				p.maxRevision = st.revision()
			}
		}
	}
	return plan, nil
}

// recordChange records one record changed by a write: an entry in the
// Service's Undo group, if it has one, a row in the change log and a Change
// for subscribers, all in the write's transaction.
func (s *Service) recordChange(ctx context.Context, actor Actor, spaceID string, before, after snapshot) error {
	st := after
	if st == nil {
		st = before
	}
	kind, id := st.kind(), st.recordID()
	if s.undoGroup != "" {
		if err := s.addUndoEntry(ctx, spaceID, kind, id, before, after); err != nil {
			return err
		}
	}
	op := OpUpdated
	switch {
	case before == nil:
		op = OpCreated
	case after == nil:
		op = OpDeleted
	}
	if actor.Via == "" {
		actor.Via = ViaREST
	}
	c := Change{Kind: kind, ID: id, SpaceID: spaceID, Op: op, Actor: actor, Title: st.title()}
	if err := s.logChange(ctx, c); err != nil {
		return err
	}
	s.notify(ctx, c)
	return nil
}

func (s *Service) addUndoEntry(ctx context.Context, spaceID, kind, id string, before, after snapshot) error {
	// Bumping the count takes the group's row lock: writers of one group
	// take turns, and each gets the next seq, which the update returns.
	var seqs []int
	err := s.q(ctx).Raw(`UPDATE undo_groups SET entry_count = entry_count + 1 WHERE id = ? AND space_id = ? AND state = ? RETURNING entry_count`,
		s.undoGroup, spaceID, UndoDone).Scan(&seqs).Error
	if err != nil {
		return fmt.Errorf("undo group %s: %w", s.undoGroup, err)
	}
	if len(seqs) == 0 {
		return fmt.Errorf("undo group %s does not take writes in space %s (unknown, of another space, or undone): %w",
			s.undoGroup, spaceID, ErrConflict)
	}
	e := storage.UndoEntry{GroupID: s.undoGroup, Seq: seqs[0], Kind: kind, RecordID: id, CreatedAt: s.now()}
	if e.Before, err = encodeSnapshot(before); err != nil {
		return err
	}
	if e.After, err = encodeSnapshot(after); err != nil {
		return err
	}
	if err := s.q(ctx).Create(&e).Error; err != nil {
		return fmt.Errorf("undo entry for %s %s: %w", kind, id, err)
	}
	return nil
}

// UndoStates returns the state of each of the person's Undo groups among
// ids, read at once. An id of another person's group, of a space the
// person left, or of none, is left out (as Undo refuses it).
func (s *Service) UndoStates(ctx context.Context, personID string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		var rows []storage.UndoGroup
		if err := s.q(ctx).Select("id", "state").Where("person_id = ? AND id IN ?", personID, ids[:n]).
			Where(memberOfGroupSpace, personID).Find(&rows).Error; err != nil {
			return nil, fmt.Errorf("undo states: %w", err)
		}
		for _, g := range rows {
			out[g.ID] = g.State
		}
		ids = ids[n:]
	}
	return out, nil
}
