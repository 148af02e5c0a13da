package chat

import (
	"context"
	"fmt"

	"gorm.io/gorm/clause"

	"hub/models"
)

// Workflow step states.
const (
	StepPending     = "pending"
	StepRunning     = "running"
	StepSucceeded   = "succeeded"
	StepFailed      = "failed"
	StepInterrupted = "interrupted"
)

// WorkflowStep is the state of one step of an applied workflow call.
type WorkflowStep struct {
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
}

func toWorkflowStep(r models.WorkflowStep) WorkflowStep {
	return WorkflowStep{CallID: r.CallID, StepID: r.StepID, Idx: r.Idx, SpaceID: r.SpaceID, ActorID: r.ActorID,
		ConversationID: r.ConversationID, Tool: r.Tool, Status: r.Status, ResolvedInput: r.ResolvedInput, Output: r.Output,
		Summary: r.Summary, ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, UndoGroupID: r.UndoGroupID}
}

// EnsureWorkflowSteps creates the pending state rows of a workflow call's
// steps (existing rows are kept) and returns every step in order.
func (s *Store) EnsureWorkflowSteps(ctx context.Context, steps []WorkflowStep) ([]WorkflowStep, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	rows := make([]models.WorkflowStep, len(steps))
	for i, st := range steps {
		rows[i] = models.WorkflowStep{CallID: st.CallID, StepID: st.StepID, Idx: st.Idx, SpaceID: st.SpaceID, ActorID: st.ActorID,
			ConversationID: st.ConversationID, Tool: st.Tool, Status: StepPending}
	}
	if err := s.q(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&rows).Error; err != nil {
		return nil, fmt.Errorf("workflow steps: %w", err)
	}
	return s.WorkflowSteps(ctx, steps[0].CallID)
}

// WorkflowSteps returns a workflow call's steps in order.
func (s *Store) WorkflowSteps(ctx context.Context, callID string) ([]WorkflowStep, error) {
	var rows []models.WorkflowStep
	if err := s.q(ctx).Where("call_id = ?", callID).Order("idx").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("workflow steps of %s: %w", callID, err)
	}
	out := make([]WorkflowStep, len(rows))
	for i, r := range rows {
		out[i] = toWorkflowStep(r)
	}
	return out, nil
}

// SaveWorkflowStep writes a step's state.
func (s *Store) SaveWorkflowStep(ctx context.Context, st WorkflowStep) error {
	err := s.q(ctx).Model(&models.WorkflowStep{}).Where("call_id = ? AND step_id = ?", st.CallID, st.StepID).Updates(map[string]any{
		"status": st.Status, "resolved_input": st.ResolvedInput, "output": st.Output, "summary": st.Summary,
		"error_code": st.ErrorCode, "error_message": st.ErrorMessage, "undo_group_id": st.UndoGroupID, "updated_at": s.now(),
	}).Error
	if err != nil {
		return fmt.Errorf("save step %s of %s: %w", st.StepID, st.CallID, err)
	}
	return nil
}
