package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"hub/chat"
	"hub/workspace"
)

// ErrTypeSkipped is a schedule's firing that starts no turn: the schedule
// or its agent is gone, the agent is switched off, the conversation is
// busy with another turn. Not retried; the firing ends saying why.
const ErrTypeSkipped = "skipped"

// Scheduler saves the turn of a schedule's firing (package turns).
type Scheduler interface {
	// OpenScheduled saves the turn a firing (run, the firing workflow's
	// id) starts, or returns the one an earlier attempt saved, and the
	// turn's wall-time bound. A workspace.ErrNotFound or ErrConflict
	// (or InvalidError) is why the firing starts no turn.
	OpenScheduled(ctx context.Context, scheduleID, run string) (chat.Turn, time.Duration, error)
}

// Firing is one firing of a schedule.
type Firing struct {
	ScheduleID string
	Run        string // workflows.FiringKey: one turn per firing
}

// ScheduledTurn is the turn a firing saved, as the Turn workflow takes it.
type ScheduledTurn struct {
	TurnID, ConversationID, SpaceID, ActorID, AgentID string
	Model, Effort                                     string
	Timeout                                           time.Duration // the turn's wall-time bound
}

// OpenScheduledTurn saves the turn of a schedule's firing (Scheduler).
func (a *Activities) OpenScheduledTurn(ctx context.Context, f Firing) (ScheduledTurn, error) {
	if a.Scheduler == nil {
		return ScheduledTurn{}, temporal.NewNonRetryableApplicationError("this worker runs no schedules", ErrTypeSkipped, nil)
	}
	t, limit, err := a.Scheduler.OpenScheduled(ctx, f.ScheduleID, f.Run)
	var invalid *workspace.InvalidError
	if errors.Is(err, workspace.ErrNotFound) || errors.Is(err, workspace.ErrConflict) || errors.As(err, &invalid) {
		logTurn(ctx, "scheduled turn skipped", "schedule", f.ScheduleID, "why", err.Error())
		return ScheduledTurn{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeSkipped, nil)
	}
	if err != nil {
		return ScheduledTurn{}, err
	}
	logTurn(ctx, "scheduled turn saved", "schedule", f.ScheduleID, "turn", t.ID)
	return ScheduledTurn{TurnID: t.ID, ConversationID: t.ConversationID, SpaceID: t.SpaceID, ActorID: t.PersonID, AgentID: t.AgentID,
		Model: t.Model, Effort: t.Effort, Timeout: limit}, nil
}
