package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// Limits of an agent's schedules.
const (
	// MaxSchedules bounds one agent's schedules: each is a Temporal
	// Schedule that Hub describes when they are listed.
	MaxSchedules = 20
	// MaxScheduleValues bounds each of a calendar's lists.
	MaxScheduleValues = 60
	// MaxScheduleAhead is how far ahead a one-off run may be set, and
	// MinScheduleLead how soon: Temporal never fires a time it made the
	// schedule after.
	MaxScheduleAhead = 366 * 24 * time.Hour
	MinScheduleLead  = 5 * time.Second
)

// How a schedule treats a firing while its last run still works, and the
// writes of its turns.
const (
	OverlapSkip      = "skip"       // the firing is skipped
	OverlapBufferOne = "buffer_one" // one firing waits for the run to end; more are skipped
	WritesApply      = "apply"      // writes wait on the Needs me list for the owner's Apply
	WritesImmediate  = "immediate"  // writes run at once, with Undo
)

// ScheduleSpec is when a schedule fires: exactly one of Cron, Calendar and At.
type ScheduleSpec struct {
	// Cron is five fields (minute hour day-of-month month day-of-week) or
	// @hourly, @daily, @weekly, @monthly, @yearly.
	Cron string `json:"cron,omitempty"`
	// Calendar lists the values each field may take; an absent list is
	// every day, month or weekday, and minute or hour 0.
	Calendar *ScheduleCalendar `json:"calendar,omitempty"`
	// At is one run at that time.
	At *time.Time `json:"at,omitempty"`
}

// ScheduleCalendar is a calendar's fields; DayOfWeek counts from Sunday, 0.
type ScheduleCalendar struct {
	Minute     []int `json:"minute,omitempty"`
	Hour       []int `json:"hour,omitempty"`
	DayOfMonth []int `json:"dayOfMonth,omitempty"`
	Month      []int `json:"month,omitempty"`
	DayOfWeek  []int `json:"dayOfWeek,omitempty"`
}

// Schedule is what Hub keeps of an agent's schedule: the work its firings
// start as turns of the agent in its conversation. When it fires and
// whether it is paused live in its Temporal Schedule.
type Schedule struct {
	ID             string
	AgentID        string
	OwnerID        string
	ConversationID string
	Text           string
	Spec           ScheduleSpec
	TimeZone       string
	Overlap        string
	Writes         string
	// HeldByAgent: paused because the agent was switched off; switching
	// it on again unpauses it.
	HeldByAgent bool
	CreatedAt   time.Time
}

func toSchedule(r storage.AgentSchedule) Schedule {
	var spec ScheduleSpec
	_ = json.Unmarshal([]byte(r.Spec), &spec) // written by SaveSchedule
	return Schedule{ID: r.ID, AgentID: r.AgentID, OwnerID: r.OwnerID, ConversationID: r.ConversationID, Text: r.Text, Spec: spec,
		TimeZone: r.TimeZone, Overlap: r.Overlap, Writes: r.Writes, HeldByAgent: r.HeldByAgent, CreatedAt: r.CreatedAt}
}

// cronField is what one cron field may hold; Temporal's parser checks the
// rest and its refusal is the caller's error too.
var cronField = regexp.MustCompile(`^[0-9A-Za-z*,/\-?]+$`)

var cronShorthands = []string{"@hourly", "@daily", "@weekly", "@monthly", "@yearly"}

// CheckSchedule checks and completes a new schedule's spec, time zone,
// overlap and writes (defaults: UTC, skip, apply); now bounds a one-off
// run. A firing at most once a minute is what a cron or calendar can ask
// for: a spec has no seconds.
func CheckSchedule(sc *Schedule, now time.Time) error {
	spec := &sc.Spec
	set := 0
	for _, ok := range []bool{strings.TrimSpace(spec.Cron) != "", spec.Calendar != nil, spec.At != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return invalid("/spec", "a schedule's spec is one of cron, calendar or at")
	}
	switch {
	case spec.Cron != "":
		spec.Cron = strings.TrimSpace(spec.Cron)
		fields := strings.Fields(spec.Cron)
		switch {
		case len(spec.Cron) > 100:
			return invalid("/spec/cron", "a cron expression has at most 100 characters")
		case len(fields) == 1 && strings.HasPrefix(spec.Cron, "@"):
			if !slices.Contains(cronShorthands, spec.Cron) {
				return invalid("/spec/cron", "the shorthands are %s", strings.Join(cronShorthands, ", "))
			}
		case len(fields) != 5:
			return invalid("/spec/cron", "a cron expression has five fields: minute hour day-of-month month day-of-week (the time zone is timeZone)")
		}
		for _, f := range fields {
			if !strings.HasPrefix(f, "@") && !cronField.MatchString(f) {
				return invalid("/spec/cron", "cron field %q holds numbers, names, *, ranges (1-5), lists (1,3) and steps (*/15) only", f)
			}
		}
		spec.Cron = strings.Join(fields, " ")
	case spec.Calendar != nil:
		c := spec.Calendar
		for _, f := range []struct {
			path     string
			vals     []int
			min, max int
		}{{"minute", c.Minute, 0, 59}, {"hour", c.Hour, 0, 23}, {"dayOfMonth", c.DayOfMonth, 1, 31}, {"month", c.Month, 1, 12},
			{"dayOfWeek", c.DayOfWeek, 0, 6}} {
			if len(f.vals) > MaxScheduleValues {
				return invalid("/spec/calendar/"+f.path, "at most %d values", MaxScheduleValues)
			}
			for i, v := range f.vals {
				if v < f.min || v > f.max {
					return invalid(fmt.Sprintf("/spec/calendar/%s/%d", f.path, i), "%s is from %d to %d, not %d", f.path, f.min, f.max, v)
				}
			}
		}
	default:
		at := spec.At.UTC().Truncate(time.Second)
		if at.Sub(now) < MinScheduleLead || at.Sub(now) > MaxScheduleAhead {
			return invalid("/spec/at", "a one-off run is set for a time from %s from now to a year ahead", MinScheduleLead)
		}
		spec.At = &at
	}
	sc.TimeZone = strings.TrimSpace(sc.TimeZone)
	if sc.TimeZone == "" {
		sc.TimeZone = "UTC"
	}
	if BadText(sc.TimeZone) || len(sc.TimeZone) > 64 {
		return invalid("/timeZone", "timeZone is an IANA time zone name such as Europe/Berlin")
	}
	if _, err := time.LoadLocation(sc.TimeZone); err != nil || strings.EqualFold(sc.TimeZone, "local") {
		return invalid("/timeZone", "%q is not an IANA time zone name such as Europe/Berlin", sc.TimeZone)
	}
	if sc.Overlap == "" {
		sc.Overlap = OverlapSkip
	}
	if sc.Overlap != OverlapSkip && sc.Overlap != OverlapBufferOne {
		return invalid("/overlap", "overlap is skip or buffer_one")
	}
	if sc.Writes == "" {
		sc.Writes = WritesApply
	}
	if sc.Writes != WritesApply && sc.Writes != WritesImmediate {
		return invalid("/writes", "writes is apply (they wait for the owner's Apply on the Needs me list) or immediate")
	}
	return nil
}

// SaveSchedule saves a checked schedule of one of the owner's agents (in
// the transaction ctx carries, if any), at most MaxSchedules an agent.
func (s *Service) SaveSchedule(ctx context.Context, sc Schedule) (Schedule, error) {
	spec, err := json.Marshal(sc.Spec)
	if err != nil {
		return Schedule{}, fmt.Errorf("save schedule: %w", err)
	}
	r := storage.AgentSchedule{ID: storage.NewID("sched"), AgentID: sc.AgentID, OwnerID: sc.OwnerID, ConversationID: sc.ConversationID,
		Text: sc.Text, Spec: string(spec), TimeZone: sc.TimeZone, Overlap: sc.Overlap, Writes: sc.Writes, HeldByAgent: sc.HeldByAgent,
		CreatedAt: s.now()}
	err = s.InTx(ctx, func(ctx context.Context) error {
		res := s.q(ctx).Model(&storage.Agent{}).Where("id = ? AND owner_id = ?", sc.AgentID, sc.OwnerID).UpdateColumn("id", gorm.Expr("id"))
		if res.Error != nil {
			return fmt.Errorf("save schedule: %w", res.Error)
		}
		if res.RowsAffected == 0 { // deleted meanwhile
			return agentNotFound()
		}
		var n int64
		if err := s.q(ctx).Model(&storage.AgentSchedule{}).Where("agent_id = ?", sc.AgentID).Count(&n).Error; err != nil {
			return fmt.Errorf("save schedule: %w", err)
		}
		if n >= MaxSchedules {
			return fmt.Errorf("this agent has %d schedules, the most one keeps; delete one first: %w", n, ErrConflict)
		}
		return s.q(ctx).Create(&r).Error
	})
	if err != nil {
		return Schedule{}, err
	}
	return toSchedule(r), nil
}

// ListSchedules returns the schedules of one of the owner's agents, oldest first.
func (s *Service) ListSchedules(ctx context.Context, ownerID, agentID string) ([]Schedule, error) {
	if _, err := s.agentRow(ctx, ownerID, agentID); err != nil {
		return nil, err
	}
	var rows []storage.AgentSchedule
	if err := s.q(ctx).Where("agent_id = ? AND owner_id = ?", agentID, ownerID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	return mapRows(rows, toSchedule), nil
}

// GetSchedule returns one schedule of the owner's agent (another's: ErrNotFound).
func (s *Service) GetSchedule(ctx context.Context, ownerID, agentID, id string) (Schedule, error) {
	if BadText(id) || BadText(agentID) {
		return Schedule{}, scheduleNotFound(id)
	}
	r, err := takeOne[storage.AgentSchedule](s.q(ctx).Where("id = ? AND agent_id = ? AND owner_id = ?", id, agentID, ownerID),
		scheduleNotFound(id), "get schedule "+id)
	return toSchedule(r), err
}

// FiringSchedule returns a schedule by id alone, for its firing, which
// runs as no request's person (gone: ErrNotFound).
func (s *Service) FiringSchedule(ctx context.Context, id string) (Schedule, error) {
	r, err := takeOne[storage.AgentSchedule](s.q(ctx).Where("id = ?", id), scheduleNotFound(id), "get schedule "+id)
	return toSchedule(r), err
}

// HoldSchedule records whether the schedule is paused because its agent
// was switched off.
func (s *Service) HoldSchedule(ctx context.Context, id string, held bool) error {
	if err := s.q(ctx).Model(&storage.AgentSchedule{}).Where("id = ?", id).Update("held_by_agent", held).Error; err != nil {
		return fmt.Errorf("hold schedule %s: %w", id, err)
	}
	return nil
}

// DeleteSchedule removes one schedule's row (its Temporal Schedule is the caller's).
func (s *Service) DeleteSchedule(ctx context.Context, ownerID, id string) error {
	if err := s.q(ctx).Delete(&storage.AgentSchedule{}, "id = ? AND owner_id = ?", id, ownerID).Error; err != nil {
		return fmt.Errorf("delete schedule %s: %w", id, err)
	}
	return nil
}

func scheduleNotFound(id string) error { return &NotFoundError{Kind: "schedule", ID: id} }
