package toolrun

import (
	"errors"

	"hub/tools"
	"hub/workspace"
)

// Kind is what became of a call.
type Kind string

// The kinds of outcome. Only Succeeded changed anything.
const (
	// Succeeded: the tool ran; a Hub write committed with the outcome row.
	Succeeded Kind = "succeeded"
	// Held: a write held for the person's Apply; nothing changed.
	Held Kind = "held"
	// Failed: the tool or its checks refused the call or failed.
	Failed Kind = "failed"
	// Refused: the person can no longer open a space the call needs.
	Refused Kind = "refused"
	// Unknown: an outside write went out with no answer back, or an
	// earlier attempt was found sending it.
	Unknown Kind = "unknown"
	// Interrupted: an earlier attempt was found running a Hub write (a
	// plan step); it is reported, not run again.
	Interrupted Kind = "interrupted"
	// Unattempted: not run, because another write of its batch failed.
	Unattempted Kind = "unattempted"
)

// Outcome is what became of one call.
type Outcome struct {
	Kind Kind
	// Result is what the tool returned (Succeeded, Held).
	Result tools.Result
	// Err says why the call did not succeed (not Succeeded or Held).
	Err *tools.Error
	// UndoGroupID is the Undo group the write recorded in; "" for none.
	UndoGroupID string
	// Role and Settings are what the call ran with, as rechecked.
	Role     workspace.Role
	Settings workspace.Settings
}

// The errors of outcomes no tool answered.
var (
	errInterrupted = tools.Errorf(tools.CodeFailed, "interrupted while it ran; its outcome is not known")
	errSending     = &tools.Error{Code: tools.CodeFailed, OutcomeUnknown: true,
		Message: "The outcome is unknown: an earlier attempt was sending it when it stopped, so it may or may not have arrived"}
	errUnattempted = tools.Errorf(tools.CodeFailed, "not run: another write of its batch failed, so none of them was made")
	errHeldAgain   = tools.Errorf(tools.CodeFailed, "the write was held again instead of running; nothing was changed")
)

// LostAccess is the message of a Refused outcome.
const LostAccess = "you can no longer open this space"

// ErrRecorded is what a Commit returns when an earlier attempt wrote the
// call's outcome row: Run rolls the write back and returns it.
var ErrRecorded = errors.New("the call's outcome was recorded by an earlier attempt")

// errRollback ends a failed write's transaction without committing.
var errRollback = errors.New("tool failed; roll back")

// dispatched is the outcome of a tool that ran; applying, a held result is a failure.
func dispatched(res tools.Result, terr *tools.Error, applying bool) Outcome {
	switch {
	case terr == nil && res.Held && applying:
		return Outcome{Kind: Failed, Err: errHeldAgain}
	case terr != nil && terr.OutcomeUnknown:
		return Outcome{Kind: Unknown, Err: terr}
	case terr != nil:
		return Outcome{Kind: Failed, Err: terr}
	case res.Held:
		return Outcome{Kind: Held, Result: res}
	}
	return Outcome{Kind: Succeeded, Result: res}
}
