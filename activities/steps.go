package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"hub/chat"
	"hub/toolrun"
	"hub/tools"
	"hub/workspace"
)

// PlanCallInput names an applied hub_run_workflow call.
type PlanCallInput struct {
	MessageID string
	CallID    string
	PersonID  string
	SpaceID   string
}

// ApplyPlanStepInput runs one step of a workflow call.
type ApplyPlanStepInput struct {
	PlanCallInput
	StepID string
	// RetryInterrupted runs again a step interrupted while running
	// ("Retry remaining steps"); without it such a step is only reported.
	RetryInterrupted bool
}

// PrepareSteps checks a held workflow against the hash it was proposed
// with and creates its steps' state rows; it returns the step ids in order.
func (a *Activities) PrepareSteps(ctx context.Context, in PlanCallInput) ([]string, error) {
	call, err := a.Chat.GetToolCall(ctx, in.CallID)
	if err != nil {
		return nil, gone(err)
	}
	var plan tools.PlanInput
	if err := json.Unmarshal([]byte(call.Input), &plan); err != nil || plan.PlanHash != tools.PlanHash(plan.Steps) {
		return nil, a.Chat.SaveReceipt(ctx, in.MessageID, chat.Receipt{CallID: in.CallID, SpaceID: in.SpaceID, Status: chat.ReceiptFailed,
			ErrorCode: tools.CodeRefused, ErrorMessage: "this workflow changed after it was proposed; nothing was run. Ask again."})
	}
	turn, _, err := a.Chat.GetTurn(ctx, call.TurnID)
	if err != nil {
		return nil, gone(err)
	}
	rows := make([]chat.PlanStep, len(plan.Steps))
	for i, st := range plan.Steps {
		rows[i] = chat.PlanStep{CallID: in.CallID, StepID: st.ID, Idx: i, SpaceID: in.SpaceID, ActorID: in.PersonID,
			ConversationID: turn.ConversationID, Tool: st.Tool}
	}
	saved, err := a.Chat.EnsurePlanSteps(ctx, rows)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(saved))
	for i, st := range saved {
		ids[i] = st.StepID
	}
	return ids, nil
}

// ApplyStep runs one step as its own durable unit (toolrun.Runner.Run),
// its $refs resolved from the earlier steps' results: a step that
// succeeded is never run again; one found running was interrupted and is
// only reported, unless the person asks to retry it.
func (a *Activities) ApplyStep(ctx context.Context, in ApplyPlanStepInput) (string, error) {
	pc, err := a.Chat.GetToolCall(ctx, in.CallID)
	if err != nil {
		return "", gone(err)
	}
	var plan tools.PlanInput
	if err := json.Unmarshal([]byte(pc.Input), &plan); err != nil {
		return "", err
	}
	steps, err := a.Chat.PlanSteps(ctx, in.CallID)
	if err != nil {
		return "", err
	}
	var st chat.PlanStep
	var spec tools.PlanStep
	outputs := map[string]json.RawMessage{}
	for i, s := range steps {
		if s.StepID == in.StepID {
			st, spec = s, plan.Steps[i]
			break
		}
		if s.Status == chat.PlanStepSucceeded {
			outputs[s.StepID] = json.RawMessage(s.Output)
		}
	}
	if st.Status == chat.PlanStepSucceeded {
		return st.Status, nil
	}
	call := toolrun.Call{ID: in.CallID + "#" + in.StepID, PersonID: in.PersonID, SpaceID: in.SpaceID, Tool: spec.Tool,
		Applying: true, AlwaysUndo: true,
		Begun: (st.Status == chat.PlanStepRunning || st.Status == chat.PlanStepInterrupted) && !in.RetryInterrupted}
	if !call.Begun {
		resolved, err := tools.ResolveRefs(spec.Input, outputs)
		if err != nil {
			call.Invalid = tools.AsError(err)
		} else {
			call.Arguments, st.ResolvedInput = string(resolved), string(resolved)
		}
	}
	// From here a retry finds the step running, not to be run twice.
	call.Started = func(ctx context.Context) error {
		st.Status = chat.PlanStepRunning
		if err := a.Chat.SavePlanStep(ctx, st); err != nil {
			return err
		}
		return a.fault(FaultStepRunning)
	}
	_, err = a.runner(a.Tools).Run(ctx, call, func(ctx context.Context, out toolrun.Outcome) error {
		switch {
		case out.Kind == toolrun.Succeeded:
			data, err := json.Marshal(out.Result.Data) // kept for later steps' $refs
			if err != nil {
				return fmt.Errorf("step %s output: %w", st.StepID, err)
			}
			st.Status, st.Output, st.Summary = chat.PlanStepSucceeded, string(data), out.Result.Summary
			st.UndoGroupID, st.ErrorCode, st.ErrorMessage = out.UndoGroupID, "", ""
			st.Refs = slices.Clone(capRefs(out.Result.Refs))
			inSpace(st.Refs, pc.SpaceID)
		case call.Begun: // interrupted, or unknown for an outside write
			st.Status = chat.PlanStepInterrupted
			st.ErrorMessage = "interrupted while it ran; its outcome is not known. Check, then choose Retry remaining steps."
		default:
			st.Status, st.ErrorCode, st.ErrorMessage = chat.PlanStepFailed, out.Err.Code, out.Err.Message
		}
		return a.Chat.SavePlanStep(ctx, st)
	})
	if err != nil {
		return "", err
	}
	return st.Status, nil
}

// FinishWorkflowCall writes the receipt of a workflow call from its steps:
// succeeded when every step did, else failed, saying where it stopped.
func (a *Activities) FinishWorkflowCall(ctx context.Context, in PlanCallInput) error {
	steps, err := a.Chat.PlanSteps(ctx, in.CallID)
	if err != nil {
		return err
	}
	var done, problem []string
	var refs []workspace.Ref
	for _, st := range steps {
		switch st.Status {
		case chat.PlanStepSucceeded:
			done = append(done, fmt.Sprintf("%d. %s", st.Idx+1, st.Summary))
			refs = append(refs, st.Refs...)
		case chat.PlanStepFailed, chat.PlanStepInterrupted:
			problem = append(problem, fmt.Sprintf("step %d (%s) %s: %s", st.Idx+1, st.StepID, st.Status, st.ErrorMessage))
		}
	}
	r := chat.Receipt{CallID: in.CallID, SpaceID: in.SpaceID, Status: chat.ReceiptSucceeded, Summary: strings.Join(done, " "),
		Refs: dedupeRefs(refs, maxCallRefs)}
	if len(done) < len(steps) {
		r.Status, r.ErrorCode = chat.ReceiptFailed, tools.CodeFailed
		r.ErrorMessage = fmt.Sprintf("Finished %d of %d steps. ", len(done), len(steps)) + strings.Join(problem, "; ") +
			". Changes already made stay; Apply again to run the remaining steps."
	}
	return a.Chat.SaveReceipt(ctx, in.MessageID, r)
}
