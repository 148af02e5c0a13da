package workflows

import (
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"hub/activities"
)

// ScheduleID is the Temporal Schedule id of an agent's schedule.
func ScheduleID(scheduleID string) string { return "agent-schedule:" + scheduleID }

// ScheduledTurnID is the workflow id a schedule's firings start from;
// Temporal appends the firing's time.
func ScheduledTurnID(scheduleID string) string { return "scheduled-turn:" + scheduleID }

// FiringKey names one firing: its workflow id and first run. Temporal
// names a firing after its nominal second, so two triggers in one second
// (one buffered) share an id; their runs differ.
func FiringKey(workflowID, firstRunID string) string { return workflowID + "/" + firstRunID }

// ScheduleCatchupWindow is how late a firing may still start after Hub or
// Temporal was down when it was due; older ones are missed, and counted.
const ScheduleCatchupWindow = 15 * time.Minute

// ScheduledTurnInput is a schedule's firing: the schedule's id alone.
type ScheduledTurnInput struct {
	ScheduleID string
}

// ScheduledTurnResult is how a firing ended: the turn it ran and how that
// ended, or why no turn ran (Skipped).
type ScheduledTurnResult struct {
	TurnID    string `json:",omitempty"`
	Status    string `json:",omitempty"`
	ErrorCode string `json:",omitempty"`
	Skipped   string `json:",omitempty"`
}

// ScheduledTurn is a schedule's action: save the turn as a message to the
// agent would (once per firing, keyed by this workflow's id), then run it
// as the Turn workflow `turn:<id>`, a child, and wait for it, so the
// schedule's overlap policy sees a firing running until its turn ends.
// The turn outlives the firing if an operator ends the firing.
func ScheduledTurn(ctx workflow.Context, in ScheduledTurnInput) (ScheduledTurnResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			MaximumAttempts: 10, NonRetryableErrorTypes: []string{activities.ErrTypeSkipped}},
	})
	info := workflow.GetInfo(ctx)
	firing := activities.Firing{ScheduleID: in.ScheduleID, Run: FiringKey(info.WorkflowExecution.ID, info.FirstRunID)}
	var opened activities.ScheduledTurn
	err := workflow.ExecuteActivity(actx, a.OpenScheduledTurn, firing).Get(ctx, &opened)
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.Type() == activities.ErrTypeSkipped {
		return ScheduledTurnResult{Skipped: ae.Message()}, nil
	}
	if err != nil {
		return ScheduledTurnResult{}, err
	}
	turnIn := TurnInput{TurnID: opened.TurnID, ConversationID: opened.ConversationID, SpaceID: opened.SpaceID, ActorID: opened.ActorID,
		Model: opened.Model, Effort: opened.Effort}
	// The turn runs on when the firing is cancelled (the UI's Cancel) as
	// when it is terminated: a cancelled turn could not save its ending.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	cctx := workflow.WithChildOptions(dctx, workflow.ChildWorkflowOptions{
		WorkflowID:               TurnWorkflowID(opened.TurnID),
		WorkflowExecutionTimeout: opened.Timeout + TurnTimeoutGrace,
		ParentClosePolicy:        enumspb.PARENT_CLOSE_POLICY_ABANDON,
		TypedSearchAttributes:    TurnSearchAttributes(turnIn, opened.AgentID),
		StaticSummary:            "Scheduled turn of an agent in conversation " + opened.ConversationID,
	})
	var res TurnResult
	err = workflow.ExecuteChildWorkflow(cctx, Turn, turnIn).Get(ctx, &res)
	out := ScheduledTurnResult{TurnID: opened.TurnID, Status: res.Status, ErrorCode: res.ErrorCode}
	if err != nil && res.Status == "" { // a failed turn saved its ending; its workflow is the one to inspect
		out.Status = StatusError
		if errors.As(err, &ae) {
			out.ErrorCode = ae.Type()
		}
	}
	return out, nil
}

// TurnSearchAttributes are a turn's search attributes when it starts: its
// space, conversation, person and agent ("" none), status queued.
func TurnSearchAttributes(in TurnInput, agentID string) temporal.SearchAttributes {
	updates := []temporal.SearchAttributeUpdate{
		SpaceIDKey.ValueSet(in.SpaceID),
		ConversationIDKey.ValueSet(in.ConversationID),
		ActorIDKey.ValueSet(in.ActorID),
		TurnStatusKey.ValueSet(StatusQueued),
	}
	if agentID != "" {
		updates = append(updates, AgentIDKey.ValueSet(agentID))
	}
	return temporal.NewSearchAttributes(updates...)
}
