package workspace

import (
	"context"
	"fmt"
)

// checkRevision refuses a change made against an older revision than the
// record's current one, instead of overwriting newer work.
func checkRevision(kind, title string, current int, expected *int) error {
	if expected != nil && *expected != current {
		return fmt.Errorf("%s %q is at revision %d, not %d: someone changed it since; read it again: %w",
			kind, title, current, *expected, ErrStale)
	}
	return nil
}

// saveRevision writes the columns of a changed row whose revision was
// *revision when it was read, and bumps it. The write is guarded by that
// revision, so of two updates racing from the same read one wins and the
// other is ErrStale.
func (s *Service) saveRevision(ctx context.Context, kind, title, id string, row any, revision *int, columns ...string) error {
	prev := *revision
	*revision = prev + 1
	res := s.q(ctx).Model(row).Where("id = ? AND revision = ?", id, prev).
		Select(append(columns, "revision", "updated_at")).Updates(row)
	if res.Error != nil {
		return fmt.Errorf("update %s %s: %w", kind, id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("%s %q changed while it was being updated; read it again: %w", kind, title, ErrStale)
	}
	return nil
}
