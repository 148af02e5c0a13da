package turns

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"hub/chat"
	"hub/workflows"
	"hub/workspace"
)

// NewSchedule is a schedule a person makes for one of their agents.
type NewSchedule struct {
	Text string
	// ConversationID is one of the agent's conversations the firings
	// continue; "": a new one in the agent's first space.
	ConversationID string
	Spec           workspace.ScheduleSpec
	TimeZone       string
	Overlap        string
	Writes         string
}

// ScheduleView is a schedule with what its Temporal Schedule says now.
type ScheduleView struct {
	workspace.Schedule
	Paused bool
	Note   string
	// Missing: its Temporal Schedule is gone (deleted outside Hub); it
	// never fires again. Delete it and make it anew.
	Missing bool
	// NextRuns are the next times it fires (at most 5), none while paused.
	NextRuns []time.Time
	// RecentRuns are its latest firings, oldest first (at most 10).
	RecentRuns []ScheduleRun
	// Firings counts its firings; Missed those that passed the catch-up
	// window (workflows.ScheduleCatchupWindow) while Hub or Temporal was
	// down; Skipped those its overlap policy left out.
	Firings, Missed, Skipped int
}

// ScheduleRun is one firing of a schedule and the turn it started.
type ScheduleRun struct {
	ScheduledAt, StartedAt time.Time
	// TurnID and TurnStatus: the firing's turn; "" with TurnStatus
	// "starting" while it is being saved, "skipped" when the firing
	// started none (the agent was switched off, its conversation busy).
	TurnID     string
	TurnStatus string
}

// maxNextRuns bounds the next run times a schedule shows.
const maxNextRuns = 5

// Schedules reaches Temporal's schedules; the api's Temporal client.
func (s *Service) schedules() (client.ScheduleClient, error) {
	if s.Schedules == nil {
		return nil, &UnavailableError{Message: "Hub runs no schedules here: it has no Temporal client."}
	}
	return s.Schedules.ScheduleClient(), nil
}

// CreateSchedule checks and saves a schedule of the person's agent and
// makes its Temporal Schedule, in one transaction: a schedule Temporal
// refuses is not saved. The agent must be switched on.
func (s *Service) CreateSchedule(ctx context.Context, p workspace.Person, agentID string, in NewSchedule) (ScheduleView, error) {
	sc := workspace.Schedule{AgentID: agentID, OwnerID: p.ID, Spec: in.Spec, TimeZone: in.TimeZone, Overlap: in.Overlap, Writes: in.Writes}
	sc.Text = strings.TrimSpace(in.Text)
	switch {
	case sc.Text == "":
		return ScheduleView{}, invalid("/text", "text is required: the work each firing asks of the agent")
	case utf8.RuneCountInString(sc.Text) > MaxMessageChars:
		return ScheduleView{}, invalid("/text", fmt.Sprintf("a message has at most %d characters", MaxMessageChars))
	}
	if err := workspace.CheckText("/text", sc.Text); err != nil {
		return ScheduleView{}, err
	}
	if err := workspace.CheckSchedule(&sc, time.Now()); err != nil {
		return ScheduleView{}, err
	}
	// The agent must be switched on, and the conversation its own.
	conv, agent, err := s.conversation(ctx, p.ID, Message{AgentID: agentID, ConversationID: in.ConversationID})
	if err == nil && agent == nil { // no agent named (an empty id): not one of theirs
		err = &workspace.NotFoundError{Kind: "agent", ID: agentID}
	}
	if err != nil {
		return ScheduleView{}, err
	}
	sched, err := s.schedules()
	if err != nil {
		return ScheduleView{}, err
	}
	// The rows commit first: no transaction waits on Temporal, and a
	// firing finds its row. A schedule Temporal refuses takes them back.
	made := conv.ID == ""
	err = s.Workspace.InTx(ctx, func(ctx context.Context) error {
		if made {
			c, err := s.Chat.CreateConversation(ctx, p.ID, conv.SpaceID, chat.TitleFromMessage(sc.Text), agentID)
			if err != nil {
				return err
			}
			conv = c
		}
		sc.ConversationID = conv.ID
		sc, err = s.Workspace.SaveSchedule(ctx, sc)
		return err
	})
	if err != nil {
		return ScheduleView{}, err
	}
	if _, err := sched.Create(ctx, s.scheduleOptions(sc, *agent)); err != nil {
		undo := context.WithoutCancel(ctx)
		derr := s.Workspace.DeleteSchedule(undo, p.ID, sc.ID)
		if made && derr == nil {
			_, derr = s.Chat.DeleteConversation(undo, p.ID, conv.ID)
		}
		if derr != nil {
			slog.ErrorContext(ctx, "take back a schedule Temporal refused", "schedule", sc.ID, "error", derr)
		}
		return ScheduleView{}, temporalError(err, specPath(sc.Spec))
	}
	return s.viewAfter(ctx, sc), nil
}

// viewAfter is view after a change that happened: a failing describe
// leaves out Temporal's part (logged) rather than answering an error for
// what was done, which a retry would do again.
func (s *Service) viewAfter(ctx context.Context, sc workspace.Schedule) ScheduleView {
	v, err := s.view(ctx, sc)
	if err != nil {
		slog.WarnContext(ctx, "describe a changed schedule", "schedule", sc.ID, "error", err)
	}
	return v
}

// scheduleOptions is the Temporal Schedule of sc: its action is the
// ScheduledTurn workflow, with Hub's search attributes on the schedule and
// on every firing.
func (s *Service) scheduleOptions(sc workspace.Schedule, agent workspace.Agent) client.ScheduleOptions {
	overlap := enumspb.SCHEDULE_OVERLAP_POLICY_SKIP
	if sc.Overlap == workspace.OverlapBufferOne {
		overlap = enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE
	}
	attrs := temporal.NewSearchAttributes(workflows.ActorIDKey.ValueSet(sc.OwnerID), workflows.AgentIDKey.ValueSet(sc.AgentID),
		workflows.ConversationIDKey.ValueSet(sc.ConversationID))
	opts := client.ScheduleOptions{
		ID:   workflows.ScheduleID(sc.ID),
		Spec: scheduleSpec(sc),
		Action: &client.ScheduleWorkflowAction{
			ID:                    workflows.ScheduledTurnID(sc.ID),
			Workflow:              workflows.ScheduledTurn,
			Args:                  []any{workflows.ScheduledTurnInput{ScheduleID: sc.ID}},
			TaskQueue:             cmp.Or(s.TaskQueue, workflows.DefaultTaskQueue),
			TypedSearchAttributes: attrs,
			StaticSummary:         fmt.Sprintf("Scheduled work of agent %q", agent.Name),
		},
		Overlap:               overlap,
		CatchupWindow:         workflows.ScheduleCatchupWindow,
		TypedSearchAttributes: attrs,
		Paused:                sc.HeldByAgent,
	}
	if sc.HeldByAgent {
		opts.Note = agentOffNote(agent.Name)
	}
	return opts
}

func agentOffNote(name string) string {
	return fmt.Sprintf("Paused because agent %q is switched off; switching it on resumes this schedule.", name)
}

// scheduleSpec is Temporal's form of a schedule's spec. A one-off run is
// a calendar of one second in UTC.
func scheduleSpec(sc workspace.Schedule) client.ScheduleSpec {
	spec := client.ScheduleSpec{TimeZoneName: sc.TimeZone}
	switch {
	case sc.Spec.Cron != "":
		spec.CronExpressions = []string{sc.Spec.Cron}
	case sc.Spec.Calendar != nil:
		c := sc.Spec.Calendar
		spec.Calendars = []client.ScheduleCalendarSpec{{Minute: ranges(c.Minute), Hour: ranges(c.Hour), DayOfMonth: ranges(c.DayOfMonth),
			Month: ranges(c.Month), DayOfWeek: ranges(c.DayOfWeek)}}
	case sc.Spec.At != nil:
		at := sc.Spec.At.UTC()
		one := func(v int) []client.ScheduleRange { return []client.ScheduleRange{{Start: v}} }
		spec.TimeZoneName = "UTC"
		spec.Calendars = []client.ScheduleCalendarSpec{{Second: one(at.Second()), Minute: one(at.Minute()), Hour: one(at.Hour()),
			DayOfMonth: one(at.Day()), Month: one(int(at.Month())), Year: one(at.Year())}}
	}
	return spec
}

// specPath is where a spec Temporal refuses went wrong.
func specPath(spec workspace.ScheduleSpec) string {
	switch {
	case spec.Cron != "":
		return "/spec/cron"
	case spec.Calendar != nil:
		return "/spec/calendar"
	}
	return "/spec/at"
}

// ranges turns listed values into Temporal's ranges; none is its default.
func ranges(vals []int) []client.ScheduleRange {
	if len(vals) == 0 {
		return nil
	}
	out := make([]client.ScheduleRange, len(vals))
	for i, v := range vals {
		out[i] = client.ScheduleRange{Start: v}
	}
	return out
}

// temporalError is a Temporal refusal of what the person sent (a 4xx at
// path), or Temporal being unreachable (UnavailableError).
func temporalError(err error, path string) error {
	if err == nil {
		return nil
	}
	if bad, ok := errors.AsType[*serviceerror.InvalidArgument](err); ok {
		return invalid(path, "Temporal refused this schedule: "+bad.Message)
	}
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return fmt.Errorf("its Temporal schedule is gone; delete this schedule and make it anew: %w", workspace.ErrConflict)
	}
	slog.Error("temporal schedule call", "error", err)
	return &UnavailableError{Message: "Hub could not reach its workflow service to change the schedule. Try again in a moment."}
}

// ListSchedules returns the agent's schedules as Temporal has them now.
func (s *Service) ListSchedules(ctx context.Context, p workspace.Person, agentID string) ([]ScheduleView, error) {
	list, err := s.Workspace.ListSchedules(ctx, p.ID, agentID)
	if err != nil {
		return nil, err
	}
	out := make([]ScheduleView, 0, len(list))
	for _, sc := range list {
		v, err := s.view(ctx, sc)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// GetSchedule returns one of the agent's schedules as Temporal has it now.
func (s *Service) GetSchedule(ctx context.Context, p workspace.Person, agentID, id string) (ScheduleView, error) {
	sc, err := s.Workspace.GetSchedule(ctx, p.ID, agentID, id)
	if err != nil {
		return ScheduleView{}, err
	}
	return s.view(ctx, sc)
}

// view describes sc's Temporal Schedule and finds its firings' turns.
func (s *Service) view(ctx context.Context, sc workspace.Schedule) (ScheduleView, error) {
	v := ScheduleView{Schedule: sc, NextRuns: []time.Time{}, RecentRuns: []ScheduleRun{}}
	sched, err := s.schedules()
	if err != nil {
		return v, err
	}
	d, err := sched.GetHandle(ctx, workflows.ScheduleID(sc.ID)).Describe(ctx)
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		v.Missing, v.Paused = true, true
		return v, nil
	}
	if err != nil {
		return v, temporalError(err, "")
	}
	if st := d.Schedule.State; st != nil {
		v.Paused, v.Note = st.Paused, st.Note
	}
	info := d.Info
	v.Firings, v.Missed, v.Skipped = info.NumActions, info.NumActionsMissedCatchupWindow, info.NumActionsSkippedOverlap
	if !v.Paused {
		v.NextRuns = info.NextActionTimes[:min(len(info.NextActionTimes), maxNextRuns)]
	}
	running := map[string]bool{}
	for _, w := range info.RunningWorkflows {
		running[workflows.FiringKey(w.WorkflowID, w.FirstExecutionRunID)] = true
	}
	var runs []string
	for _, a := range info.RecentActions {
		if w := a.StartWorkflowResult; w != nil {
			runs = append(runs, workflows.FiringKey(w.WorkflowID, w.FirstExecutionRunID))
		}
	}
	turnsByRun, err := s.Chat.ScheduledRuns(ctx, sc.OwnerID, runs)
	if err != nil {
		return v, err
	}
	for _, a := range info.RecentActions {
		r := ScheduleRun{ScheduledAt: a.ScheduleTime, StartedAt: a.ActualTime, TurnStatus: "skipped"}
		if w := a.StartWorkflowResult; w != nil {
			id := workflows.FiringKey(w.WorkflowID, w.FirstExecutionRunID)
			if t, ok := turnsByRun[id]; ok {
				r.TurnID, r.TurnStatus = t.ID, string(t.Status)
			} else if running[id] {
				r.TurnStatus = "starting"
			}
		}
		v.RecentRuns = append(v.RecentRuns, r)
	}
	return v, nil
}

// SchedulePatch pauses or unpauses a schedule, with a note saying why.
type SchedulePatch struct {
	Paused *bool
	Note   *string
}

// MaxScheduleNote bounds a pause's note.
const MaxScheduleNote = 500

// UpdateSchedule pauses or unpauses the schedule. A schedule paused
// because its agent is switched off stays paused until the agent is on.
func (s *Service) UpdateSchedule(ctx context.Context, p workspace.Person, agentID, id string, patch SchedulePatch) (ScheduleView, error) {
	sc, err := s.Workspace.GetSchedule(ctx, p.ID, agentID, id)
	if err != nil {
		return ScheduleView{}, err
	}
	note := ""
	if patch.Note != nil {
		note = strings.TrimSpace(*patch.Note)
		if err := workspace.CheckText("/note", note); err != nil {
			return ScheduleView{}, err
		}
		if utf8.RuneCountInString(note) > MaxScheduleNote {
			return ScheduleView{}, invalid("/note", fmt.Sprintf("a note has at most %d characters", MaxScheduleNote))
		}
	}
	if patch.Paused == nil {
		return ScheduleView{}, invalid("/paused", "paused is required: true pauses the schedule, false resumes it")
	}
	sched, err := s.schedules()
	if err != nil {
		return ScheduleView{}, err
	}
	h := sched.GetHandle(ctx, workflows.ScheduleID(sc.ID))
	if *patch.Paused {
		err = h.Pause(ctx, client.SchedulePauseOptions{Note: cmp.Or(note, "Paused by its owner.")})
		if err == nil && sc.HeldByAgent { // the owner's pause now: switching the agent on leaves it paused
			err = s.Workspace.HoldSchedule(ctx, sc.ID, false)
			sc.HeldByAgent = false
		}
	} else {
		agent, aerr := s.Workspace.GetAgent(ctx, p.ID, agentID)
		if aerr != nil {
			return ScheduleView{}, aerr
		}
		if !agent.Enabled {
			return ScheduleView{}, fmt.Errorf("agent %q is switched off; switch it on to resume its schedules: %w", agent.Name, workspace.ErrConflict)
		}
		err = h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: cmp.Or(note, "Resumed by its owner.")})
	}
	if err = temporalError(err, ""); err != nil {
		return ScheduleView{}, err
	}
	return s.viewAfter(ctx, sc), nil
}

// TriggerSchedule fires the schedule now, as its overlap policy allows;
// a paused one fires too, unless its agent is switched off.
func (s *Service) TriggerSchedule(ctx context.Context, p workspace.Person, agentID, id string) (ScheduleView, error) {
	sc, err := s.Workspace.GetSchedule(ctx, p.ID, agentID, id)
	if err != nil {
		return ScheduleView{}, err
	}
	if _, err := s.workingAgent(ctx, p.ID, agentID, true); err != nil {
		return ScheduleView{}, err
	}
	sched, err := s.schedules()
	if err != nil {
		return ScheduleView{}, err
	}
	if err := temporalError(sched.GetHandle(ctx, workflows.ScheduleID(sc.ID)).Trigger(ctx, client.ScheduleTriggerOptions{}), ""); err != nil {
		return ScheduleView{}, err
	}
	return s.viewAfter(ctx, sc), nil
}

// DeleteSchedule deletes the Temporal Schedule, then the row: a firing
// already running finishes its turn.
func (s *Service) DeleteSchedule(ctx context.Context, p workspace.Person, agentID, id string) error {
	sc, err := s.Workspace.GetSchedule(ctx, p.ID, agentID, id)
	if err != nil {
		return err
	}
	if err := s.deleteTemporalSchedule(ctx, sc.ID); err != nil {
		return err
	}
	return s.Workspace.DeleteSchedule(ctx, p.ID, sc.ID)
}

func (s *Service) deleteTemporalSchedule(ctx context.Context, id string) error {
	sched, err := s.schedules()
	if err != nil {
		return err
	}
	err = sched.GetHandle(ctx, workflows.ScheduleID(id)).Delete(ctx)
	if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
		return nil
	}
	return temporalError(err, "")
}

// DeleteAgent deletes the agent's Temporal Schedules, then the agent (its
// schedules' rows go with it). An error leaves the agent: deleting again
// finishes the work.
func (s *Service) DeleteAgent(ctx context.Context, p workspace.Person, agentID string, version *int) error {
	list, err := s.Workspace.ListSchedules(ctx, p.ID, agentID)
	if err != nil {
		return err
	}
	if a, err := s.Workspace.GetAgent(ctx, p.ID, agentID); err != nil || (version != nil && *version != a.Version) {
		return s.Workspace.DeleteAgent(ctx, p.ID, agentID, version) // refuses as it would: gone, or stale
	}
	for _, sc := range list {
		if err := s.deleteTemporalSchedule(ctx, sc.ID); err != nil {
			return err
		}
	}
	return s.Workspace.DeleteAgent(ctx, p.ID, agentID, version)
}

// UpdateAgent changes the agent; with enabled set, off pauses its running
// schedules, on resumes those it paused. A schedule Temporal
// could not pause still starts no turn: a firing checks the agent.
func (s *Service) UpdateAgent(ctx context.Context, p workspace.Person, agentID string, patch workspace.AgentPatch) (workspace.Agent, error) {
	agent, err := s.Workspace.UpdateAgent(ctx, p.ID, agentID, patch)
	if err != nil || patch.Enabled == nil { // a patch that sets enabled, even to what it was, brings the schedules in line
		return agent, err
	}
	if err := s.holdSchedules(context.WithoutCancel(ctx), p.ID, agent); err != nil {
		slog.ErrorContext(ctx, "pause or resume an agent's schedules", "agent", agent.ID, "error", err)
	}
	return agent, nil
}

// holdSchedules pauses the switched-off agent's unpaused schedules, or
// resumes the switched-on agent's schedules that it paused. One that
// fails does not stop the rest; one gone from Temporal is passed over.
func (s *Service) holdSchedules(ctx context.Context, ownerID string, agent workspace.Agent) error {
	list, err := s.Workspace.ListSchedules(ctx, ownerID, agent.ID)
	if err != nil || len(list) == 0 {
		return err
	}
	sched, err := s.schedules()
	if err != nil {
		return err
	}
	var errs []error
	for _, sc := range list {
		err := s.holdSchedule(ctx, sched.GetHandle(ctx, workflows.ScheduleID(sc.ID)), sc, agent)
		if _, gone := errors.AsType[*serviceerror.NotFound](err); err != nil && !gone {
			errs = append(errs, fmt.Errorf("schedule %s: %w", sc.ID, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Service) holdSchedule(ctx context.Context, h client.ScheduleHandle, sc workspace.Schedule, agent workspace.Agent) error {
	switch {
	case !agent.Enabled && !sc.HeldByAgent:
		d, err := h.Describe(ctx)
		if err != nil {
			return err
		}
		if d.Schedule.State != nil && d.Schedule.State.Paused {
			return nil // the owner's pause stays theirs
		}
		if err := h.Pause(ctx, client.SchedulePauseOptions{Note: agentOffNote(agent.Name)}); err != nil {
			return err
		}
		return s.Workspace.HoldSchedule(ctx, sc.ID, true)
	case agent.Enabled && sc.HeldByAgent:
		if err := h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: fmt.Sprintf("Resumed: agent %q was switched on.", agent.Name)}); err != nil {
			return err
		}
		return s.Workspace.HoldSchedule(ctx, sc.ID, false)
	}
	return nil
}

// OpenScheduled saves the turn of a schedule's firing as the owner's
// message to the agent, in the schedule's conversation, with the
// schedule's write policy (activities.Scheduler). A firing saves one turn:
// an attempt after a crash returns the one saved.
func (s *Service) OpenScheduled(ctx context.Context, scheduleID, run string) (chat.Turn, time.Duration, error) {
	if t, err := s.Chat.ScheduledTurn(ctx, run); !errors.Is(err, workspace.ErrNotFound) {
		return t, s.turnTimeout(), err
	}
	sc, err := s.Workspace.FiringSchedule(ctx, scheduleID)
	if err != nil {
		return chat.Turn{}, 0, err
	}
	p, err := s.Workspace.GetPerson(ctx, sc.OwnerID)
	if err != nil {
		return chat.Turn{}, 0, err
	}
	policy := workspace.PolicyNeedsMe
	if sc.Writes == workspace.WritesImmediate {
		policy = workspace.PolicyImmediate
	}
	newTurn, err := s.open(ctx, p, Message{AgentID: sc.AgentID, ConversationID: sc.ConversationID, Text: sc.Text},
		firing{writePolicy: policy, scheduleID: sc.ID, run: run})
	if err != nil {
		return chat.Turn{}, 0, err
	}
	var t chat.Turn
	err = s.Workspace.InTx(ctx, func(ctx context.Context) error {
		t, err = newTurn(ctx)
		return err
	})
	if errors.Is(err, workspace.ErrConflict) { // another attempt of this firing may have saved it meanwhile
		if saved, serr := s.Chat.ScheduledTurn(ctx, run); serr == nil {
			return saved, s.turnTimeout(), nil
		}
	}
	return t, s.turnTimeout(), err
}
