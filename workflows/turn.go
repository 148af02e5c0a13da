package workflows

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"hub/activities"
)

// a is for method references only: the worker registers the real value.
var a *activities.Activities

// Error codes a turn can end with, as the error frame and the messages
// endpoint show them.
const (
	CodeUnavailable = "unavailable"
	CodeTimeout     = "timeout"
	CodeModel       = "model_error"
	CodeFailed      = "failed"
	CodeForbidden   = "forbidden"
	CodeTooLarge    = "too_large"
	// CodeBudgetExceeded: the space's monthly budget could not hold the
	// next model call, which was not made.
	CodeBudgetExceeded = "budget_exceeded"
)

// Turn runs one assistant turn: prepare, then up to MaxSteps model steps
// (the last tools-off), running each step's tool calls side by side, then
// finish, saving the turn as done, stopped or error. An error turn is saved
// first, then its workflow fails with Hub's error code (TurnFailed).
func Turn(ctx workflow.Context, in TurnInput) (TurnResult, error) {
	t := &turn{in: in, state: TurnState{Status: StatusQueued}}
	if err := t.setup(ctx); err != nil {
		return TurnResult{}, err
	}
	return t.run(ctx)
}

type turn struct {
	in    TurnInput
	plan  activities.Plan
	state TurnState

	stopping, paused bool // set by the stop/pause/resume signals
	// heard counts the stop and pause signals received, as the api counts
	// the ones it sends (chat.RecordInterrupt); countsInterrupts is set
	// from the interrupt-count version on, when model calls compare them.
	heard            int
	countsInterrupts bool
	// rowPaused: a pause was heard since the turn last recorded working, so
	// its row may still read paused (the api writes working after Resume).
	rowPaused   bool
	expired     bool // passed its wall-time bound (limit)
	limit       time.Duration
	cancelModel workflow.CancelFunc // the model call in flight, if any
	shape       workflow.Version    // the turn-shape version (see version)
}

// The versions from which Turn changed; turns recorded before one replay
// without its change.
const (
	// turnShape: one marker, turn-shape, stands for every change gated
	// before it, all at their newest (each GetVersion records a marker and
	// upserts TemporalChangeVersion). A turn recorded before it asks each
	// change as it did; a later change gets its own GetVersion again.
	turnShape = 1
	// localToolCalls: tool calls run as local activities.
	localToolCalls = 1
	// interruptCount: a turn counts the stops and pauses it hears, hands
	// the count to each model call, and waits for the signal behind an
	// interrupted call only until it heard one more since the call began.
	interruptCount = 1
	// resultEnding: a turn's result carries its error code and message.
	resultEnding = 1
	// errorFails: an error turn's workflow fails (TurnFailed) instead of
	// completing with the error in its result only.
	errorFails = 1
	// wallClock: a turn races a timer to its wall-time bound.
	wallClock = 1
	// resetWallClock: a run reset after the turn's bound had passed gets
	// the bound afresh, as the server renews the execution timeout.
	resetWallClock = 1
)

// version is workflow.GetVersion for a change gated before turnShape:
// newest for a turn of that shape, else the change's own marker.
func (t *turn) version(ctx workflow.Context, changeID string, newest workflow.Version) workflow.Version {
	if t.shape >= turnShape {
		return newest
	}
	return workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, newest)
}

func (t *turn) setup(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, StateQuery, func() (TurnState, error) { return t.state, nil }); err != nil {
		return err
	}
	// Signals are handled as they arrive; repeated or out-of-order ones are harmless.
	workflow.Go(ctx, func(ctx workflow.Context) {
		stop := workflow.GetSignalChannel(ctx, StopSignal)
		pause := workflow.GetSignalChannel(ctx, PauseSignal)
		resume := workflow.GetSignalChannel(ctx, ResumeSignal)
		for {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(stop, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, nil)
				t.heard++
				t.stopping = true
				t.interrupt()
			})
			sel.AddReceive(pause, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, nil)
				t.heard++
				if !t.stopping {
					t.paused = true
					t.rowPaused = true
					t.interrupt()
				}
			})
			sel.AddReceive(resume, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, nil)
				t.paused = false
			})
			sel.Select(ctx)
		}
	})
	return nil
}

// interrupt cancels the model call in flight; a tool call already running
// finishes and is reported.
func (t *turn) interrupt() {
	if t.cancelModel != nil {
		t.cancelModel()
	}
}

func (t *turn) run(ctx workflow.Context) (TurnResult, error) {
	t.shape = workflow.GetVersion(ctx, "turn-shape", workflow.DefaultVersion, turnShape)
	t.setStatus(ctx, StatusWorking, 0)
	t.startWallClock(ctx)
	t.countsInterrupts = t.version(ctx, "interrupt-count", interruptCount) >= interruptCount
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), a.PrepareTurn, activities.TurnRef{TurnID: t.in.TurnID}).Get(ctx, &t.plan); err != nil {
		code, msg := CodeFailed, "The assistant could not start this turn. Retry it."
		var ae *temporal.ApplicationError
		if errors.As(err, &ae) {
			switch ae.Type() {
			case activities.ErrTypeForbidden:
				code, msg = CodeForbidden, "You can no longer open this space."
			case activities.ErrTypeTooLarge:
				code, msg = CodeTooLarge, ae.Message()
			}
		}
		return t.finish(ctx, StatusError, code, msg)
	}
	maxSteps := t.plan.MaxSteps
	rerun := false
	for step := 1; step <= maxSteps; {
		t.state.Step = step
		if t.stopping {
			return t.finish(ctx, StatusStopped, "", "")
		}
		if t.expired {
			return t.finish(ctx, StatusError, CodeTimeout, t.expiredMessage())
		}
		if t.paused {
			// Waits holding no worker slot; the interrupted model call then runs again.
			t.persistStatus(ctx, StatusPaused, step)
			if err := workflow.Await(ctx, func() bool { return !t.paused || t.stopping || t.expired }); err != nil {
				return TurnResult{}, err
			}
			if !t.stopping && !t.expired {
				t.persistStatus(ctx, StatusWorking, step)
			}
			continue
		}
		if t.countsInterrupts && t.rowPaused {
			// Paused and resumed while a call or a tool ran: record working
			// first, so the call does not read the api's pause and refuse.
			t.persistStatus(ctx, StatusWorking, step)
		}
		var ms activities.ModelStep
		in := activities.CallModelInput{TurnID: t.in.TurnID, Step: step, ToolsOff: step == maxSteps, Rerun: rerun,
			Interrupts: t.heard, CountsInterrupts: t.countsInterrupts, Model: t.in.Model, Effort: t.in.Effort}
		mctx, cancel := workflow.WithCancel(ctx)
		t.cancelModel = cancel
		err := workflow.ExecuteActivity(t.modelCtx(mctx), a.CallModel, in).Get(ctx, &ms)
		t.cancelModel = nil
		cancel()
		if err != nil {
			if t.interrupted(ctx, err, in.Interrupts) {
				rerun = true
				continue // stop or pause: the top of the loop decides
			}
			code, msg := t.modelFailure(err)
			return t.finish(ctx, StatusError, code, msg)
		}
		rerun = false
		if ms.Nudged && step < maxSteps {
			step++ // the answer goes back to the model with a note
			continue
		}
		if len(ms.ToolCalls) == 0 {
			return t.finish(ctx, StatusDone, "", "")
		}
		futures := make([]workflow.Future, len(ms.ToolCalls))
		for i, c := range ms.ToolCalls {
			futures[i] = t.runTool(ctx, activities.RunToolInput{TurnID: t.in.TurnID, CallID: c.ID})
		}
		for _, f := range futures {
			var out activities.ToolOutcome
			if err := f.Get(ctx, &out); err != nil {
				return t.finish(ctx, StatusError, CodeFailed, "A tool call could not be completed. Retry the turn.")
			}
		}
		step++
	}
	// The last step is tools-off, so the loop always returns; this is a guard.
	return t.finish(ctx, StatusDone, "", "")
}

func (t *turn) runTool(ctx workflow.Context, in activities.RunToolInput) workflow.Future {
	if t.version(ctx, "local-tool-calls", localToolCalls) == workflow.DefaultVersion {
		return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute,
			RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, MaximumAttempts: 5},
		}), a.RunTool, in)
	}
	return workflow.ExecuteLocalActivity(toolCtx(ctx), a.RunTool, in)
}

// interrupted tells whether a failed model call was ended by Stop or Pause
// rather than by a fault. The api's fast path can close the model's stream
// before the signal is processed, so it waits briefly for the signal heard
// since the call was scheduled (heard was the count then).
func (t *turn) interrupted(ctx workflow.Context, err error, heard int) bool {
	var ae *temporal.ApplicationError
	fast := errors.As(err, &ae) && ae.Type() == activities.ErrTypeInterrupted
	if !temporal.IsCanceledError(err) && !fast {
		return false
	}
	if t.countsInterrupts {
		if t.heard == heard && !t.expired {
			ok, werr := workflow.AwaitWithTimeout(ctx, 10*time.Second, func() bool { return t.heard > heard || t.expired })
			if werr != nil {
				return false
			}
			var d activities.InterruptedDetails
			if !ok && fast && ae.HasDetails() && ae.Details(&d) == nil && d.Interrupts > t.heard {
				// The api counted a signal this run never heard (a reset
				// that left it out): catch up, or every call is refused.
				t.heard = d.Interrupts
			}
		}
		return true
	}
	if !t.stopping && !t.paused && !t.expired {
		if _, werr := workflow.AwaitWithTimeout(ctx, 10*time.Second, func() bool { return t.stopping || t.paused || t.expired }); werr != nil {
			return false
		}
	}
	// Still neither: paused and resumed before the call reported; it runs again.
	return true
}

// persistStatus records a running state the top bar shows.
func (t *turn) persistStatus(ctx workflow.Context, status string, step int) {
	t.setStatus(ctx, status, step)
	if status == StatusWorking {
		t.rowPaused = false
	}
	// Failing only delays the top bar until the next change.
	_ = workflow.ExecuteLocalActivity(localCtx(ctx), a.SetTurnStatus, activities.StatusInput{TurnID: t.in.TurnID, Status: status, Step: step}).Get(ctx, nil)
}

// finish saves the ending and sends the done frame.
func (t *turn) finish(ctx workflow.Context, status, code, msg string) (TurnResult, error) {
	in := activities.FinishInput{TurnID: t.in.TurnID, Status: status, ErrorCode: code, ErrorMessage: msg}
	if err := workflow.ExecuteLocalActivity(localCtx(ctx), a.FinishTurn, in).Get(ctx, nil); err != nil {
		return TurnResult{}, fmt.Errorf("finish turn: %w", err)
	}
	t.setStatus(ctx, status, t.state.Step)
	res := TurnResult{Status: status, Steps: t.state.Step}
	if t.version(ctx, "turn-result-ending", resultEnding) != workflow.DefaultVersion {
		res.ErrorCode, res.ErrorMessage = code, msg
	}
	if status == StatusError && workflow.GetVersion(ctx, "turn-error-fails", workflow.DefaultVersion, errorFails) >= errorFails {
		// Saved and published: now fail, for the operator's filters and Reset.
		return res, TurnFailed(res)
	}
	return res, nil
}

// TurnFailed is the failure an error turn's workflow ends with: a
// non-retryable application error with Hub's error code as its type, the
// message the person read, and the TurnResult as details (see TurnEnding).
func TurnFailed(res TurnResult) error {
	return temporal.NewNonRetryableApplicationError(res.ErrorMessage, res.ErrorCode, nil, res)
}

// TurnEnding reads how a turn's workflow ended from what waiting on it
// returned (client.WorkflowRun.Get): a TurnFailed failure is an ended turn
// with its result; any other error is returned as it is.
func TurnEnding(res TurnResult, err error) (TurnResult, error) {
	if err == nil {
		return res, nil
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.HasDetails() {
		var ended TurnResult
		if ae.Details(&ended) == nil && ended.Status == StatusError && ended.ErrorCode == ae.Type() {
			return ended, nil
		}
	}
	return TurnResult{}, err
}

func (t *turn) setStatus(ctx workflow.Context, status string, step int) {
	t.state = TurnState{Status: status, Step: step}
	// A failed upsert only affects operators' searches.
	_ = workflow.UpsertTypedSearchAttributes(ctx, TurnStatusKey.ValueSet(status))
}

// modelFailure turns a failed model step into what the person reads.
func (t *turn) modelFailure(err error) (code, msg string) {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case activities.ErrTypeUnavailable:
			return CodeUnavailable, ae.Message()
		case activities.ErrTypeTimeout:
			return CodeTimeout, ae.Message()
		case activities.ErrTypeBudget:
			return CodeBudgetExceeded, ae.Message()
		case activities.ErrTypeForbidden: // removed from the space meanwhile
			return CodeForbidden, "You can no longer open this space."
		}
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) && (te.TimeoutType() == enumspb.TIMEOUT_TYPE_START_TO_CLOSE || te.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE) {
		return CodeTimeout, TimeoutMessage(t.plan.Model, t.plan.ModelTimeout)
	}
	return CodeModel, "The model could not answer this time. Retry, or ask again later."
}

// TimeoutMessage is what the chat shows when a model call passed its limit.
func TimeoutMessage(model string, limit time.Duration) string {
	within := plural(int(limit.Round(time.Minute)/time.Minute), "minute")
	if limit < time.Minute {
		within = fmt.Sprintf("%d seconds", int(limit/time.Second))
	}
	return fmt.Sprintf("%s did not answer within %s, so I stopped waiting. Ask again, or try a narrower question.",
		cmp.Or(model, "The model"), within)
}

// TurnTimeoutGrace is how much longer than its wall-time bound a turn's
// workflow may run: the api sets WorkflowExecutionTimeout to the bound plus
// this, and the turn's own timer ends it at the bound, saving its ending
// (which a hard execution timeout would not). It covers a model call's
// cancellation (up to a heartbeat) and FinishTurn.
const TurnTimeoutGrace = 2 * time.Minute

// DefaultTurnTimeout is a whole turn's wall-time bound when
// HUB_TURN_TIMEOUT is not set: every model step at the model's limit
// (MaxSteps × HUB_MODEL_TIMEOUT, 0 meaning 15 minutes) plus 10 minutes for
// tool calls and pauses.
func DefaultTurnTimeout(modelTimeout time.Duration) time.Duration {
	if modelTimeout <= 0 {
		modelTimeout = 15 * time.Minute
	}
	return time.Duration(activities.MaxSteps)*modelTimeout + 10*time.Minute
}

// startWallClock starts the timer that ends the turn at its wall-time
// bound: the execution timeout less TurnTimeoutGrace, from the workflow's
// start (time queued counts). When it fires the model call is cancelled
// as on Stop and the loop ends the turn. No execution timeout, no bound.
//
// A reset run keeps the first run's start time. When that deadline had
// passed before the reset (the run starts after it, or the timer fires more
// than TurnTimeoutGrace late, which only a renewed run lives to see), the
// bound counts again from then.
func (t *turn) startWallClock(ctx workflow.Context) {
	if t.version(ctx, "turn-wall-clock", wallClock) == workflow.DefaultVersion {
		return
	}
	renew := t.version(ctx, "turn-reset-wall-clock", resetWallClock) != workflow.DefaultVersion
	info := workflow.GetInfo(ctx)
	if info.WorkflowExecutionTimeout <= TurnTimeoutGrace {
		return
	}
	t.limit = info.WorkflowExecutionTimeout - TurnTimeoutGrace
	deadline := info.WorkflowStartTime.Add(t.limit)
	left := deadline.Sub(workflow.Now(ctx))
	if left <= 0 {
		if !renew || info.WorkflowExecution.RunID == info.OriginalRunID {
			t.expired = true
			return
		}
		deadline, left = workflow.Now(ctx).Add(t.limit), t.limit // reset after the bound
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			if err := workflow.NewTimer(ctx, left).Get(ctx, nil); err != nil {
				return
			}
			late := workflow.Now(ctx).Sub(deadline)
			if !renew || late <= TurnTimeoutGrace {
				t.expired = true
				t.interrupt()
				return
			}
			deadline, left = workflow.Now(ctx).Add(t.limit), t.limit // reset after the bound
		}
	})
}

// expiredMessage is what the chat shows for a turn past its bound.
func (t *turn) expiredMessage() string {
	if t.paused {
		return fmt.Sprintf("This turn stayed paused past its time limit of %s, so it ended. Ask again to continue.", spell(t.limit))
	}
	return fmt.Sprintf("This turn ran past its time limit of %s, so I stopped it. What was written so far is kept; ask again, or split the request into smaller ones.", spell(t.limit))
}

// spell says a duration the way people do: "2 hours 10 minutes", "45
// minutes", "30 seconds".
func spell(d time.Duration) string {
	if d < time.Minute {
		return plural(int(d.Round(time.Second)/time.Second), "second")
	}
	d = d.Round(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return plural(m, "minute")
	case m == 0:
		return plural(h, "hour")
	}
	return plural(h, "hour") + " " + plural(m, "minute")
}

// plural says n of a unit: "1 minute", "2 minutes".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// localCtx runs short, idempotent database work as local activities: no
// round trip through the server for each.
func localCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumAttempts: 5},
	})
}

// modelCtx bounds one model step: the model limit plus a margin (so the
// gateway's own limit fires first, with its message), a heartbeat timeout
// that notices a dead worker in seconds, and retries (the activity marks
// failures a retry cannot mend non-retryable).
func (t *turn) modelCtx(ctx workflow.Context) workflow.Context {
	limit := t.plan.ModelTimeout
	if limit <= 0 {
		limit = 15 * time.Minute
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: limit + 30*time.Second,
		HeartbeatTimeout:    4 * activities.HeartbeatInterval,
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 5,
		},
	})
}

// toolCtx runs a step's tool calls as local activities in the worker that
// ran the model step: no round trip through the server per call
// (docs/benchmarks.md). Retrying one is harmless: a call that has an
// outcome returns it, and a write commits together with its outcome.
func toolCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, MaximumAttempts: 5},
	})
}
