package activities

import (
	"context"
	"errors"
	"hub/assistant"
	"slices"

	"hub/chat"
	"hub/stream"
	"hub/tools"
	"hub/workspace"
)

// errRollback ends a write's transaction without committing when the tool
// failed, so a half-done write leaves nothing behind.
var errRollback = errors.New("tool failed; roll back")

// RunTool runs one saved tool call. A call that already has an outcome
// returns it unchanged, so a retried activity, a replayed workflow or an
// operator's reset never runs a write twice: a write commits together with
// its outcome row, in one transaction.
func (a *Activities) RunTool(ctx context.Context, in RunToolInput) (ToolOutcome, error) {
	call, err := a.Chat.GetToolCall(ctx, in.CallID)
	if err != nil {
		err = gone(err)
		return ToolOutcome{}, err
	}
	if call.Final() {
		return ToolOutcome{Status: call.Status, ErrorCode: call.ErrorCode}, nil
	}
	turn, err := a.Chat.GetTurn(ctx, in.TurnID)
	if err != nil {
		err = gone(err)
		return ToolOutcome{}, err
	}
	if err := a.claim(ctx, turn, call.Step); err != nil {
		return ToolOutcome{}, err
	}
	rec, err := a.Chat.GetRunRecord(ctx, in.TurnID)
	if err != nil {
		return ToolOutcome{}, err
	}
	if _, err := a.Frames.Publish(ctx, in.TurnID, stream.TypeTool, map[string]any{
		"callId": call.ID, "tool": call.Tool, "phase": "started"}); err != nil {
		return ToolOutcome{}, err
	}

	def, _ := a.Tools.Get(call.Tool) // nil for an unknown name, which dispatch explains
	// The space the call acts in: the turn's, or one of the turn's others
	// it names.
	spaceID, arguments, spaceErr, err := a.callSpace(ctx, turn, def, call.Arguments)
	if err != nil {
		return ToolOutcome{}, err
	}
	if spaceErr != nil {
		return a.finishCall(ctx, in.TurnID, call, tools.Result{}, spaceErr, workspace.Settings{})
	}
	// Access is checked again now, not trusted from when the turn started:
	// to the conversation's space (a person removed from it reads nothing
	// of it, so their turn does nothing more anywhere; its next model call
	// ends it), and to the space the call acts in.
	if spaceID != turn.SpaceID {
		_, err := a.Workspace.Access(ctx, turn.PersonID, turn.SpaceID)
		if errors.Is(err, workspace.ErrNotFound) {
			return a.finishCall(ctx, in.TurnID, call, tools.Result{}, tools.Errorf(tools.CodeForbidden, errLostAccess), workspace.Settings{})
		}
		if err != nil {
			return ToolOutcome{}, err
		}
	}
	role, err := a.Workspace.Access(ctx, turn.PersonID, spaceID)
	if errors.Is(err, workspace.ErrNotFound) {
		return a.finishCall(ctx, in.TurnID, call, tools.Result{}, tools.Errorf(tools.CodeForbidden, errLostAccess), workspace.Settings{})
	}
	if err != nil {
		return ToolOutcome{}, err
	}
	if def != nil && def.NoSpace && len(turn.Spaces) > 0 {
		// A help tool offers what the turn may use in any of its spaces.
		spaces, err := a.turnSpaces(ctx, turn)
		if err != nil {
			return ToolOutcome{}, err
		}
		role = offerRole(role, spaces)
	}
	if spaceID != turn.SpaceID {
		call.SpaceID = spaceID
	}
	settings, err := a.Workspace.GetSettings(ctx, turn.PersonID)
	if err != nil {
		return ToolOutcome{}, err
	}
	known, err := a.knownTitles(ctx, turn)
	if err != nil {
		return ToolOutcome{}, err
	}
	env := tools.Env{Workspace: a.Workspace, Actor: workspace.Actor{PersonID: turn.PersonID, Via: workspace.ViaAssistant}, SpaceID: spaceID,
		Role: role, Settings: settings, CallID: call.ID, Known: known}
	tc := tools.Call{Name: call.Tool, Arguments: arguments, Offered: rec.OfferedTools}
	if def == nil || !def.IsWrite || def.OutsideTransaction || def.Holds(settings) || !slices.Contains(rec.OfferedTools, call.Tool) {
		// Reads, held writes (nothing changes until Apply), and calls that
		// fail in dispatch need no transaction.
		res, terr := a.Tools.Dispatch(ctx, env, tc)
		res.Summary = assistant.Humanize(res.Summary, known)
		inSpace(res.Refs, call.SpaceID)
		if terr == nil {
			// hub_how_to and hub_find_tools make tools available for the
			// rest of the turn.
			if err := a.addTools(ctx, turn, role, settings, assistant.AddedTools(res.Data)); err != nil {
				return ToolOutcome{}, err
			}
		}
		return a.finishCall(ctx, in.TurnID, call, res, terr, settings)
	}

	// A write: the records and the call's outcome commit together.
	var res tools.Result
	var terr *tools.Error
	var already bool
	var undoGroup string
	err = a.Workspace.Tx(ctx, func(tx *workspace.Service) error {
		env := env
		env.Workspace = tx
		if def.Undoable {
			// One Undo group per write: the person can take back exactly
			// the records this call changed.
			gid, err := tx.NewUndoGroup(ctx, env.Actor, spaceID, tools.Action(def.Name))
			if err != nil {
				// The person may no longer write here: the call's answer.
				terr = tools.AsError(err)
				return errRollback
			}
			env.Workspace, undoGroup = tx.WithUndo(gid), gid
		}
		res, terr = a.Tools.Dispatch(ctx, env, tc)
		if terr != nil {
			return errRollback
		}
		res.Summary = assistant.Humanize(res.Summary, known)
		inSpace(res.Refs, call.SpaceID)
		o := outcomeOf(res, nil, settings)
		o.UndoGroupID, o.SpaceID = undoGroup, call.SpaceID
		won, err := a.Chat.WithDB(tx.DB()).CompleteToolCall(ctx, call.ID, o)
		if err != nil {
			return err
		}
		if !won {
			already = true
			return errRollback
		}
		return nil
	})
	switch {
	case already:
		stored, err := a.Chat.GetToolCall(ctx, call.ID)
		if err != nil {
			return ToolOutcome{}, err
		}
		return ToolOutcome{Status: stored.Status, ErrorCode: stored.ErrorCode}, nil
	case terr != nil:
		return a.finishCall(ctx, in.TurnID, call, tools.Result{}, terr, settings)
	case err != nil:
		return ToolOutcome{}, err
	}
	call.UndoGroupID = undoGroup
	if err := a.publishToolDone(ctx, in.TurnID, call, res, nil); err != nil {
		return ToolOutcome{}, err
	}
	return ToolOutcome{Status: chat.CallDone}, nil
}

// finishCall records a read's outcome or a failure and tells the stream.
func (a *Activities) finishCall(ctx context.Context, turnID string, call chat.ToolCall, res tools.Result, terr *tools.Error, settings workspace.Settings) (ToolOutcome, error) {
	o := outcomeOf(res, terr, settings)
	o.SpaceID = call.SpaceID
	won, err := a.Chat.CompleteToolCall(ctx, call.ID, o)
	if err != nil {
		return ToolOutcome{}, err
	}
	if !won {
		stored, err := a.Chat.GetToolCall(ctx, call.ID)
		if err != nil {
			return ToolOutcome{}, err
		}
		return ToolOutcome{Status: stored.Status, ErrorCode: stored.ErrorCode}, nil
	}
	if err := a.publishToolDone(ctx, turnID, call, res, terr); err != nil {
		return ToolOutcome{}, err
	}
	return ToolOutcome{Status: o.Status, ErrorCode: o.ErrorCode}, nil
}

func outcomeOf(res tools.Result, terr *tools.Error, settings workspace.Settings) chat.Outcome {
	if terr != nil {
		return chat.Outcome{Status: chat.CallFailed, Result: tools.ErrorText(terr), ErrorCode: terr.Code, ErrorMessage: terr.Message}
	}
	if res.Held {
		heldFor := chat.HeldForApply
		if settings.WritePolicy == workspace.PolicyNeedsMe {
			heldFor = chat.HeldForNeedsMe
		}
		return chat.Outcome{Status: chat.CallHeld, Summary: res.Summary, Input: string(res.Input), HeldFor: heldFor,
			Result: tools.ModelText(tools.Result{Summary: res.Summary, Data: map[string]any{"held": true, "note": assistant.HeldWriteNote}}, tools.MaxResultChars)}
	}
	refs := res.Refs
	if len(refs) > maxCallRefs {
		refs = refs[:maxCallRefs]
	}
	return chat.Outcome{Status: chat.CallDone, Result: tools.ModelText(res, tools.MaxResultChars), Summary: res.Summary, Refs: refs}
}

// inSpace marks the refs of a call that acted in another of its turn's
// spaces (spaceID; "" for the conversation's own) with that space.
func inSpace(refs []workspace.Ref, spaceID string) {
	if spaceID == "" {
		return
	}
	for i := range refs {
		refs[i].SpaceID = spaceID
	}
}

// maxCallRefs: one call names at most 50 records (seed 000 §4.1).
const maxCallRefs = 50

func (a *Activities) publishToolDone(ctx context.Context, turnID string, call chat.ToolCall, res tools.Result, terr *tools.Error) error {
	frame := map[string]any{"callId": call.ID, "tool": call.Tool, "phase": "done", "summary": res.Summary, "refs": nonNilRefs(res.Refs)}
	switch {
	case terr != nil:
		frame = map[string]any{"callId": call.ID, "tool": call.Tool, "phase": "failed", "error": terr}
	case res.Held:
		frame["phase"] = "held"
	case call.UndoGroupID != "":
		frame["undoGroupId"] = call.UndoGroupID
	}
	_, err := a.Frames.Publish(ctx, turnID, stream.TypeTool, frame)
	return err
}
