package activities

import (
	"context"
	"errors"
	"slices"

	"hub/chat"
	"hub/hub"
	"hub/stream"
	"hub/tools"
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
	rec, err := a.Chat.GetRunRecord(ctx, in.TurnID)
	if err != nil {
		return ToolOutcome{}, err
	}
	if _, err := a.Frames.Publish(ctx, in.TurnID, stream.TypeTool, map[string]any{
		"callId": call.ID, "tool": call.Tool, "phase": "started"}); err != nil {
		return ToolOutcome{}, err
	}

	// Access is checked again now, not trusted from when the turn started.
	role, err := a.Hub.Access(ctx, turn.PersonID, turn.SpaceID)
	if errors.Is(err, hub.ErrNotFound) {
		return a.finishCall(ctx, in.TurnID, call, tools.Result{}, tools.Errorf(tools.CodeForbidden, "you can no longer open this space"))
	}
	if err != nil {
		return ToolOutcome{}, err
	}
	actor := hub.Actor{PersonID: turn.PersonID, Via: hub.ViaAssistant}
	tc := tools.Call{Name: call.Tool, Arguments: call.Arguments, Offered: rec.OfferedTools}
	def, known := a.Tools.Get(call.Tool)
	if !known || !def.IsWrite || !slices.Contains(rec.OfferedTools, call.Tool) {
		env := tools.Env{Hub: a.Hub, Actor: actor, SpaceID: turn.SpaceID, Role: role}
		res, terr := a.Tools.Dispatch(ctx, env, tc)
		return a.finishCall(ctx, in.TurnID, call, res, terr)
	}

	// A write: the records and the call's outcome commit together.
	var res tools.Result
	var terr *tools.Error
	var already bool
	err = a.Hub.Tx(ctx, func(tx *hub.Service) error {
		env := tools.Env{Hub: tx, Actor: actor, SpaceID: turn.SpaceID, Role: role}
		res, terr = a.Tools.Dispatch(ctx, env, tc)
		if terr != nil {
			return errRollback
		}
		won, err := a.Chat.WithDB(tx.DB()).CompleteToolCall(ctx, call.ID, outcomeOf(res, nil))
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
		return a.finishCall(ctx, in.TurnID, call, tools.Result{}, terr)
	case err != nil:
		return ToolOutcome{}, err
	}
	if err := a.publishToolDone(ctx, in.TurnID, call, res, nil); err != nil {
		return ToolOutcome{}, err
	}
	return ToolOutcome{Status: chat.CallDone}, nil
}

// finishCall records a read's outcome or a failure and tells the stream.
func (a *Activities) finishCall(ctx context.Context, turnID string, call chat.ToolCall, res tools.Result, terr *tools.Error) (ToolOutcome, error) {
	won, err := a.Chat.CompleteToolCall(ctx, call.ID, outcomeOf(res, terr))
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
	if terr != nil {
		return ToolOutcome{Status: chat.CallFailed, ErrorCode: terr.Code}, nil
	}
	return ToolOutcome{Status: chat.CallDone}, nil
}

func outcomeOf(res tools.Result, terr *tools.Error) chat.Outcome {
	if terr != nil {
		return chat.Outcome{Status: chat.CallFailed, Result: tools.ErrorText(terr), ErrorCode: terr.Code, ErrorMessage: terr.Message}
	}
	refs := res.Refs
	if len(refs) > maxCallRefs {
		refs = refs[:maxCallRefs]
	}
	return chat.Outcome{Status: chat.CallDone, Result: tools.ModelText(res, tools.MaxResultChars), Summary: res.Summary, Refs: refs}
}

// maxCallRefs: one call names at most 50 records (seed 000 §4.1).
const maxCallRefs = 50

func (a *Activities) publishToolDone(ctx context.Context, turnID string, call chat.ToolCall, res tools.Result, terr *tools.Error) error {
	frame := map[string]any{"callId": call.ID, "tool": call.Tool, "phase": "done", "summary": res.Summary, "refs": nonNilRefs(res.Refs)}
	if terr != nil {
		frame = map[string]any{"callId": call.ID, "tool": call.Tool, "phase": "failed", "error": terr}
	}
	_, err := a.Frames.Publish(ctx, turnID, stream.TypeTool, frame)
	return err
}
