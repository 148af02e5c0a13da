package toolrun

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"hub/tools"
	"hub/workspace"
)

// Runner runs tool calls exactly once; it keeps no state of its own.
type Runner struct {
	Workspace *workspace.Service
	Tools     *tools.Registry
	// Files reads attached files for hub_view_file.
	Files tools.FileReader
}

// Commit writes a call's outcome row. Run calls it once per call: inside
// the write's transaction, which ctx carries, when a Hub write succeeded;
// otherwise outside any. An error fails the call (a write rolls back);
// return ErrRecorded when an earlier attempt wrote the row.
type Commit func(ctx context.Context, out Outcome) error

// Call is one call to run.
type Call struct {
	// ID is Hub's stable id of the call (tools.Env.CallID): an outside
	// write sends it as its idempotency key.
	ID       string
	PersonID string
	// SpaceID is the space the call acts in. HomeSpaceID, when different,
	// is the conversation's: the person must be able to open both.
	SpaceID     string
	HomeSpaceID string
	Tool        string
	Arguments   string
	// Offered are the tools the turn offered; a call of any other name fails in dispatch.
	Offered []string
	// Applying is set when the person's Apply runs a held call: the one
	// tool approved runs, and nothing is held again.
	Applying bool
	// Known maps the ids of records the turn knows to their titles.
	Known map[string]string
	// EarlierCalls counts the calls of each tool the turn made before this one; nil outside a turn.
	EarlierCalls map[string]int
	// PageContext is the page context of the turn's message (tools.Env.PageContext).
	PageContext string
	// Role, when set, turns the person's role in the space into the one the call runs with.
	Role func(ctx context.Context, role workspace.Role) (workspace.Role, error)
	// Invalid is an error found before the call runs (its space argument,
	// a plan step's $ref): the call fails with it and nothing runs.
	Invalid *tools.Error
	// Begun says an earlier attempt recorded the call on its way and did
	// not finish it: it is not run again, but is Unknown (outside write) or
	// Interrupted (Hub write).
	Begun bool
	// Started, when set, is called just before a write runs, outside any
	// transaction: where an Apply records that the call is on its way.
	Started func(ctx context.Context) error
	// WritePolicy, when set, is the turn's write policy in place of the
	// person's (a schedule's turn holds its writes for the owner's Apply).
	WritePolicy string
	// AlwaysUndo makes an Undo group for a Hub write even when its tool is
	// not undoable (a plan step's unit of Undo is the step).
	AlwaysUndo bool
}

// Outside tells whether a tool writes outside Hub (a connected app): such a
// write cannot be rolled back, so it runs without a transaction.
func Outside(def *tools.Definition) bool {
	return def.OutsideTransaction || def.Area == tools.AreaApps
}

// Run runs one call and records its outcome through commit, exactly once.
// The error is for what the caller should retry (the database,
// ErrRecorded); what became of the call is the Outcome.
func (r *Runner) Run(ctx context.Context, c Call, commit Commit) (Outcome, error) {
	def, _ := r.Tools.Get(c.Tool) // nil for an unknown name, which dispatch explains
	switch {
	case c.Begun:
		out := Outcome{Kind: Interrupted, Err: errInterrupted}
		if def != nil && Outside(def) {
			out.Kind, out.Err = Unknown, errSending
		}
		return r.record(ctx, out, commit)
	case c.Invalid != nil:
		return r.record(ctx, Outcome{Kind: Failed, Err: c.Invalid}, commit)
	}
	role, settings, refusal, err := r.recheck(ctx, c.PersonID, c.SpaceID, c.HomeSpaceID)
	if err != nil {
		return Outcome{}, err
	}
	settings.WritePolicy = cmp.Or(c.WritePolicy, settings.WritePolicy)
	if refusal != nil {
		return r.record(ctx, Outcome{Kind: Refused, Err: refusal}, commit)
	}
	if c.Role != nil {
		if role, err = c.Role(ctx, role); err != nil {
			return Outcome{}, err
		}
	}
	env := tools.Env{Workspace: r.Workspace, Files: r.Files, Actor: workspace.Actor{PersonID: c.PersonID, Via: workspace.ViaAssistant},
		SpaceID: c.SpaceID, Role: role, Settings: settings, CallID: c.ID, Applying: c.Applying, Known: c.Known, EarlierCalls: c.EarlierCalls, PageContext: c.PageContext}
	call := tools.Call{Name: c.Tool, Arguments: c.Arguments, Offered: c.Offered}
	if c.Applying {
		call.Offered = []string{c.Tool}
	}
	// A write (offered, not held) runs after Started: a Hub write in a
	// transaction with its outcome row, an outside write without one.
	// Reads, held writes and calls that fail in dispatch run directly.
	write := def != nil && def.IsWrite && slices.Contains(call.Offered, c.Tool) && (c.Applying || !def.Holds(settings))
	if write && c.Started != nil {
		if err := c.Started(ctx); err != nil {
			return Outcome{}, err
		}
	}
	if !write || Outside(def) {
		res, terr := r.Tools.Dispatch(ctx, env, call)
		out := dispatched(res, terr, c.Applying)
		out.Role, out.Settings = role, settings
		return r.record(ctx, out, commit)
	}

	var out Outcome
	err = r.Workspace.InTx(ctx, func(ctx context.Context) error {
		env := env
		out = Outcome{Role: role, Settings: settings}
		if c.AlwaysUndo || def.Undoable {
			gid, err := r.Workspace.NewUndoGroup(ctx, env.Actor, c.SpaceID, tools.Action(def.Name))
			if err != nil { // the person may no longer write here
				out.Kind, out.Err = Failed, tools.AsError(err)
				return errRollback
			}
			env.Workspace, out.UndoGroupID = r.Workspace.WithUndo(gid), gid
		}
		res, terr := r.Tools.Dispatch(ctx, env, call)
		d := dispatched(res, nil, c.Applying)
		if terr != nil {
			d = Outcome{Kind: Failed, Err: terr} // rolled back: failed, never unknown
		}
		if d.Kind != Succeeded {
			out.Kind, out.Err, out.UndoGroupID = d.Kind, d.Err, ""
			return errRollback
		}
		out.Kind, out.Result = d.Kind, d.Result
		return commit(ctx, out)
	})
	if errors.Is(err, errRollback) {
		return r.record(ctx, out, commit)
	}
	if err != nil {
		return Outcome{}, err
	}
	return out, nil
}

// record commits an outcome outside any transaction.
func (r *Runner) record(ctx context.Context, out Outcome, commit Commit) (Outcome, error) {
	if err := commit(ctx, out); err != nil {
		return Outcome{}, err
	}
	return out, nil
}

// recheck reads the person's role in the space now (and that they can
// still open home) and their settings. A space they cannot open is a
// refusal, not an error.
func (r *Runner) recheck(ctx context.Context, personID, spaceID, home string) (workspace.Role, workspace.Settings, *tools.Error, error) {
	role, err := r.Workspace.Access(ctx, personID, cmp.Or(home, spaceID))
	if err == nil && home != "" && home != spaceID {
		role, err = r.Workspace.Access(ctx, personID, spaceID)
	}
	if errors.Is(err, workspace.ErrNotFound) {
		return "", workspace.Settings{}, tools.Errorf(tools.CodeForbidden, LostAccess), nil
	}
	if err != nil {
		return "", workspace.Settings{}, nil, err
	}
	settings, err := r.Workspace.GetSettings(ctx, personID)
	return role, settings, nil, err
}
