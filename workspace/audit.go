package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// What a space's audit log records: changes of who may reach what — its
// connected apps, its settings, its people — never of its records (those
// are in the change log and Undo).
const (
	AuditConnection    = "connection"
	AuditSpaceSettings = "space_settings"
	AuditPerson        = "person"
)

// The actions of an audit event.
const (
	AuditCreated = "created"
	AuditUpdated = "updated"
	AuditDeleted = "deleted"
)

// AuditEvent is one entry of a space's audit log.
type AuditEvent struct {
	ID        string
	SpaceID   string
	ActorID   string
	ActorName string
	// Via is ViaREST or ViaAssistant (an applied assistant call).
	Via      string
	Kind     string
	Action   string
	TargetID string
	// Summary says what changed in a line people read.
	Summary string
	// Changes are the fields that changed, before and after; a secret is only
	// "set" or "removed".
	Changes map[string]any
	At      time.Time
}

// AuditPage is a page of a space's audit log, newest first. Before is the
// id to ask for the next (older) page with; empty at the end.
type AuditPage struct {
	Events []AuditEvent
	Before string
}

// audit records an event in the same transaction as its change (s is the
// transaction's Service); spaceID "" records one of Hub as a whole.
func (s *Service) audit(ctx context.Context, actor Actor, spaceID, kind, action, targetID, summary string, changes map[string]any) error {
	if changes == nil {
		changes = map[string]any{}
	}
	b, err := json.Marshal(changes)
	if err != nil {
		return fmt.Errorf("audit %s %s: %w", kind, action, err)
	}
	row := storage.AuditEvent{ID: storage.NewID("audit"), SpaceID: spaceID, ActorID: actor.PersonID, Via: actor.Via, Kind: kind,
		Action: action, TargetID: targetID, Summary: CleanText(summary), Changes: string(b), CreatedAt: s.now()}
	q := s.q(ctx)
	if spaceID == "" {
		q = q.Omit("SpaceID") // NULL: an event of Hub as a whole (HubAudit)
	}
	if err := q.Create(&row).Error; err != nil {
		return fmt.Errorf("audit %s %s: %w", kind, action, err)
	}
	return nil
}

// RecordSettingsChange records a change of the space's settings made
// elsewhere (the budget lives in package usage): what changed, before and
// after.
func (s *Service) RecordSettingsChange(ctx context.Context, actor Actor, spaceID, summary string, changes map[string]any) error {
	return s.audit(ctx, actor, spaceID, AuditSpaceSettings, AuditUpdated, spaceID, summary, changes)
}

// Audit returns a page of the space's audit log, newest first, for an
// owner (anyone else in the space: ErrForbidden; anyone outside it:
// ErrNotFound). limit is 1 to MaxListLimit (0: 50); before, an event id
// from the previous page, asks for the events older than it.
func (s *Service) Audit(ctx context.Context, actor Actor, spaceID string, limit int, before string) (AuditPage, error) {
	role, err := s.Access(ctx, actor.PersonID, spaceID)
	if err != nil {
		return AuditPage{}, err
	}
	if role != RoleOwner {
		return AuditPage{}, fmt.Errorf("only an owner reads the space's audit log: %w", ErrForbidden)
	}
	switch {
	case limit == 0:
		limit = 50
	case limit < 1 || limit > MaxListLimit:
		return AuditPage{}, invalid("/limit", "limit is 1 to %d", MaxListLimit)
	}
	q := s.q(ctx).Where("audit_events.space_id = ?", spaceID)
	if before != "" {
		var from storage.AuditEvent
		err := s.q(ctx).Where("space_id = ? AND id = ?", spaceID, before).Take(&from).Error
		if errors.Is(err, gorm.ErrRecordNotFound) || BadText(before) {
			return AuditPage{}, invalid("/before", "before is the id of an event of this space's log")
		}
		if err != nil {
			return AuditPage{}, fmt.Errorf("read audit event %s: %w", before, err)
		}
		q = q.Where("audit_events.created_at < ? OR (audit_events.created_at = ? AND audit_events.id < ?)",
			from.CreatedAt, from.CreatedAt, from.ID)
	}
	events, err := auditEvents(q, limit+1)
	if err != nil {
		return AuditPage{}, fmt.Errorf("read the audit log of %s: %w", spaceID, err)
	}
	page := AuditPage{Events: events}
	if len(events) > limit {
		page.Events, page.Before = events[:limit], events[limit-1].ID
	}
	return page, nil
}

// auditEvents reads the events q selects, newest first, with actors' names.
func auditEvents(q *gorm.DB, limit int) ([]AuditEvent, error) {
	var rows []struct {
		storage.AuditEvent
		ActorName string
	}
	err := q.Table("audit_events").Select("audit_events.*, people.name AS actor_name").
		Joins("LEFT JOIN people ON people.id = audit_events.actor_id").
		Order("audit_events.created_at DESC, audit_events.id DESC").Limit(limit).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make([]AuditEvent, len(rows))
	for i, r := range rows {
		out[i] = AuditEvent{ID: r.ID, SpaceID: r.SpaceID, ActorID: r.ActorID, ActorName: r.ActorName, Via: r.Via, Kind: r.Kind,
			Action: r.Action, TargetID: r.TargetID, Summary: r.Summary, At: r.CreatedAt, Changes: map[string]any{}}
		_ = json.Unmarshal([]byte(r.Changes), &out[i].Changes) // written by audit; a bad one reads as none
	}
	return out, nil
}

// personChanges are the fields that differ between two person snapshots.
func personChanges(before, after snapshot) map[string]any {
	b, okB := before.(*personSnapshot)
	a, okA := after.(*personSnapshot)
	out := map[string]any{}
	if !okB || !okA {
		return out
	}
	for field, pair := range map[string][2]string{"role": {b.Role, a.Role}, "name": {b.Name, a.Name}, "firstName": {b.FirstName, a.FirstName}} {
		if pair[0] != pair[1] {
			out[field] = map[string]any{"before": pair[0], "after": pair[1]}
		}
	}
	return out
}
