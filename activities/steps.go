package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"hub/chat"
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
	// RetryInterrupted runs a step again that was interrupted while
	// running ("Retry remaining steps"); without it such a step is only
	// reported.
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
	turn, err := a.Chat.GetTurn(ctx, call.TurnID)
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

// ApplyStep runs one step as its own durable unit: a step that succeeded
// is never run again; one found running was interrupted (the worker died
// during it) and is only reported, unless the person asks to retry it.
// Access, settings and the step's input are checked now, with every $ref
// resolved from the earlier steps' results. A Hub write runs in its own
// transaction and Undo group with the step's new state.
func (a *Activities) ApplyStep(ctx context.Context, in ApplyPlanStepInput) (string, error) {
	call, err := a.Chat.GetToolCall(ctx, in.CallID)
	if err != nil {
		return "", gone(err)
	}
	var plan tools.PlanInput
	if err := json.Unmarshal([]byte(call.Input), &plan); err != nil {
		return "", err
	}
	steps, err := a.Chat.PlanSteps(ctx, in.CallID)
	if err != nil {
		return "", err
	}
	outputs := map[string]json.RawMessage{}
	var st chat.PlanStep
	var spec tools.PlanStep
	for i, s := range steps {
		if s.StepID == in.StepID {
			st, spec = s, plan.Steps[i]
			break
		}
		if s.Status == chat.PlanStepSucceeded {
			outputs[s.StepID] = json.RawMessage(s.Output)
		}
	}
	switch {
	case st.Status == chat.PlanStepSucceeded:
		return st.Status, nil
	case (st.Status == chat.PlanStepRunning || st.Status == chat.PlanStepInterrupted) && !in.RetryInterrupted:
		st.Status = chat.PlanStepInterrupted
		st.ErrorMessage = "interrupted while it ran; its outcome is not known. Check, then choose Retry remaining steps."
		return st.Status, a.Chat.SavePlanStep(ctx, st)
	}
	fail := func(terr *tools.Error) (string, error) {
		st.Status, st.ErrorCode, st.ErrorMessage = chat.PlanStepFailed, terr.Code, terr.Message
		return st.Status, a.Chat.SavePlanStep(ctx, st)
	}
	resolved, err := tools.ResolveRefs(spec.Input, outputs)
	if err != nil {
		return fail(tools.AsError(err))
	}
	st.ResolvedInput = string(resolved)
	role, err := a.Workspace.Access(ctx, in.PersonID, in.SpaceID)
	if errors.Is(err, workspace.ErrNotFound) {
		return fail(tools.Errorf(tools.CodeForbidden, "you can no longer open this space"))
	}
	if err != nil {
		return "", err
	}
	settings, err := a.Workspace.GetSettings(ctx, in.PersonID)
	if err != nil {
		return "", err
	}
	def, ok := a.Tools.Get(spec.Tool)
	if !ok {
		return fail(tools.Errorf(tools.CodeUnknownTool, "no tool called %q", spec.Tool))
	}
	// From here on a retry finds the step running and reports it
	// interrupted instead of running it twice.
	st.Status = chat.PlanStepRunning
	if err := a.Chat.SavePlanStep(ctx, st); err != nil {
		return "", err
	}
	if err := a.fault(FaultStepRunning); err != nil {
		return "", err
	}
	actor := workspace.Actor{PersonID: in.PersonID, Via: workspace.ViaAssistant}
	env := tools.Env{Workspace: a.Workspace, Actor: actor, SpaceID: in.SpaceID, Role: role, Settings: settings,
		CallID: in.CallID + "#" + in.StepID, Applying: true}
	call2 := tools.Call{Name: spec.Tool, Arguments: st.ResolvedInput, Offered: []string{spec.Tool}}
	if def.OutsideTransaction || def.Area == tools.AreaApps {
		res, terr := a.Tools.Dispatch(ctx, env, call2)
		if terr != nil {
			return fail(terr)
		}
		return a.stepDone(ctx, st, res, "")
	}
	var res tools.Result
	var terr *tools.Error
	err = a.Workspace.Tx(ctx, func(tx *workspace.Service) error {
		gid, err := tx.NewUndoGroup(ctx, actor, in.SpaceID, tools.Action(spec.Tool))
		if err != nil {
			terr = tools.AsError(err)
			return errRollback
		}
		env.Workspace = tx.WithUndo(gid)
		if res, terr = a.Tools.Dispatch(ctx, env, call2); terr != nil {
			return errRollback
		}
		done, err := stepState(st, res, gid)
		if err != nil {
			return err
		}
		return a.Chat.WithDB(tx.DB()).SavePlanStep(ctx, done)
	})
	switch {
	case terr != nil:
		return fail(terr)
	case err != nil:
		return "", err
	}
	return chat.PlanStepSucceeded, nil
}

func (a *Activities) stepDone(ctx context.Context, st chat.PlanStep, res tools.Result, gid string) (string, error) {
	done, err := stepState(st, res, gid)
	if err != nil {
		return "", err
	}
	return done.Status, a.Chat.SavePlanStep(ctx, done)
}

// stepState is a step that succeeded, with its output kept for later refs.
func stepState(st chat.PlanStep, res tools.Result, gid string) (chat.PlanStep, error) {
	out, err := json.Marshal(res.Data)
	if err != nil {
		return st, fmt.Errorf("step %s output: %w", st.StepID, err)
	}
	st.Status, st.Output, st.Summary, st.UndoGroupID, st.ErrorCode, st.ErrorMessage = chat.PlanStepSucceeded, string(out), res.Summary, gid, "", ""
	return st, nil
}

// FinishWorkflowCall writes the receipt of a workflow call from its steps:
// succeeded when every step did; otherwise failed, saying which steps
// finished and where it stopped (outside changes are not rolled back).
func (a *Activities) FinishWorkflowCall(ctx context.Context, in PlanCallInput) error {
	steps, err := a.Chat.PlanSteps(ctx, in.CallID)
	if err != nil {
		return err
	}
	var done, problem []string
	for _, st := range steps {
		switch st.Status {
		case chat.PlanStepSucceeded:
			done = append(done, fmt.Sprintf("%d. %s", st.Idx+1, st.Summary))
		case chat.PlanStepFailed, chat.PlanStepInterrupted:
			problem = append(problem, fmt.Sprintf("step %d (%s) %s: %s", st.Idx+1, st.StepID, st.Status, st.ErrorMessage))
		}
	}
	r := chat.Receipt{CallID: in.CallID, SpaceID: in.SpaceID, Status: chat.ReceiptSucceeded, Summary: strings.Join(done, " ")}
	if len(done) < len(steps) {
		r.Status, r.ErrorCode = chat.ReceiptFailed, tools.CodeFailed
		r.ErrorMessage = fmt.Sprintf("Finished %d of %d steps. ", len(done), len(steps)) + strings.Join(problem, "; ") +
			". Changes already made stay; Apply again to run the remaining steps."
	}
	return a.Chat.SaveReceipt(ctx, in.MessageID, r)
}
