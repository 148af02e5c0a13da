package activities

import (
	"context"
	"log/slog"

	"go.temporal.io/sdk/activity"
)

// logTurn writes one of the turn's lifecycle lines ("turn started", "turn
// ended", "apply finished") with the ids an operator searches by, adding
// the Temporal workflow and run ids when called as an activity (tests
// also call activities directly). Ids and counts only: never a message's
// text, a tool's input or a model's output.
func logTurn(ctx context.Context, msg string, args ...any) {
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		args = append(args, "workflow", info.WorkflowExecution.ID, "run", info.WorkflowExecution.RunID, "attempt", info.Attempt)
	}
	slog.InfoContext(ctx, msg, args...)
}
