package activities

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"hub/assistant"
	"hub/chat"
	"hub/llm"
	"hub/stream"
	"hub/tools"
	"hub/usage"
)

// HeartbeatInterval is how often CallModel heartbeats, from a timer, while
// the model call runs: a dead worker is noticed in seconds, a model that
// thinks for minutes is not. Chunks do not heartbeat: the SDK's first
// heartbeat is synchronous and would hold the first frame back.
const HeartbeatInterval = 5 * time.Second

// CallModel runs one model step: it rebuilds the transcript, streams the
// answer (publishing text deltas) and saves the step with its tool calls
// pending, returned by id. No transaction is open across the model request
// or the verify hook.
func (a *Activities) CallModel(ctx context.Context, in CallModelInput) (ModelStep, error) {
	if a.Model == nil || !a.ModelConfigured {
		return ModelStep{}, temporal.NewNonRetryableApplicationError(noModelMessage, ErrTypeUnavailable, nil)
	}
	attempt, beat := 1, func(int) {} // outside Temporal: the in-process benchmark
	if activity.IsActivity(ctx) {
		attempt = int(activity.GetInfo(ctx).Attempt)
		beat = func(step int) { activity.RecordHeartbeat(ctx, step) }
	}
	if err := a.fault(FaultModelStart); err != nil {
		return ModelStep{}, err
	}
	// Interruptible before the turn is read: a Stop or Pause recorded after
	// the read finds the call registered, one before it is seen in the row.
	callCtx, cancelCall := context.WithCancelCause(ctx)
	defer cancelCall(nil)
	defer a.Interrupts.Register(in.TurnID, cancelCall)()
	cs, err := a.startCall(ctx, callCtx, in, attempt)
	if err != nil {
		return ModelStep{}, err
	}
	var join *joiner
	if cs.partial != "" { // resumed after a pause: continue the reply so far
		join = &joiner{partial: cs.partial}
	}

	stopBeat := heartbeatWhileWaiting(ctx, in.Step, beat)
	defer stopBeat()
	// Text frames are coalesced (coalesce.go); what gathered at the end is
	// published with the step, so the frames always add up to the saved text.
	text := newTextFrames(context.WithoutCancel(ctx), a.Frames, in.TurnID)
	res, notGiven, level, err := a.streamWithParts(callCtx, cs.m, cs.req, cs.userIdx, cs.parts, cs.from, func(c llm.Chunk) error {
		delta := c.TextDelta
		if join != nil {
			delta = join.Add(delta)
		}
		if delta == "" {
			return nil
		}
		delta = cs.sep + delta
		cs.sep = ""
		return text.Add(delta)
	})
	stopBeat()
	if join != nil {
		if aerr := text.Add(join.Flush()); aerr != nil && err == nil {
			err = aerr
		}
		res.Text = join.partial + join.Out()
	}
	if err != nil {
		return ModelStep{}, a.failedCall(ctx, callCtx, in, attempt, level, res, text, err)
	}
	gathered, err := text.Take()
	if err != nil {
		return ModelStep{}, err
	}
	if note := notSeenNote(append(cs.missing, notGiven...), cs.steps); note != "" {
		delta := cs.sep + note
		if res.Text != "" {
			delta = "\n\n" + note
		}
		gathered += delta
		res.Text = strings.TrimSpace(res.Text + "\n\n" + note)
	}
	st := stepOf(in, attempt, level, res, res.FinishReason)
	if !in.ToolsOff {
		for _, c := range res.ToolCalls {
			st.ToolCalls = append(st.ToolCalls, chat.ToolCall{ProviderCallID: c.ID, Tool: c.Name, Arguments: c.Arguments})
		}
	}
	var ending []stream.Draft
	if len(st.ToolCalls) == 0 {
		if a.Verifier != nil && gathered != "" { // shown before the verify hook's network call
			if _, err := a.Frames.Publish(ctx, in.TurnID, stream.TypeText, map[string]string{"delta": gathered}); err != nil {
				return ModelStep{}, err
			}
			gathered = ""
		}
		st.Nudge, st.NudgeKind = a.checkAnswer(ctx, in, cs.turn, cs.user, cs.steps, res.Text)
		ending = discardSentBack(in, st)
	}
	calls, err := a.saveStep(ctx, in.TurnID, st, append(textFrame(gathered), ending...)...)
	if err != nil {
		return ModelStep{}, err
	}
	if err := a.fault(FaultModelSettled); err != nil {
		return ModelStep{}, err
	}
	out := ModelStep{FinishReason: res.FinishReason, HasText: res.Text != "", Nudged: st.Nudge != ""}
	for _, c := range calls {
		out.ToolCalls = append(out.ToolCalls, ToolCallRef{ID: c.ID, Tool: c.Tool})
	}
	return out, nil
}

// failedCall ends a model call that failed. Stopped, paused or past
// HUB_MODEL_TIMEOUT, the text streamed so far (none of its tool calls) is
// saved as the step with what was used, so the reply shows what the person
// saw and a resumed call goes on from it (continuation.go).
func (a *Activities) failedCall(ctx, callCtx context.Context, in CallModelInput, attempt, level int, res llm.Result,
	text *textFrames, err error) error {
	stopped := callCtx.Err() != nil
	reason := chat.FinishTimeout
	switch {
	case stopped && len(res.ToolCalls) > 0:
		reason = chat.FinishInterruptedInToolCalls
	case stopped:
		reason = chat.FinishInterrupted
	case !pastLimit(err):
		if ferr := text.Flush(); ferr != nil {
			return ferr
		}
		return modelError(err)
	}
	gathered, terr := text.Take()
	if terr != nil {
		return terr
	}
	partial := stepOf(in, attempt, level, res, reason)
	if _, serr := a.saveStep(context.WithoutCancel(ctx), in.TurnID, partial, textFrame(gathered)...); serr != nil {
		return serr
	}
	switch {
	case !stopped:
		return modelError(err)
	case errors.Is(context.Cause(callCtx), stream.ErrInterrupted):
		return temporal.NewNonRetryableApplicationError("the model call was interrupted", ErrTypeInterrupted, err)
	}
	return err
}

func stepOf(in CallModelInput, attempt, level int, res llm.Result, reason string) chat.Step {
	return chat.Step{Step: in.Step, Attempt: attempt, Text: res.Text, FinishReason: reason, PartsLevel: level,
		Usage: chat.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens}}
}

// pastLimit tells a call that passed HUB_MODEL_TIMEOUT, our own deadline
// rather than the endpoint's 408 or 504.
func pastLimit(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && le.Kind == llm.KindTimeout && le.Status == 0
}

// callStart is what a model call prepared before its request (startCall).
type callStart struct {
	turn    chat.Turn
	user    chat.Message
	steps   []chat.Step
	req     llm.Request
	userIdx int
	parts   []llm.Part
	from    int
	sep     string
	missing []string
	partial string // the reply so far a resumed call continues (continuable)
	m       *meter
}

// startCall is a model call up to its request: it reads the turn, checks
// access, rebuilds the transcript, and commits the status change with its
// frame.
func (a *Activities) startCall(ctx, callCtx context.Context, in CallModelInput, attempt int) (*callStart, error) {
	before := in.Step
	if in.Rerun {
		before++ // and the step a pause cut off, to continue it
	}
	turn, rec, steps, err := a.turnAndSteps(ctx, in.TurnID, before)
	if err != nil {
		return nil, gone(err)
	}
	partial := ""
	if n := len(steps); n > 0 && steps[n-1].Step == in.Step { // read on a rerun only
		partial, steps = continuable(&steps[n-1]), steps[:n-1]
	}
	if err := a.claim(ctx, turn, in.Step-1); err != nil {
		return nil, err
	}
	if err := a.stillMember(ctx, turn); err != nil {
		return nil, err
	}
	if turn.Status == chat.StatusStopping || turn.Status == chat.StatusPaused ||
		(in.CountsInterrupts && turn.Interrupts > in.Interrupts) {
		// Stopped or paused after the workflow scheduled this call: its
		// signal will cancel the call even if the person resumed since, so
		// calling the model now would run a step only to cut it off.
		return nil, temporal.NewNonRetryableApplicationError("the turn was stopped or paused before this model call",
			ErrTypeInterrupted, nil, InterruptedDetails{Interrupts: turn.Interrupts})
	}
	user, history, err := a.turnMessages(ctx, turn)
	if err != nil {
		return nil, err
	}
	history = keepIDs(history, rec.HistoryIDs)

	parts, missing, err := a.attachedParts(ctx, turn, user)
	if err != nil {
		return nil, err
	}
	model, info := a.turnModel(turn, in.Model, in.Effort)
	parts, notTaken := modelParts(parts, info)
	missing = append(missing, notTaken...)
	reg, err := a.registryIn(ctx, turn.SpaceID)
	if err != nil {
		return nil, err
	}
	tr := assistant.Transcript{Instructions: rec.Instructions, History: history, Context: rec.Context,
		UserText: user.Text, Steps: steps, Partial: partial, ToolsOff: in.ToolsOff, Tools: reg}
	req := llm.Request{Messages: tr.Messages()}
	userIdx := userMessageIndex(req.Messages, len(history))
	if !in.ToolsOff {
		req.Tools = a.toolSchemas(reg, turn, rec.OfferedTools)
	}
	if n := assistant.FitPassages(assistant.NewBudget(info.Name, a.budgetWindow(info)), &req); n > 0 {
		logTurn(ctx, "passages left out to fit the context window", "turn", turn.ID, "step", in.Step, "passages", n)
	}

	// Earlier steps' text is separated from this step's; the files'
	// fallback goes on from where the last step ended.
	sep, from := "", 0
	for _, st := range steps {
		if st.Text != "" && !discarded(st) {
			sep = "\n\n"
		}
		from = max(from, st.PartsLevel)
	}
	if partial != "" {
		sep = "" // the continuation joins the text on screen
	}
	if errors.Is(context.Cause(callCtx), stream.ErrInterrupted) { // while the transcript was read
		return nil, temporal.NewNonRetryableApplicationError("the model call was interrupted before it started", ErrTypeInterrupted, nil)
	}
	status := map[string]any{"status": stream.StatusWorking, "step": in.Step, "text": "Thinking…"}
	switch {
	case attempt > 1: // the client drops the failed attempt's text
		status["status"], status["discard"], status["text"] = stream.StatusRetrying, true, "The model call failed; trying again…"
	case in.Rerun:
		// Resumed after a pause: go on from the text on screen, or start
		// the step over when there is nothing to go on from.
		status["resumed"], status["text"] = true, "Resuming…"
		if partial == "" {
			status["discard"] = true
		}
	}
	err = a.Workspace.InTx(ctx, func(ctx context.Context) error {
		if err := a.Chat.MarkWorking(ctx, in.TurnID, in.Step); err != nil {
			return err
		}
		_, err := a.Frames.Publish(ctx, in.TurnID, stream.TypeStatus, status)
		return err
	})
	return &callStart{turn: turn, user: user, steps: steps, req: req, userIdx: userIdx, parts: parts, from: from, sep: sep,
		missing: missing, partial: partial, m: a.metered(ctx, turn, in.Step, attempt, model, info)}, err
}

func textFrame(delta string) []stream.Draft {
	if delta == "" {
		return nil
	}
	return []stream.Draft{{Type: stream.TypeText, Data: map[string]string{"delta": delta}}}
}

// saveStep saves the step with the frames that end the call, in one transaction.
func (a *Activities) saveStep(ctx context.Context, turnID string, st chat.Step, frames ...stream.Draft) ([]chat.ToolCall, error) {
	var calls []chat.ToolCall
	err := a.Workspace.InTx(ctx, func(ctx context.Context) error {
		var err error
		if calls, err = a.Chat.SaveStep(ctx, turnID, st); err != nil {
			return err
		}
		for _, f := range frames {
			if _, err := a.Frames.Publish(ctx, turnID, f.Type, f.Data); err != nil {
				return err
			}
		}
		return nil
	})
	return calls, err
}

// discardSentBack is the frame that tells the client to drop the text of
// a step the answer check sends back (discarded): the person reads the
// model's next answer.
func discardSentBack(in CallModelInput, st chat.Step) []stream.Draft {
	if !discarded(st) || st.Text == "" {
		return nil
	}
	return []stream.Draft{{Type: stream.TypeStatus, Data: map[string]any{
		"status": stream.StatusWorking, "step": in.Step, "discard": true, "text": "Checking the answer…"}}}
}

// heartbeatWhileWaiting heartbeats every HeartbeatInterval until the
// returned stop is called; calling stop again does nothing.
func heartbeatWhileWaiting(ctx context.Context, step int, beat func(int)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(HeartbeatInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				beat(step)
			}
		}
	}()
	return func() { cancel(); <-finished }
}

// modelError decides, once, whether a failed model call is retried: as
// llm.Error.Retryable says (after the server's Retry-After when it named
// one), but never past the model limit or without a configuration.
func modelError(err error) error {
	var be *usage.BudgetError
	if errors.As(err, &be) {
		// The budget working, not a fault: benign, so the SDK does not log it at ERROR.
		slog.Info("model call refused by the space's budget", "budgetMicros", be.Budget, "leftMicros", be.Left(), "neededMicros", be.Needed)
		return temporal.NewApplicationErrorWithOptions(be.Error(), ErrTypeBudget, temporal.ApplicationErrorOptions{
			NonRetryable: true, Category: temporal.ApplicationErrorCategoryBenign})
	}
	var le *llm.Error
	if !errors.As(err, &le) {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("model call: %w", err)
	}
	switch {
	case le.Kind == llm.KindUnavailable:
		return temporal.NewNonRetryableApplicationError(le.Message, ErrTypeUnavailable, err)
	case pastLimit(err):
		return temporal.NewNonRetryableApplicationError(le.Message, ErrTypeTimeout, err)
	case le.Kind == llm.KindCanceled:
		return err
	case le.Retryable():
		return temporal.NewApplicationErrorWithOptions(le.Error(), string(le.Kind), temporal.ApplicationErrorOptions{
			Cause: err, NextRetryDelay: le.RetryAfter,
		})
	}
	return temporal.NewNonRetryableApplicationError(le.Error(), ErrTypeModel, err)
}

// checkAnswer decides whether a text-only answer goes back to the model:
// once when assistant.CheckAnswer finds fault with it, and while the
// verify hook finds something missing (assistant.VerifyPolicy). It returns
// the note to send back and its kind, or "".
func (a *Activities) checkAnswer(ctx context.Context, in CallModelInput, turn chat.Turn, user chat.Message, steps []chat.Step, text string) (string, chat.NudgeKind) {
	ans := assistant.Answer{Text: text, StepsLeft: MaxSteps - in.Step}
	verifyRounds := 0
	var calls []string
	for _, st := range steps {
		for _, c := range st.ToolCalls {
			ans.ToolsRan = true
			if c.Status == chat.CallHeld {
				ans.HeldWrites = true
			}
			if c.Tool == tools.SearchFilesTool || c.Tool == tools.FindPhraseTool {
				ans.Found = append(ans.Found, c.Result)
			}
			calls = append(calls, c.Tool+": "+c.Summary)
		}
		switch st.NudgeKind {
		case chat.NudgeVerify:
			verifyRounds++
		case chat.NudgeAnswer:
			ans.Nudged = true
		}
	}
	if nudge, ok := assistant.CheckAnswer(ans); !ok {
		return nudge, chat.NudgeAnswer
	}
	if a.Verifier == nil || !(assistant.VerifyPolicy{}).Allow(verifyRounds, ans.StepsLeft) {
		return "", ""
	}
	missing, err := a.Verifier.Verify(ctx, assistant.VerifyInput{TurnID: turn.ID, Request: user.Text, Answer: text,
		Calls: calls, Round: verifyRounds + 1})
	if err != nil || strings.TrimSpace(missing) == "" { // a failing hook leaves the answer standing
		return "", ""
	}
	return assistant.VerifyNote(missing), chat.NudgeVerify
}

func keepIDs(history []chat.Message, ids []string) []chat.Message {
	return slices.DeleteFunc(slices.Clone(history), func(m chat.Message) bool { return !slices.Contains(ids, m.ID) })
}
