package activities

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"hub/workspace"
)

// TurnRef names the turn an activity works on.
type TurnRef struct {
	TurnID string
}

// Plan is what PrepareTurn decided for the turn; the prompt itself is in the run record.
type Plan struct {
	Model        string
	ModelTimeout time.Duration
	MaxSteps     int
	OfferedTools []string
}

// CallModelInput asks for one model step.
type CallModelInput struct {
	TurnID   string
	Step     int
	ToolsOff bool
	// Rerun is set when the step runs again after a pause.
	Rerun bool
	// Interrupts is how many stops and pauses the workflow had heard when
	// it scheduled the call, if CountsInterrupts (older turns leave both
	// unset). A turn the api counted more for has a cancelling signal coming.
	Interrupts       int
	CountsInterrupts bool
	// Model is the catalog id of the model to call and Effort its
	// reasoning effort, as the turn was started with. Empty (older turns):
	// the turn's saved model, else the catalog's default.
	Model  string `json:",omitempty"`
	Effort string `json:",omitempty"`
}

// InterruptedDetails go with a model call refused because the turn was
// stopped or paused: the api's count, so a workflow that never hears a
// counted signal (a reset left it out) can catch up.
type InterruptedDetails struct {
	Interrupts int
}

// StatusInput records a running turn's state.
type StatusInput struct {
	TurnID string
	Status string
	Step   int
}

// ToolCallRef names a call the model asked for.
type ToolCallRef struct {
	ID   string
	Tool string
}

// ModelStep is what one model step produced, by reference.
type ModelStep struct {
	ToolCalls    []ToolCallRef
	FinishReason string
	HasText      bool
	// Nudged is set when the answer goes back to the model with a note:
	// the turn takes another step.
	Nudged bool
}

// RunToolInput names one saved tool call to run.
type RunToolInput struct {
	TurnID string
	CallID string
}

// ToolOutcome is what became of a call.
type ToolOutcome struct {
	Status    string
	ErrorCode string
}

// FinishInput ends a turn.
type FinishInput struct {
	TurnID       string
	Status       string
	ErrorCode    string
	ErrorMessage string
}

// Error types an activity fails with on purpose, never retried; the
// workflow tells the person from them.
const (
	ErrTypeUnavailable = "unavailable"
	ErrTypeModel       = "model"
	ErrTypeTimeout     = "timeout"
	ErrTypeForbidden   = "forbidden"
	ErrTypeGone        = "gone"
	// ErrTypeTooLarge: the prompt cannot fit the model's window even without history.
	ErrTypeTooLarge = "too_large"
	// ErrTypeInterrupted: Stop or Pause closed the model call (ahead of Temporal's cancellation).
	ErrTypeInterrupted = "interrupted"
	// ErrTypeBudget: the space's monthly budget cannot hold the next
	// model call's estimate; the call was not made.
	ErrTypeBudget = "budget_exceeded"
	// ErrTypeConflict: a reset run cannot reopen its turn (another turn of
	// the conversation runs, or the person retried it).
	ErrTypeConflict = "conflict"
)

// gone makes a missing turn or call final: its conversation was deleted while the turn ran.
func gone(err error) error {
	if errors.Is(err, workspace.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeGone, err)
	}
	return err
}
