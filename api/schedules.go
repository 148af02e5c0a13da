package api

import (
	"time"

	"github.com/gin-gonic/gin"

	"hub/turns"
	"hub/workspace"
)

// scheduleSpecDTO is when a schedule fires: exactly one of its fields.
type scheduleSpecDTO struct {
	Cron     string               `json:"cron,omitempty" doc:"Five fields: minute hour day-of-month month day-of-week (e.g. \"0 9 * * 1-5\"), or @hourly, @daily, @weekly, @monthly, @yearly; read in timeZone."`
	Calendar *scheduleCalendarDTO `json:"calendar,omitempty" doc:"The values each field may take, read in timeZone."`
	At       *time.Time           `json:"at,omitempty" doc:"One run at this time (within the coming year)."`
}

type scheduleCalendarDTO struct {
	Minute     []int `json:"minute,omitempty" doc:"0-59; absent: 0."`
	Hour       []int `json:"hour,omitempty" doc:"0-23; absent: 0."`
	DayOfMonth []int `json:"dayOfMonth,omitempty" doc:"1-31; absent: every day."`
	Month      []int `json:"month,omitempty" doc:"1-12; absent: every month."`
	DayOfWeek  []int `json:"dayOfWeek,omitempty" doc:"0-6, Sunday 0; absent: every day of the week."`
}

// scheduleSpecRequest is scheduleSpecDTO as a request sends it.
type scheduleSpecRequest struct {
	Cron     string                   `json:"cron" doc:"Five fields: minute hour day-of-month month day-of-week (e.g. \"0 9 * * 1-5\"), or @hourly, @daily, @weekly, @monthly, @yearly; read in timeZone."`
	Calendar *scheduleCalendarRequest `json:"calendar" doc:"The values each field may take, read in timeZone."`
	At       *time.Time               `json:"at" doc:"One run at this time (within the coming year)."`
}

type scheduleCalendarRequest scheduleCalendarDTO

func (d scheduleSpecRequest) spec() workspace.ScheduleSpec {
	out := workspace.ScheduleSpec{Cron: d.Cron, At: d.At}
	if c := d.Calendar; c != nil {
		out.Calendar = &workspace.ScheduleCalendar{Minute: c.Minute, Hour: c.Hour, DayOfMonth: c.DayOfMonth, Month: c.Month, DayOfWeek: c.DayOfWeek}
	}
	return out
}

func toScheduleSpecDTO(s workspace.ScheduleSpec) scheduleSpecDTO {
	out := scheduleSpecDTO{Cron: s.Cron, At: s.At}
	if c := s.Calendar; c != nil {
		out.Calendar = &scheduleCalendarDTO{Minute: c.Minute, Hour: c.Hour, DayOfMonth: c.DayOfMonth, Month: c.Month, DayOfWeek: c.DayOfWeek}
	}
	return out
}

// scheduleDTO is one of an agent's schedules (turns.ScheduleView).
type scheduleDTO struct {
	ID             string           `json:"id"`
	AgentID        string           `json:"agentId"`
	ConversationID string           `json:"conversationId" doc:"The agent's conversation every firing's turn goes to."`
	Text           string           `json:"text" doc:"The work each firing asks of the agent, as a message from its owner."`
	Spec           scheduleSpecDTO  `json:"spec"`
	TimeZone       string           `json:"timeZone"`
	Overlap        string           `json:"overlap" doc:"skip: a firing while the last one's turn still works is skipped; buffer_one: one waits for it."`
	Writes         string           `json:"writes" doc:"apply: the turn's writes wait on the owner's Needs me list for Apply; immediate: they run at once, with Undo."`
	Paused         bool             `json:"paused"`
	Note           string           `json:"note" doc:"Why it was paused or resumed last."`
	HeldByAgent    bool             `json:"heldByAgent" doc:"Paused because its agent is switched off; switching the agent on resumes it."`
	Missing        bool             `json:"missing" doc:"Its Temporal Schedule is gone (deleted outside Hub): it never fires; delete it and make it anew."`
	NextRuns       []time.Time      `json:"nextRuns" doc:"The next times it fires (at most 5); none while paused."`
	RecentRuns     []scheduleRunDTO `json:"recentRuns" doc:"Its latest firings, oldest first (at most 10), with the turns they started."`
	Firings        int              `json:"firings" doc:"How many times it fired, by time or by trigger."`
	MissedFirings  int              `json:"missedFirings" doc:"Firings that passed the 15-minute catch-up window while Hub or Temporal was down: they never ran."`
	SkippedFirings int              `json:"skippedFirings" doc:"Firings its overlap policy left out."`
	CreatedAt      time.Time        `json:"createdAt"`
}

type scheduleRunDTO struct {
	ScheduledAt time.Time `json:"scheduledAt"`
	StartedAt   time.Time `json:"startedAt"`
	TurnID      string    `json:"turnId" doc:"The turn it started (\"\": none yet, or none)."`
	TurnStatus  string    `json:"turnStatus" doc:"The turn's status; starting while it is being saved; skipped when the firing started none (its agent was switched off, its conversation busy)."`
}

func toScheduleDTO(v turns.ScheduleView) scheduleDTO {
	return scheduleDTO{ID: v.ID, AgentID: v.AgentID, ConversationID: v.ConversationID, Text: v.Text, Spec: toScheduleSpecDTO(v.Spec),
		TimeZone: v.TimeZone, Overlap: v.Overlap, Writes: v.Writes, Paused: v.Paused, Note: v.Note, HeldByAgent: v.HeldByAgent,
		Missing: v.Missing, NextRuns: v.NextRuns, RecentRuns: toDTOs(v.RecentRuns, func(r turns.ScheduleRun) scheduleRunDTO {
			return scheduleRunDTO{ScheduledAt: r.ScheduledAt, StartedAt: r.StartedAt, TurnID: r.TurnID, TurnStatus: r.TurnStatus}
		}), Firings: v.Firings, MissedFirings: v.Missed, SkippedFirings: v.Skipped, CreatedAt: v.CreatedAt}
}

type scheduleListDTO struct {
	Schedules []scheduleDTO `json:"schedules"`
}

type createScheduleRequest struct {
	Text           string              `json:"text" openapi:"required" doc:"The work each firing asks of the agent (at most 20,000 characters)."`
	ConversationID string              `json:"conversationId" doc:"One of the agent's conversations the firings continue; absent: a new one in the agent's first space."`
	Spec           scheduleSpecRequest `json:"spec" openapi:"required"`
	TimeZone       string              `json:"timeZone" doc:"An IANA time zone name the spec is read in; absent: UTC."`
	Overlap        string              `json:"overlap" doc:"skip (default) or buffer_one."`
	Writes         string              `json:"writes" doc:"apply (default: writes wait for the owner's Apply on Needs me) or immediate."`
}

func (s *Server) createSchedule(c *gin.Context, req createScheduleRequest) (any, error) {
	v, err := s.Turns.CreateSchedule(c.Request.Context(), person(c), c.Param("agentId"), turns.NewSchedule{Text: req.Text,
		ConversationID: req.ConversationID, Spec: req.Spec.spec(), TimeZone: req.TimeZone, Overlap: req.Overlap, Writes: req.Writes})
	return toScheduleDTO(v), err
}

func (s *Server) listSchedules(c *gin.Context) (any, error) {
	list, err := s.Turns.ListSchedules(c.Request.Context(), person(c), c.Param("agentId"))
	return scheduleListDTO{Schedules: toDTOs(list, toScheduleDTO)}, err
}

func (s *Server) getSchedule(c *gin.Context) (any, error) {
	v, err := s.Turns.GetSchedule(c.Request.Context(), person(c), c.Param("agentId"), c.Param("scheduleId"))
	return toScheduleDTO(v), err
}

type updateScheduleRequest struct {
	Paused Optional[bool]   `json:"paused" openapi:"required,nonnull" doc:"true pauses the schedule, false resumes it."`
	Note   Optional[string] `json:"note" doc:"Why (at most 500 characters); shown with the schedule and in the Temporal UI."`
}

func (s *Server) updateSchedule(c *gin.Context, req updateScheduleRequest) (any, error) {
	var err error
	p := turns.SchedulePatch{Paused: nonNull(&err, req.Paused, "/paused"), Note: patchValue(req.Note)}
	if err != nil {
		return nil, err
	}
	v, err := s.Turns.UpdateSchedule(c.Request.Context(), person(c), c.Param("agentId"), c.Param("scheduleId"), p)
	return toScheduleDTO(v), err
}

func (s *Server) triggerSchedule(c *gin.Context) (any, error) {
	v, err := s.Turns.TriggerSchedule(c.Request.Context(), person(c), c.Param("agentId"), c.Param("scheduleId"))
	return toScheduleDTO(v), err
}

func (s *Server) deleteSchedule(c *gin.Context) (any, error) {
	return nil, s.Turns.DeleteSchedule(c.Request.Context(), person(c), c.Param("agentId"), c.Param("scheduleId"))
}
