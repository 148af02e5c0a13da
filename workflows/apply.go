package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"hub/activities"
)

// ApplyUpdate is the update that applies a reply's held calls and answers
// with the receipts.
const ApplyUpdate = "apply"

// ErrTypeGone is the type of the application error an Apply update fails
// with when its conversation or message is gone, or its person can no
// longer open the conversation's space: the api answers 404.
const ErrTypeGone = activities.ErrTypeGone

// ApplyWorkflowID is the workflow id of a reply's Apply: every Apply of one
// message joins the same workflow (Update-with-Start, use-existing), so
// concurrent requests apply once.
func ApplyWorkflowID(messageID string) string { return "apply:" + messageID }

// ApplyInput starts the Apply workflow of one reply.
type ApplyInput struct {
	MessageID      string
	ConversationID string
	PersonID       string
}

// ApplyRequest is one Apply: which calls (none: all) and whether to send
// again an outside write whose outcome is unknown.
type ApplyRequest struct {
	CallIDs          []string
	ResendUnknown    bool
	RetryInterrupted bool // run again workflow steps interrupted while they ran
}

// ApplyResult answers an Apply.
type ApplyResult struct {
	Receipts []activities.ApplyReceipt
}

// applyIdle is how long an Apply workflow waits for another Apply (a
// Retry) before it ends; a later one starts a new run.
const applyIdle = 10 * time.Minute

// Apply runs the person's Apply requests for one reply, one at a time:
// Hub writes in one transaction per space, then outside writes one at a
// time, then the receipts. Receipts are written with the writes, so a
// retried activity, a crash or a reset never writes twice.
func Apply(ctx workflow.Context, in ApplyInput) error {
	mu := workflow.NewMutex(ctx)
	requests := 0
	err := workflow.SetUpdateHandlerWithOptions(ctx, ApplyUpdate,
		func(ctx workflow.Context, req ApplyRequest) (ApplyResult, error) {
			requests++
			if err := mu.Lock(ctx); err != nil {
				return ApplyResult{}, err
			}
			defer mu.Unlock()
			return runApply(ctx, in, req)
		},
		workflow.UpdateHandlerOptions{Validator: func(req ApplyRequest) error {
			if len(req.CallIDs) > 500 {
				return errors.New("at most 500 calls in one Apply")
			}
			return nil
		}},
	)
	if err != nil {
		return err
	}
	for {
		seen := requests
		ok, err := workflow.AwaitWithTimeout(ctx, applyIdle, func() bool { return requests != seen })
		if err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

func runApply(ctx workflow.Context, in ApplyInput, req ApplyRequest) (ApplyResult, error) {
	ai := activities.ApplyInput{MessageID: in.MessageID, ConversationID: in.ConversationID, PersonID: in.PersonID,
		CallIDs: req.CallIDs, ResendUnknown: req.ResendUnknown, RetryInterrupted: req.RetryInterrupted}
	var plan activities.ApplyBatches
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), a.PlanApply, ai).Get(ctx, &plan); err != nil {
		return ApplyResult{}, err
	}
	spaceCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// The transaction's own bound, plus time for the receipts; database
		// faults are retried a few times.
		StartToCloseTimeout: activities.ApplyTxTimeout + 15*time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumAttempts: 4},
	})
	// Spaces are independent (one transaction and Undo group each), so
	// their activities run at once.
	runs := make([]workflow.Future, len(plan.Spaces))
	for i, sp := range plan.Spaces {
		runs[i] = workflow.ExecuteActivity(spaceCtx, a.ApplySpace, activities.ApplySpaceInput{
			MessageID: in.MessageID, PersonID: in.PersonID, SpaceID: sp.SpaceID, CallIDs: sp.CallIDs})
	}
	for i, sp := range plan.Spaces {
		if err := runs[i].Get(ctx, nil); err != nil {
			msg := "Hub could not save these changes (its database did not answer); nothing in this space was changed. Apply again."
			if err := failCalls(ctx, in, sp.SpaceID, sp.CallIDs, ReceiptFailed, msg); err != nil {
				return ApplyResult{}, err
			}
		}
	}
	for _, wc := range plan.Plans {
		if err := runSteps(ctx, in, req, wc); err != nil {
			return ApplyResult{}, err
		}
	}
	outsideCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		// Never resent on its own: a send whose outcome is not known is
		// reported as unknown and waits for the person's say.
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	for _, oc := range plan.Outside {
		err := workflow.ExecuteActivity(outsideCtx, a.ApplyOutside, activities.ApplyOutsideInput{
			MessageID: in.MessageID, PersonID: in.PersonID, SpaceID: oc.SpaceID, CallID: oc.CallID, ResendUnknown: req.ResendUnknown}).Get(ctx, nil)
		if err != nil {
			msg := "The outcome is unknown: the request may have reached the app. Check the app, then apply again to send it anyway."
			if err := failCalls(ctx, in, oc.SpaceID, []string{oc.CallID}, ReceiptUnknown, msg); err != nil {
				return ApplyResult{}, err
			}
		}
	}
	var res ApplyResult
	err := workflow.ExecuteLocalActivity(localCtx(ctx), a.ApplyReceipts, ai).Get(ctx, &res.Receipts)
	return res, err
}

// failCalls saves the receipts of calls whose activity gave up.
func failCalls(ctx workflow.Context, in ApplyInput, spaceID string, callIDs []string, status, msg string) error {
	fail := activities.FailCallsInput{MessageID: in.MessageID, SpaceID: spaceID, CallIDs: callIDs,
		Status: status, Message: msg}
	return workflow.ExecuteLocalActivity(localCtx(ctx), a.FailCalls, fail).Get(ctx, nil)
}

// runSteps runs a workflow call's steps in order, each its own activity
// and state row; the first step that does not succeed stops the rest, and
// the call's receipt says what finished.
func runSteps(ctx workflow.Context, in ApplyInput, req ApplyRequest, wc activities.CallRef) error {
	ref := activities.PlanCallInput{MessageID: in.MessageID, CallID: wc.CallID, PersonID: in.PersonID, SpaceID: wc.SpaceID}
	var ids []string
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), a.PrepareSteps, ref).Get(ctx, &ids); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil // refused: PrepareSteps wrote the receipt
	}
	stepCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		// A retry after the step was marked running reports it interrupted.
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, MaximumAttempts: 3},
	})
	for _, id := range ids {
		var status string
		err := workflow.ExecuteActivity(stepCtx, a.ApplyStep, activities.ApplyPlanStepInput{PlanCallInput: ref, StepID: id,
			RetryInterrupted: req.RetryInterrupted}).Get(ctx, &status)
		if err != nil || status != PlanStepSucceeded {
			break
		}
	}
	return workflow.ExecuteLocalActivity(localCtx(ctx), a.FinishWorkflowCall, ref).Get(ctx, nil)
}
