package chat

import (
	"context"
	"fmt"

	"gorm.io/gorm/clause"

	"hub/storage"
	"hub/workspace"
)

// Workflow step states.
const (
	PlanStepPending     = "pending"
	PlanStepRunning     = "running"
	PlanStepSucceeded   = "succeeded"
	PlanStepFailed      = "failed"
	PlanStepInterrupted = "interrupted"
)

// PlanStep is the state of one step of an applied workflow call.
type PlanStep struct {
	CallID, StepID string
	Idx            int
	SpaceID        string
	ActorID        string
	ConversationID string
	Tool           string
	Status         string
	ResolvedInput  string
	Output         string
	Summary        string
	ErrorCode      string
	ErrorMessage   string
	UndoGroupID    string
	Refs           []workspace.Ref // the records a succeeded step changed
}

func toPlanStep(r storage.WorkflowStep) PlanStep {
	return PlanStep{CallID: r.CallID, StepID: r.StepID, Idx: r.Idx, SpaceID: r.SpaceID, ActorID: r.ActorID,
		ConversationID: r.ConversationID, Tool: r.Tool, Status: r.Status, ResolvedInput: r.ResolvedInput, Output: r.Output,
		Summary: r.Summary, ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, UndoGroupID: r.UndoGroupID,
		Refs: unmarshal[[]workspace.Ref](r.Refs)}
}

// EnsurePlanSteps creates the pending state rows of a workflow call's
// steps (existing rows are kept) and returns every step in order.
func (s *Store) EnsurePlanSteps(ctx context.Context, steps []PlanStep) ([]PlanStep, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	rows := make([]storage.WorkflowStep, len(steps))
	for i, st := range steps {
		rows[i] = storage.WorkflowStep{CallID: st.CallID, StepID: st.StepID, Idx: st.Idx, SpaceID: st.SpaceID, ActorID: st.ActorID,
			ConversationID: st.ConversationID, Tool: st.Tool, Status: PlanStepPending, Refs: "[]"}
	}
	if err := s.q(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&rows).Error; err != nil {
		return nil, fmt.Errorf("workflow steps: %w", err)
	}
	return s.PlanSteps(ctx, steps[0].CallID)
}

// PlanStepsOf reads the steps of the workflow calls among callIDs in one
// query, by call id, in order (calls with no steps are absent).
func (s *Store) PlanStepsOf(ctx context.Context, callIDs []string) (map[string][]PlanStep, error) {
	if len(callIDs) == 0 {
		return nil, nil
	}
	var rows []storage.WorkflowStep
	if err := s.q(ctx).Where("call_id IN ?", callIDs).Order("call_id, idx").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("workflow steps: %w", err)
	}
	out := map[string][]PlanStep{}
	for _, r := range rows {
		out[r.CallID] = append(out[r.CallID], toPlanStep(r))
	}
	return out, nil
}

// PlanSteps returns a workflow call's steps in order.
func (s *Store) PlanSteps(ctx context.Context, callID string) ([]PlanStep, error) {
	var rows []storage.WorkflowStep
	if err := s.q(ctx).Where("call_id = ?", callID).Order("idx").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("workflow steps of %s: %w", callID, err)
	}
	return mapped(rows, toPlanStep), nil
}

// SavePlanStep writes a step's state.
func (s *Store) SavePlanStep(ctx context.Context, st PlanStep) error {
	err := s.q(ctx).Model(&storage.WorkflowStep{}).Where("call_id = ? AND step_id = ?", st.CallID, st.StepID).Updates(map[string]any{
		"status": st.Status, "resolved_input": st.ResolvedInput, "output": st.Output, "summary": st.Summary,
		"error_code": st.ErrorCode, "error_message": st.ErrorMessage, "undo_group_id": st.UndoGroupID, "refs": marshal(nonNil(st.Refs)),
		"updated_at": s.now(),
	}).Error
	if err != nil {
		return fmt.Errorf("save step %s of %s: %w", st.StepID, st.CallID, err)
	}
	return nil
}
