package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// recordKind is what differs between the records kept with revisions, the
// change log and Undo (tasks and projects: row R, domain type T), so one
// piece of code lists, changes and restores both.
type recordKind[R, T any] struct {
	kind     string   // KindTask or KindProject
	statuses []string // the values its status may take
	// titleColumn is what a list's query searches; order is the lists' order.
	titleColumn, order string
	columns            []string // what a change writes (saveRevision)
	state              func(R) snapshot
	to                 func(R) T
	stamps             func(*R) (revision *int, updatedAt *time.Time)
}

var (
	taskRecords = recordKind[storage.Task, Task]{kind: KindTask, statuses: TaskStatuses, titleColumn: "title",
		order: "created_at, id", columns: []string{"title", "status", "due_date", "priority", "project_id", "assignee_id"},
		state: taskState, to: toTask, stamps: func(r *storage.Task) (*int, *time.Time) { return &r.Revision, &r.UpdatedAt }}
	projectRecords = recordKind[storage.Project, Project]{kind: KindProject, statuses: ProjectStatuses, titleColumn: "name",
		order: "name, id", columns: []string{"name", "status", "description"}, state: projectState, to: toProject,
		stamps: func(r *storage.Project) (*int, *time.Time) { return &r.Revision, &r.UpdatedAt }}
)

func (k recordKind[R, T]) row(ctx context.Context, s *Service, spaceID, id string) (R, error) {
	return spaceRow[R](ctx, s, k.kind, k.kind, spaceID, id)
}

// get reads one record of a space the person can open.
func (k recordKind[R, T]) get(ctx context.Context, s *Service, actor Actor, spaceID, id string) (T, error) {
	var t T
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return t, err
	}
	r, err := k.row(ctx, s, spaceID, id)
	if err != nil {
		return t, err
	}
	return k.to(r), nil
}

// spaceRow reads the row R of the space with the id: none, or an id no row
// can have, is a *NotFoundError of kind; what names it in other errors.
func spaceRow[R any](ctx context.Context, s *Service, kind, what, spaceID, id string) (R, error) {
	if BadText(id) {
		var r R
		return r, &NotFoundError{Kind: kind, ID: id}
	}
	q := s.q(ctx).Where("space_id = ? AND id = ?", spaceID, id)
	return takeOne[R](q, &NotFoundError{Kind: kind, ID: id}, "get "+what+" "+id)
}

// takeOne reads the one row q matches: none is notFound.
func takeOne[R any](q *gorm.DB, notFound error, what string) (R, error) {
	var r R
	err := q.Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return r, notFound
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", what, err)
	}
	return r, nil
}

// list reads a page of the space's records with the status (any: "") whose
// title contains every word of query, and whose columns equal the values
// given as {column, value} ("" asks nothing).
func (k recordKind[R, T]) list(ctx context.Context, s *Service, actor Actor, spaceID, status, query string, limit, offset int,
	equal ...[2]string) (page []T, total int64, next int, err error) {
	if _, err := s.Access(ctx, actor.PersonID, spaceID); err != nil {
		return nil, 0, 0, err
	}
	if status != "" && !slices.Contains(k.statuses, status) {
		return nil, 0, 0, invalid("/status", "status must be one of %s", strings.Join(k.statuses, ", "))
	}
	if limit, err = pageLimit(limit, offset); err != nil {
		return nil, 0, 0, err
	}
	matching := func() *gorm.DB {
		q := s.q(ctx).Model(new(R)).Where("space_id = ?", spaceID)
		if status != "" {
			q = q.Where("status = ?", status)
		}
		for _, e := range equal {
			if e[1] != "" {
				q = q.Where(e[0]+" = ?", e[1])
			}
		}
		// The database lowers both sides: Go's ToLower on the words alone would
		// turn "Öl" into "öl", which an engine whose LOWER knows only ASCII
		// (SQLite, Postgres in the C locale) never finds in "Öl".
		for _, w := range strings.Fields(query) {
			q = q.Where(s.containsWord(k.titleColumn), "%"+escapeLike(w)+"%")
		}
		return q
	}
	var rows []R
	if err := matching().Order(k.order).Limit(limit).Offset(offset).Find(&rows).Error; err != nil {
		return nil, 0, 0, fmt.Errorf("list %ss: %w", k.kind, err)
	}
	if total, err = pageTotal(matching(), offset, limit, len(rows)); err != nil {
		return nil, 0, 0, fmt.Errorf("list %ss: %w", k.kind, err)
	}
	return mapRows(rows, k.to), total, nextOffset(offset, len(rows), total), nil
}

// create adds new records to the space, all or none, each recorded as
// created (recordChange); the caller has checked the person may write.
func (k recordKind[R, T]) create(ctx context.Context, s *Service, actor Actor, spaceID string, rows []R) ([]T, error) {
	err := s.InTx(ctx, func(ctx context.Context) error {
		if err := s.q(ctx).Create(&rows).Error; err != nil {
			return fmt.Errorf("create %ss: %w", k.kind, err)
		}
		for _, r := range rows {
			if err := s.recordChange(ctx, actor, spaceID, nil, k.state(r)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return mapRows(rows, k.to), nil
}

// update changes a record for a person who may write in the space. A patch
// that changes nothing (empty) is refused with the message nothing: a new
// revision without a change would make others' next save a conflict. apply
// checks the patch and copies it onto the row.
func (k recordKind[R, T]) update(ctx context.Context, s *Service, actor Actor, spaceID, id string,
	empty bool, nothing string, revision *int, apply func(*R) error) (T, error) {
	var t T
	if err := s.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return t, err
	}
	r, err := k.row(ctx, s, spaceID, id)
	if err != nil {
		return t, err
	}
	if empty {
		return t, invalid("", "%s", nothing)
	}
	before := k.state(r)
	if err := checkRevision(k.kind, before.title(), before.revision(), revision); err != nil {
		return t, err
	}
	if err := apply(&r); err != nil {
		return t, err
	}
	err = s.InTx(ctx, func(ctx context.Context) error {
		if err := k.save(ctx, s, &r); err != nil {
			return err
		}
		return s.recordChange(ctx, actor, spaceID, before, k.state(r))
	})
	if err != nil {
		return t, err
	}
	return k.to(r), nil
}

// save writes the record's columns, guarded by its revision (saveRevision).
func (k recordKind[R, T]) save(ctx context.Context, s *Service, r *R) error {
	st := k.state(*r)
	revision, _ := k.stamps(r)
	return s.saveRevision(ctx, k.kind, st.title(), st.recordID(), r, revision, k.columns...)
}

// restore makes the record r for Undo or Redo: inserted at revision when
// it no longer exists (cur nil), else saved over cur with the next one.
func (k recordKind[R, T]) restore(ctx context.Context, s *Service, cur snapshot, r R, revision int) (snapshot, error) {
	rev, updatedAt := k.stamps(&r)
	*updatedAt = s.now()
	if cur != nil {
		*rev = cur.revision()
		if err := k.save(ctx, s, &r); err != nil {
			return nil, err
		}
		return k.state(r), nil
	}
	*rev = revision
	if err := s.q(ctx).Create(&r).Error; err != nil {
		return nil, fmt.Errorf("restore %s %s: %w", k.kind, k.state(r).recordID(), err)
	}
	return k.state(r), nil
}

// mapRows converts each row with to.
func mapRows[R, T any](rows []R, to func(R) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = to(r)
	}
	return out
}

// checkRevision refuses a change made against an older revision than the
// record's current one, instead of overwriting newer work.
func checkRevision(kind, title string, current int, expected *int) error {
	if expected != nil && *expected != current {
		return fmt.Errorf("%s %q is at revision %d, not %d: someone changed it since; read it again: %w",
			kind, title, current, *expected, ErrStale)
	}
	return nil
}

// saveRevision writes the columns of a changed row guarded by the revision
// it was read at, and bumps it: of two racing updates, one is ErrStale.
func (s *Service) saveRevision(ctx context.Context, kind, title, id string, row any, revision *int, columns ...string) error {
	prev := *revision
	*revision = prev + 1
	res := s.q(ctx).Model(row).Where("id = ? AND revision = ?", id, prev).
		Select(append(columns, "revision", "updated_at")).Updates(row)
	return guarded(res, "update "+kind+" "+id, changedMeanwhile(kind, title, "updated"))
}

// guarded is the error of a write guarded by what it read (a revision, a
// state): its own, wrapped with what, or none when it matched no row.
func guarded(res *gorm.DB, what string, none error) error {
	if res.Error != nil {
		return fmt.Errorf("%s: %w", what, res.Error)
	}
	if res.RowsAffected == 0 {
		return none
	}
	return nil
}

// changedMeanwhile is ErrStale for a record that changed while it was being
// updated or deleted (done).
func changedMeanwhile(kind, title, done string) error {
	return fmt.Errorf("%s %q changed while it was being %s; read it again: %w", kind, title, done, ErrStale)
}

// containsWord is the condition that column contains a search word (a LIKE
// pattern) in any case: on SQLite with storage.UnicodeLower, since SQLite's
// own lower() folds only ASCII.
func (s *Service) containsWord(column string) string {
	lower := "LOWER"
	if s.root.Dialect != storage.Postgres {
		lower = storage.UnicodeLower
	}
	return fmt.Sprintf(`%[1]s(%[2]s) LIKE %[1]s(CAST(? AS TEXT)) ESCAPE '\'`, lower, column)
}

// escapeLike makes % and _ in a search word match themselves.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// pageTotal is the total of a list whose page at offset came back with rows
// of limit: a page that is not full ends the list, so only a full page, or
// an empty one past the end, counts with matching (the list's conditions).
// count(*) OVER () would sort every match per page (387 ms vs 13 ms).
func pageTotal(matching *gorm.DB, offset, limit, rows int) (int64, error) {
	if rows < limit && (rows > 0 || offset == 0) {
		return int64(offset + rows), nil
	}
	var n int64
	if err := matching.Count(&n).Error; err != nil {
		return 0, err
	}
	return n, nil
}

// nextOffset is where the next page starts; 0 when there is none.
func nextOffset(offset, rows int, total int64) int {
	if next := offset + rows; int64(next) < total {
		return next
	}
	return 0
}

// pageLimit checks a list's paging and returns the limit to use: 0 means
// DefaultListLimit, and more than MaxListLimit is MaxListLimit (a client
// asking for much gets the most one page holds, not an error).
func pageLimit(limit, offset int) (int, error) {
	switch {
	case limit < 0:
		return 0, invalid("/limit", "limit must not be negative")
	case offset < 0:
		return 0, invalid("/offset", "offset must not be negative")
	case limit == 0:
		return DefaultListLimit, nil
	}
	return min(limit, MaxListLimit), nil
}
