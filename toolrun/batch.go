package toolrun

import (
	"context"
	"slices"
	"time"

	"hub/tools"
	"hub/workspace"
)

// Batch is Hub writes of one space that commit together or not at all, with one Undo group.
type Batch struct {
	PersonID string
	SpaceID  string
	Calls    []Call        // in the order they run; only ID, Tool and Arguments are read
	Label    string        // names the batch's Undo group
	Timeout  time.Duration // bounds the transaction; 0 leaves it to ctx
}

// BatchCommit writes the outcome rows of a batch, one per call in order.
// RunBatch calls it once: inside the transaction, which ctx carries, when
// every write succeeded; otherwise outside any. An error rolls back.
type BatchCommit func(ctx context.Context, outs []Outcome) error

// RunBatch runs a batch's writes in one transaction, rechecking access and
// settings once. If one fails, none is written.
func (r *Runner) RunBatch(ctx context.Context, b Batch, commit BatchCommit) ([]Outcome, error) {
	if len(b.Calls) == 0 {
		return nil, nil
	}
	outs := make([]Outcome, len(b.Calls))
	role, settings, refusal, err := r.recheck(ctx, b.PersonID, b.SpaceID, "")
	if err != nil {
		return nil, err
	}
	if refusal != nil {
		outs = slices.Repeat([]Outcome{{Kind: Refused, Err: refusal}}, len(outs))
		return outs, commit(ctx, outs)
	}
	actor := workspace.Actor{PersonID: b.PersonID, Via: workspace.ViaAssistant}
	txCtx := ctx
	if b.Timeout > 0 {
		var cancel context.CancelFunc
		txCtx, cancel = context.WithTimeout(ctx, b.Timeout)
		defer cancel()
	}
	failed, failure := -1, (*tools.Error)(nil)
	err = r.Workspace.InTx(txCtx, func(txCtx context.Context) error {
		gid, err := r.Workspace.NewUndoGroup(txCtx, actor, b.SpaceID, b.Label)
		if err != nil {
			failed, failure = 0, tools.AsError(err)
			return errRollback
		}
		for i, c := range b.Calls {
			env := tools.Env{Workspace: r.Workspace.WithUndo(gid), Files: r.Files, Actor: actor, SpaceID: b.SpaceID, Role: role, Settings: settings,
				CallID: c.ID, Applying: true}
			res, terr := r.Tools.Dispatch(txCtx, env, tools.Call{Name: c.Tool, Arguments: c.Arguments, Offered: []string{c.Tool}})
			if terr != nil {
				failed, failure = i, terr
				return errRollback
			}
			outs[i] = Outcome{Kind: Succeeded, Result: res, UndoGroupID: gid, Role: role, Settings: settings}
		}
		return commit(txCtx, outs)
	})
	if failure != nil {
		outs = slices.Repeat([]Outcome{{Kind: Unattempted, Err: errUnattempted, Role: role, Settings: settings}}, len(outs))
		outs[failed].Kind, outs[failed].Err = Failed, failure
		return outs, commit(ctx, outs)
	}
	if err != nil {
		return nil, err
	}
	return outs, nil
}
