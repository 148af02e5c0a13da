package chat

import (
	"context"
	"fmt"

	"hub/storage"
)

// PlanStepsOf reads the steps of the workflow calls among callIDs, in one
// query, by call id in order (calls with no steps are absent): a
// conversation's messages show each applied plan's steps.
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
