package workflows

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"hub/activities"
)

// IndexWorkflowID is the workflow id of indexing one version of a file:
// starting it twice runs it once.
func IndexWorkflowID(fileID string, gen int) string { return fmt.Sprintf("index:%s:%d", fileID, gen) }

// Starter is the part of the Temporal client that starts a workflow.
type Starter interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
}

// StartIndex starts the IndexFile workflow of a file version on taskQueue;
// one already running is not an error. One that ended is started again:
// the sweeper restarts a version left queued or indexing (a run an
// operator terminated).
func StartIndex(ctx context.Context, c Starter, taskQueue, fileID string, gen int) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: IndexWorkflowID(fileID, gen), TaskQueue: cmp.Or(taskQueue, DefaultTaskQueue),
	}, IndexFile, activities.IndexInput{FileID: fileID, Gen: gen})
	if errors.As(err, new(*serviceerror.WorkflowExecutionAlreadyStarted)) {
		return nil
	}
	return err
}

// IndexFile indexes one version of a file: extract and chunk (drafts),
// embed them when an embeddings model is configured, then publish. A failure a retry cannot mend marks the file failed with
// why; the passages of its earlier version stay searchable.
func IndexFile(ctx workflow.Context, in activities.IndexInput) error {
	var a *activities.Activities
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    4 * activities.HeartbeatInterval,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 5,
		},
	})
	var plan activities.IndexPlan
	err := workflow.ExecuteActivity(ctx, a.PrepareIndex, in).Get(ctx, &plan)
	if err == nil && plan.Stale {
		return nil
	}
	if err == nil && plan.NeedVectors > 0 {
		// Without vectors the file is still found by its words; the
		// sweeper embeds what is missing once the endpoint answers.
		eerr := workflow.ExecuteActivity(ctx, a.EmbedIndex, in).Get(ctx, nil)
		if eerr != nil {
			workflow.GetLogger(ctx).Warn("embed a file's passages; publishing them for words only", "file", in.FileID, "error", eerr)
		}
	}
	if err == nil {
		err = workflow.ExecuteActivity(ctx, a.PublishIndex, in).Get(ctx, nil)
	}
	if err == nil {
		return nil
	}
	why := "indexing failed; upload the file again to retry"
	if temporal.IsCanceledError(err) {
		why = "indexing was stopped"
	} else if ae := (*temporal.ApplicationError)(nil); errors.As(err, &ae) && ae.Type() == activities.ErrTypeUnextractable {
		why = ae.Message()
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if ferr := workflow.ExecuteActivity(dctx, a.FailIndex, in, why).Get(dctx, nil); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}
