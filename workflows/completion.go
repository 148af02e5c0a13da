package workflows

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"hub/activities"
)

// CompletionWorkflowID is the workflow id of a completion, so the api can
// signal it knowing only the completion's id.
func CompletionWorkflowID(completionID string) string { return activities.CompletionKey(completionID) }

// CompletionTimeout is a completion's wall-time bound, from when it was
// queued (activities.CompletionTimeout).
const CompletionTimeout = activities.CompletionTimeout

// CompletionGrace is how much longer than its wall-time bound
// (activities.CompletionTimeout) a completion's workflow may run: the api
// sets WorkflowExecutionTimeout to the bound plus this, and the
// workflow's own timer ends it at the bound, saving its ending.
const CompletionGrace = time.Minute

// Error codes only a completion ends with, besides the turn's.
const (
	// CodeNotFound: the file or skill it works on was deleted meanwhile.
	CodeNotFound = "not_found"
	// CodeStale: the file was replaced while it was summarized.
	CodeStale = "stale"
)

// CompletionInput starts a completion: its id, and the turn it runs
// inside, if any (activities.CompletionRef). No api route sets TurnID yet.
type CompletionInput struct {
	CompletionID string
	TurnID       string `json:",omitempty"`
}

// CompletionResult is how a completion ended: done, stopped or error.
type CompletionResult struct {
	Status       string
	ErrorCode    string `json:",omitempty"`
	ErrorMessage string `json:",omitempty"`
}

// maxUnexplained bounds the model calls a completion runs again after
// an interruption no signal explains.
const maxUnexplained = 3

// Completion runs one completion: its one model call (RunCompletion,
// which saves the result and ends it done), obeying the Turn workflow's
// stop, pause and resume signals: Stop and Pause cancel the call in
// flight, Resume runs it again. It ends stopped, or error at its wall-time
// bound (the execution timeout less CompletionGrace, paused time
// included) or when the call fails for good.
func Completion(ctx workflow.Context, in CompletionInput) (CompletionResult, error) {
	c := &completion{in: in}
	c.setup(ctx)
	return c.run(ctx)
}

type completion struct {
	in                        CompletionInput
	stopping, paused, expired bool
	limit                     time.Duration
	cancelCall                workflow.CancelFunc // the model call in flight, if any
}

func (c *completion) setup(ctx workflow.Context) {
	workflow.Go(ctx, func(ctx workflow.Context) {
		stop := workflow.GetSignalChannel(ctx, StopSignal)
		pause := workflow.GetSignalChannel(ctx, PauseSignal)
		resume := workflow.GetSignalChannel(ctx, ResumeSignal)
		for {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(stop, func(ch workflow.ReceiveChannel, _ bool) {
				ch.Receive(ctx, nil)
				c.stopping = true
				c.interrupt()
			})
			sel.AddReceive(pause, func(ch workflow.ReceiveChannel, _ bool) {
				ch.Receive(ctx, nil)
				if !c.stopping {
					c.paused = true
					c.interrupt()
				}
			})
			sel.AddReceive(resume, func(ch workflow.ReceiveChannel, _ bool) {
				ch.Receive(ctx, nil)
				c.paused = false
			})
			sel.Select(ctx)
		}
	})
}

func (c *completion) interrupt() {
	if c.cancelCall != nil {
		c.cancelCall()
	}
}

func (c *completion) run(ctx workflow.Context) (CompletionResult, error) {
	c.startWallClock(ctx)
	unexplained := 0
	for {
		switch {
		case c.stopping:
			return c.finish(ctx, StatusStopped, "", "")
		case c.expired:
			return c.finish(ctx, StatusError, CodeTimeout, c.expiredMessage())
		case c.paused:
			// Waits holding no worker slot; the call then runs again.
			c.setStatus(ctx, StatusPaused)
			if err := workflow.Await(ctx, func() bool { return !c.paused || c.stopping || c.expired }); err != nil {
				return CompletionResult{}, err
			}
			continue
		}
		c.setStatus(ctx, StatusWorking)
		actx, cancel := workflow.WithCancel(ctx)
		c.cancelCall = cancel
		err := workflow.ExecuteActivity(callCtx(actx), a.RunCompletion,
			activities.CompletionRef{CompletionID: c.in.CompletionID, TurnID: c.in.TurnID}).Get(ctx, nil)
		c.cancelCall = nil
		cancel()
		if err == nil {
			return CompletionResult{Status: StatusDone}, nil // RunCompletion saved it
		}
		if c.interrupted(ctx, err) {
			if !c.stopping && !c.paused && !c.expired {
				if unexplained++; unexplained > maxUnexplained {
					return c.finish(ctx, StatusError, CodeFailed, "The completion was interrupted again and again. Start it again.")
				}
			}
			continue // the top of the loop decides
		}
		code, msg := completionFailure(err)
		return c.finish(ctx, StatusError, code, msg)
	}
}

// interrupted tells whether a failed call was ended by Stop, Pause or the
// wall-time bound rather than by a fault. The api's fast path can close
// the call before its signal is processed, so it waits briefly for one.
func (c *completion) interrupted(ctx workflow.Context, err error) bool {
	var ae *temporal.ApplicationError
	fast := errors.As(err, &ae) && ae.Type() == activities.ErrTypeInterrupted
	if !temporal.IsCanceledError(err) && !fast {
		return false
	}
	if !c.stopping && !c.paused && !c.expired {
		if _, werr := workflow.AwaitWithTimeout(ctx, 10*time.Second, func() bool { return c.stopping || c.paused || c.expired }); werr != nil {
			return false
		}
	}
	return true
}

// setStatus records a running status the top bar shows; failing only
// delays the top bar until the next change.
func (c *completion) setStatus(ctx workflow.Context, status string) {
	_ = workflow.ExecuteLocalActivity(localCtx(ctx), a.SetCompletionStatus,
		activities.CompletionStatus{CompletionID: c.in.CompletionID, Status: status}).Get(ctx, nil)
}

// finish saves a stopped or failed ending, also when the workflow itself
// is being cancelled.
func (c *completion) finish(ctx workflow.Context, status, code, msg string) (CompletionResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	in := activities.CompletionEnd{CompletionID: c.in.CompletionID, Status: status, ErrorCode: code, ErrorMessage: msg}
	if err := workflow.ExecuteLocalActivity(localCtx(dctx), a.EndCompletion, in).Get(dctx, nil); err != nil {
		return CompletionResult{}, fmt.Errorf("end completion: %w", err)
	}
	return CompletionResult{Status: status, ErrorCode: code, ErrorMessage: msg}, nil
}

// completionFailure turns a call that failed for good into what the
// person reads.
func completionFailure(err error) (code, msg string) {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case activities.ErrTypeUnavailable:
			return CodeUnavailable, ae.Message()
		case activities.ErrTypeTimeout:
			return CodeTimeout, ae.Message()
		case activities.ErrTypeBudget:
			return CodeBudgetExceeded, ae.Message()
		case activities.ErrTypeForbidden:
			return CodeForbidden, "You can no longer open this space."
		case activities.ErrTypeGone:
			return CodeNotFound, "What this completion works on was deleted meanwhile."
		case activities.ErrTypeStale:
			return CodeStale, ae.Message()
		case activities.ErrTypeUnextractable:
			return CodeFailed, ae.Message()
		case activities.ErrTypeNoSummary:
			return CodeModel, ae.Message()
		}
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) && (te.TimeoutType() == enumspb.TIMEOUT_TYPE_START_TO_CLOSE || te.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE) {
		return CodeTimeout, TimeoutMessage("", activities.CompletionTimeout)
	}
	return CodeModel, "The model could not answer this time. Try again later."
}

// startWallClock starts the timer that ends the completion at its bound:
// the execution timeout less CompletionGrace, from the workflow's start.
// No execution timeout, no bound.
func (c *completion) startWallClock(ctx workflow.Context) {
	info := workflow.GetInfo(ctx)
	if info.WorkflowExecutionTimeout <= CompletionGrace {
		return
	}
	c.limit = info.WorkflowExecutionTimeout - CompletionGrace
	left := info.WorkflowStartTime.Add(c.limit).Sub(workflow.Now(ctx))
	if left <= 0 {
		c.expired = true
		return
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		if err := workflow.NewTimer(ctx, left).Get(ctx, nil); err != nil {
			return
		}
		c.expired = true
		c.interrupt()
	})
}

func (c *completion) expiredMessage() string {
	if c.paused {
		return fmt.Sprintf("This completion stayed paused past its time limit of %s, so it ended. Start it again.", spell(c.limit))
	}
	return fmt.Sprintf("This completion did not finish within its time limit of %s, so it was stopped. Start it again.", spell(c.limit))
}

// callCtx bounds a completion's model call: CompletionTimeout, a heartbeat
// timeout that notices a dead worker in seconds, and a few retries (the
// activity marks failures a retry cannot mend non-retryable). It waits for
// the cancelled call to settle its usage.
func callCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: activities.CompletionTimeout,
		HeartbeatTimeout:    4 * activities.HeartbeatInterval,
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second, MaximumAttempts: 3,
		},
	})
}
