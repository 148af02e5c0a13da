package workspace

import (
	"context"
	"fmt"
	"slices"
	"time"

	"hub/storage"
)

// ChangeLogRetention is how long the change log keeps a change: a person
// back in a conversation after a month is told about changes since then no
// more (docs/decisions.md, "What changed meanwhile").
const ChangeLogRetention = 30 * 24 * time.Hour

// logChange writes a committed-to-be change to the change log, in the
// write's transaction: the in-process subscribers reach only this process
// and forget everything on a restart, the log reaches every process.
func (s *Service) logChange(ctx context.Context, c Change) error {
	row := storage.RecordChange{ID: storage.NewID("chg"), SpaceID: c.SpaceID, Kind: c.Kind, RecordID: c.ID, Op: c.Op,
		ActorID: c.Actor.PersonID, Via: c.Actor.Via, Title: c.Title, CreatedAt: s.now().UTC()}
	if err := s.q(ctx).Create(&row).Error; err != nil {
		return fmt.Errorf("log change of %s %s: %w", c.Kind, c.ID, err)
	}
	return nil
}

// ChangedRecord is a record someone other than the reader changed in a
// window of time: the last change's title and what it did, and who.
type ChangedRecord struct {
	Kind, ID, SpaceID string
	Title             string
	// Op is the last change's (OpCreated, OpUpdated, OpDeleted).
	Op string
	// By are the names of the people who changed it, first to change first.
	By []string
	At time.Time // the last change
}

// ChangedByOthers lists the records among ids, in the spaces the person can
// open now among spaceIDs, that anyone but the person changed after after
// and up to until, the most recently changed first. It reads the change
// log, so it sees changes made through any process, before a restart too.
func (s *Service) ChangedByOthers(ctx context.Context, personID string, spaceIDs, ids []string, after, until time.Time) ([]ChangedRecord, error) {
	if len(ids) == 0 || len(spaceIDs) == 0 || !until.After(after) {
		return nil, nil
	}
	var rows []struct {
		storage.RecordChange
		ActorName string
	}
	err := s.q(ctx).Table("record_changes").
		Select("record_changes.*, people.name AS actor_name").
		Joins("LEFT JOIN people ON people.id = record_changes.actor_id").
		Where("record_changes.space_id IN ? AND record_changes.record_id IN ?", spaceIDs, ids).
		Where("record_changes.actor_id <> ? AND record_changes.created_at > ? AND record_changes.created_at <= ?",
			personID, after.UTC(), until.UTC()).
		Where("EXISTS (SELECT 1 FROM memberships WHERE memberships.space_id = record_changes.space_id AND memberships.person_id = ?)", personID).
		Order("record_changes.created_at, record_changes.id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("changes since %s: %w", after.Format(time.RFC3339), err)
	}
	byRecord := map[string]int{}
	var out []ChangedRecord
	for _, r := range rows {
		k := r.Kind + "/" + r.RecordID
		i, ok := byRecord[k]
		if !ok {
			i = len(out)
			byRecord[k] = i
			out = append(out, ChangedRecord{Kind: r.Kind, ID: r.RecordID, SpaceID: r.SpaceID})
		}
		c := &out[i]
		c.Title, c.Op, c.At = r.Title, r.Op, r.CreatedAt
		name := r.ActorName
		if name == "" {
			name = "someone"
		}
		if !slices.Contains(c.By, name) {
			c.By = append(c.By, name)
		}
	}
	// Most recent first: a note cut to its first lines keeps the newest.
	slices.SortStableFunc(out, func(a, b ChangedRecord) int { return b.At.Compare(a.At) })
	return out, nil
}

// DeleteChangesBefore sweeps the change log of changes older than cutoff.
func (s *Service) DeleteChangesBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	res := s.q(ctx).Where("created_at < ?", cutoff.UTC()).Delete(&storage.RecordChange{})
	if res.Error != nil {
		return 0, fmt.Errorf("sweep change log: %w", res.Error)
	}
	return res.RowsAffected, nil
}
