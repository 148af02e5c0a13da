package activities

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"

	"hub/workspace"
)

// TurnRef names the turn an activity works on. Workflow payloads carry ids
// only.
type TurnRef struct {
	TurnID string
}

// Plan is what PrepareTurn decided for the turn: small, so it can live in
// the workflow's history. The prompt itself is in the run record.
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
	// Rerun is set when the step runs again after a pause: the client drops
	// the text of the interrupted call.
	Rerun bool
	// Interrupts is how many stops and pauses the workflow had heard when
	// it scheduled the call; CountsInterrupts says it counted them (turns
	// started before the count leave both unset). A turn the api counted
	// more for has a signal coming that cancels this call.
	Interrupts       int
	CountsInterrupts bool
	// Model is the catalog id of the model to call and Effort its
	// reasoning effort, as the turn was started with (TurnInput). Empty
	// (turns started before the catalog): the turn's saved model, else the
	// catalog's default. Usage is priced by Model (llm.Catalog.Lookup).
	Model  string `json:",omitempty"`
	Effort string `json:",omitempty"`
}

// InterruptedDetails go with a model call refused because the turn was
// stopped or paused: the api's count of interrupts it read, so a workflow
// that never hears a signal it was counted for (a reset that left the
// signals out) can catch up instead of being refused again.
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
	// Nudged is set when the answer goes back to the model with a note
	// (it promised work instead of doing it, or a verify hook found
	// something missing): the turn takes another step.
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

// Error types an activity fails with on purpose. The workflow reads them to
// tell the person what happened; they are never retried.
const (
	ErrTypeUnavailable = "unavailable"
	ErrTypeModel       = "model"
	ErrTypeTimeout     = "timeout"
	ErrTypeForbidden   = "forbidden"
	ErrTypeGone        = "gone"
	// ErrTypeTooLarge: the prompt cannot fit the model's window even
	// without history; the message says so.
	ErrTypeTooLarge = "too_large"
	// ErrTypeInterrupted: Stop or Pause closed the model call (the api's
	// fast path, ahead of Temporal's cancellation).
	ErrTypeInterrupted = "interrupted"
	// ErrTypeBudget: the space's monthly budget cannot hold the next
	// model call's estimate; the call was not made and the message says
	// the budget and what is left.
	ErrTypeBudget = "budget_exceeded"
)

// gone makes a missing turn or call final: its conversation was deleted
// while the turn ran, and no retry will bring it back.
func gone(err error) error {
	if errors.Is(err, workspace.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeGone, err)
	}
	return err
}
