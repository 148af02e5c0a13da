package tools

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"hub/workspace"
)

// Error codes a tool call can fail with. The model reads them and corrects
// its next call; the person sees the message.
const (
	CodeUnknownTool    = "unknown_tool"
	CodeInvalidPayload = "invalid_payload"
	CodeNotFound       = "not_found"
	CodeForbidden      = "forbidden"
	CodeStale          = "stale"
	CodeRefused        = "refused"
	CodeVetoed         = "vetoed"
	CodeFailed         = "failed"
)

// Issue is one schema problem at one place in the input.
type Issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is a structured tool error: a code, a readable message, a JSON
// pointer into the input and, for a schema failure, every issue found.
type Error struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Path    string  `json:"path,omitempty"`
	Issues  []Issue `json:"issues,omitempty"`
	// OutcomeUnknown: an outside write went out and no answer came back, so
	// Apply reports it as unknown and does not send it again on its own.
	OutcomeUnknown bool `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf makes a structured error a tool returns on purpose.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// OutcomeUnknownf makes the error of an outside write that went out without
// an answer (Error.OutcomeUnknown).
func OutcomeUnknownf(format string, args ...any) *Error {
	return &Error{Code: CodeFailed, Message: "The outcome is unknown: " + fmt.Sprintf(format, args...), OutcomeUnknown: true}
}

// AsError turns any error a tool or the domain returned into a structured
// one. Domain sentinels keep their meaning; anything else is "failed" with
// a generic message, so internals never reach the model.
func AsError(err error) *Error {
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	var inv *workspace.InvalidError
	if errors.As(err, &inv) {
		msg := WithoutIDs(inv.Message)
		return &Error{Code: CodeInvalidPayload, Message: msg, Path: inv.Path,
			Issues: []Issue{{Path: inv.Path, Message: msg}}}
	}
	var nf *workspace.NotFoundError
	if errors.As(err, &nf) {
		// The path says which id; the message names none.
		return &Error{Code: CodeNotFound, Message: fmt.Sprintf("no %s with the id given in this space", nf.Kind), Path: nf.Path}
	}
	switch {
	case errors.Is(err, workspace.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: WithoutIDs(err.Error())}
	case errors.Is(err, workspace.ErrForbidden):
		return &Error{Code: CodeForbidden, Message: WithoutIDs(err.Error())}
	case errors.Is(err, workspace.ErrStale):
		return &Error{Code: CodeStale, Message: WithoutIDs(err.Error())}
	case errors.Is(err, workspace.ErrInvalid):
		return &Error{Code: CodeInvalidPayload, Message: WithoutIDs(err.Error())}
	case errors.Is(err, workspace.ErrConflict):
		return &Error{Code: CodeRefused, Message: WithoutIDs(err.Error())}
	}
	return &Error{Code: CodeFailed, Message: "the tool failed; nothing was changed by this call"}
}

// quotedID is a Hub id in a message, with the quotes around it.
var quotedID = regexp.MustCompile(`["“]?\b([a-z]+)_[a-z2-7]{16}\b["”]?`)

// WithoutIDs names a record's kind where a message passed on from elsewhere
// would name its id ("… with id "skill_…"" reads "… with id the skill"): a
// tool error names no ids.
func WithoutIDs(msg string) string {
	if !strings.Contains(msg, "_") {
		return msg
	}
	return quotedID.ReplaceAllString(msg, "the $1")
}
