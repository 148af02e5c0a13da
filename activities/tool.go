package activities

import (
	"context"
	"errors"

	"hub/assistant"
	"hub/chat"
	"hub/stream"
	"hub/toolrun"
	"hub/tools"
	"hub/workspace"
)

// runner runs calls exactly once over the activities' stores.
func (a *Activities) runner(reg *tools.Registry) *toolrun.Runner {
	r := &toolrun.Runner{Workspace: a.Workspace, Tools: reg}
	if a.Files != nil { // a nil *files.Service must stay a nil interface
		r.Files = a.Files
	}
	return r
}

// RunTool runs one saved tool call (toolrun.Runner.Run). A call that
// already has an outcome returns it unchanged, so a retry, a replay or a
// reset never runs a write twice.
func (a *Activities) RunTool(ctx context.Context, in RunToolInput) (ToolOutcome, error) {
	turn, rec, steps, err := a.turnAndSteps(ctx, in.TurnID, MaxSteps+1)
	call, found := findCall(steps, in.CallID)
	if err == nil && !found { // also a stale run's call of a step a reset deleted
		err = &workspace.NotFoundError{Kind: "tool call", ID: in.CallID}
	}
	if err != nil || call.Final() {
		return ToolOutcome{Status: call.Status, ErrorCode: call.ErrorCode}, gone(err)
	}
	if err := a.claim(ctx, turn, call.Step); err != nil {
		return ToolOutcome{}, err
	}
	// Read before the claim, steps may hold an old run's later steps that
	// a reset's claim just deleted: the call sees the turn as at its step.
	tc, rc, err := a.turnCall(ctx, turn, call, rec.OfferedTools, stepsThrough(steps, call.Step))
	if err != nil {
		return ToolOutcome{}, err
	}
	started := map[string]any{"callId": call.ID, "tool": call.Tool, "phase": stream.PhaseStarted}
	if startsWithOutcome(tc.def) {
		tc.started = started
	} else if _, err := a.Frames.Publish(ctx, in.TurnID, stream.TypeTool, started); err != nil {
		return ToolOutcome{}, err
	}
	_, err = a.runner(tc.reg).Run(ctx, rc, tc.commit)
	if errors.Is(err, toolrun.ErrRecorded) {
		stored, err := a.Chat.GetToolCall(ctx, call.ID)
		return ToolOutcome{Status: stored.Status, ErrorCode: stored.ErrorCode}, err
	}
	if err != nil {
		return ToolOutcome{}, err
	}
	a.Work.toolCalled(call.Tool, tc.saved.Status)
	return ToolOutcome{Status: tc.saved.Status, ErrorCode: tc.saved.ErrorCode}, nil
}

func stepsThrough(steps []chat.Step, step int) []chat.Step {
	for i, st := range steps {
		if st.Step > step {
			return steps[:i]
		}
	}
	return steps
}

func findCall(steps []chat.Step, id string) (chat.ToolCall, bool) {
	for _, st := range steps {
		for _, c := range st.ToolCalls {
			if c.ID == id {
				return c, true
			}
		}
	}
	return chat.ToolCall{}, false
}

// startsWithOutcome tells whether a call's started frame commits with its
// outcome instead of alone before the call runs: for a tool that works on
// Hub's database only, which ends in moments. A tool that leaves the
// process is shown running while it waits.
func startsWithOutcome(def *tools.Definition) bool {
	return def != nil && !toolrun.Outside(def) && def.Area != tools.AreaWeb && def.Area != areaFiles
}

// areaFiles is hub_view_file's area: its bytes may come from a remote store.
const areaFiles = "files"

// turnCall is a call of a turn on its way through the Runner: what its
// commit needs, and what it recorded.
type turnCall struct {
	a       *Activities
	turn    chat.Turn
	call    chat.ToolCall
	def     *tools.Definition // nil for an unknown name, which dispatch explains
	reg     *tools.Registry   // Hub's tools and the call's space's MCP tools
	spaceID string
	known   map[string]string

	saved   chat.Outcome   // the row written
	started map[string]any // the started frame, when stored with the outcome
}

// turnCall prepares a call of the turn: the space it acts in, the records
// the turn knows, and for a help tool of a turn across spaces its role.
func (a *Activities) turnCall(ctx context.Context, turn chat.Turn, call chat.ToolCall, offered []string, steps []chat.Step) (*turnCall, toolrun.Call, error) {
	tc := &turnCall{a: a, turn: turn, call: call, known: map[string]string{}}
	var err error
	switch {
	case call.Tool == assistant.FindToolsTool || call.Tool == assistant.HowToTool:
		// A help tool searches the registry the offer is built from.
		tc.reg, _, err = a.offerApps(ctx, turn.SpaceID, false)
	case a.Tools.Has(call.Tool):
		tc.reg = a.Tools // Hub's tools win over an app's of the same name (Registry.With)
	default:
		tc.reg, err = a.registryIn(ctx, turn.SpaceID)
	}
	if err != nil {
		return nil, toolrun.Call{}, err
	}
	tc.def, _ = tc.reg.Get(call.Tool)
	spaceID, arguments, spaceErr, err := a.callSpace(ctx, turn, tc.def, call.Arguments)
	if err != nil {
		return nil, toolrun.Call{}, err
	}
	if spaceErr == nil {
		if tc.known, err = a.knownTitles(ctx, turn, steps); err != nil {
			return nil, toolrun.Call{}, err
		}
	}
	tc.spaceID = spaceID
	user, _, err := a.turnMessages(ctx, turn) // kept per turn run (knownTitles read it): its page context
	if err != nil {
		return nil, toolrun.Call{}, err
	}
	rc := toolrun.Call{ID: call.ID, PersonID: turn.PersonID, SpaceID: spaceID, HomeSpaceID: turn.SpaceID, Tool: call.Tool,
		Arguments: arguments, Offered: offered, Known: tc.known, EarlierCalls: earlierCalls(steps, call), Invalid: spaceErr,
		WritePolicy: turn.WritePolicy, PageContext: user.PageContext}
	if tc.def != nil && tc.def.NoSpace && len(turn.Spaces) > 0 {
		rc.Role = func(ctx context.Context, role workspace.Role) (workspace.Role, error) {
			spaces, err := a.turnSpaces(ctx, turn)
			return offerRole(role, spaces), err
		}
	}
	return tc, rc, nil
}

// commit records the call's outcome row (toolrun.Commit) with its frames,
// and the tools a help tool made available for the rest of the turn.
func (tc *turnCall) commit(ctx context.Context, out toolrun.Outcome) error {
	out.Result.Summary = assistant.Humanize(out.Result.Summary, tc.known)
	if out.Kind != toolrun.Refused && tc.spaceID != tc.turn.SpaceID {
		tc.call.SpaceID = tc.spaceID
		inSpace(out.Result.Refs, tc.spaceID)
	}
	if out.Kind == toolrun.Succeeded && tc.def != nil && !tc.def.IsWrite {
		if err := tc.a.addTools(ctx, tc.turn, out.Role, out.Settings, assistant.AddedTools(out.Result.Data)); err != nil {
			return err
		}
	}
	tc.saved = outcomeOf(out)
	tc.saved.SpaceID = tc.call.SpaceID
	tc.call.UndoGroupID = tc.saved.UndoGroupID
	var frames []func(ctx context.Context) error
	done := toolFrame(tc.call, tc.saved.Status, out.Result.Summary, out.Result.Refs, out.Err)
	for _, f := range []map[string]any{tc.started, done} {
		if f == nil {
			continue
		}
		frames = append(frames, func(ctx context.Context) error {
			_, err := tc.a.Frames.Publish(ctx, tc.turn.ID, stream.TypeTool, f)
			return err
		})
	}
	won, err := tc.a.Chat.CompleteToolCall(ctx, tc.call.ID, tc.saved, frames...)
	if err == nil && !won {
		err = toolrun.ErrRecorded
	}
	return err
}

func outcomeOf(out toolrun.Outcome) chat.Outcome {
	res := out.Result
	switch out.Kind {
	case toolrun.Succeeded:
		return chat.Outcome{Status: chat.CallDone, Result: tools.ModelText(res, tools.MaxResultChars), Summary: res.Summary, Refs: capRefs(res.Refs),
			UndoGroupID: out.UndoGroupID}
	case toolrun.Held:
		heldFor := chat.HeldForApply
		if out.Settings.WritePolicy == workspace.PolicyNeedsMe {
			heldFor = chat.HeldForNeedsMe
		}
		return chat.Outcome{Status: chat.CallHeld, Summary: res.Summary, Input: string(res.Input), HeldFor: heldFor,
			Result: tools.ModelText(tools.Result{Summary: res.Summary, Data: map[string]any{"held": true, "note": assistant.HeldWriteNote}}, tools.MaxResultChars)}
	}
	terr := out.Err
	if terr == nil { // Run never gives a turn's call such an outcome; said plainly if it does
		terr = tools.Errorf(tools.CodeFailed, "the call did not finish; nothing was changed by this call")
	}
	return chat.Outcome{Status: chat.CallFailed, Result: tools.ErrorText(terr), ErrorCode: terr.Code, ErrorMessage: terr.Message}
}

// inSpace marks the refs of a call that acted in another of its turn's
// spaces ("" for the conversation's own) with that space.
func inSpace(refs []workspace.Ref, spaceID string) {
	if spaceID == "" {
		return
	}
	for i := range refs {
		refs[i].SpaceID = spaceID
	}
}

// maxCallRefs: one call names at most 50 records; the model reads the rest in its data.
const maxCallRefs = 50

func capRefs(refs []workspace.Ref) []workspace.Ref { return refs[:min(len(refs), maxCallRefs)] }

// toolFrame is the tool frame that ends a call; phase is its status
// (chat's call statuses are the frame's phases), err a failed call's error.
func toolFrame(c chat.ToolCall, phase, summary string, refs []workspace.Ref, err any) map[string]any {
	if phase == stream.PhaseFailed {
		return map[string]any{"callId": c.ID, "tool": c.Tool, "phase": phase, "error": err}
	}
	f := map[string]any{"callId": c.ID, "tool": c.Tool, "phase": phase, "summary": summary, "refs": nonNilRefs(refs)}
	if phase == stream.PhaseDone && c.UndoGroupID != "" {
		f["undoGroupId"] = c.UndoGroupID
	}
	return f
}
