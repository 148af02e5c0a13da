// Package activities holds the Temporal activities of a turn: thin adapters
// that read and write the database, call the model and run tools. Workflow
// code passes them ids only; what they read and write lives in the
// database, so histories stay small and a retried activity finds what its
// earlier attempt wrote. Running a call exactly once (the recheck of
// access, the transaction, the Undo group, the outcome) is package
// toolrun's; RunTool and the Apply activities add what a turn shows (frames,
// summaries in the person's words, tools a call made available).
package activities

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"

	"hub/assistant"
	"hub/chat"
	"hub/files"
	"hub/llm"
	"hub/mcpapps"
	"hub/playbooks"
	"hub/retrieval"
	"hub/stream"
	"hub/tools"
	"hub/usage"
	"hub/workspace"
)

type chatModel interface {
	streamer
	Model() string
}

// Activities holds the dependencies of every activity; Temporal calls its
// methods. Register one value with the worker.
type Activities struct {
	Workspace *workspace.Service
	Chat      *chat.Store
	// Files are the spaces' attached files, sent to the model as parts.
	Files *files.Service
	// Retrieval keeps the spaces' passages: indexing writes them, a turn's
	// offer asks whether its space has any (nil: none, in unit tests).
	Retrieval *retrieval.Store
	Tools     *tools.Registry
	// MCP lists and calls the spaces' MCP servers' tools (nil: none).
	MCP    *mcpapps.Catalog
	Frames *stream.Bus
	// Model is the model endpoint; unconfigured, turns end with an
	// unavailable error naming the variables to set.
	Model           chatModel
	ModelConfigured bool
	// Models are the operator's catalog models, one client per endpoint
	// (turnModel). Nil: every call goes to Model.
	Models *llm.Models
	// ModelTimeout bounds one model call (HUB_MODEL_TIMEOUT).
	ModelTimeout time.Duration
	// Location is the time zone dates are given in.
	Location *time.Location
	// Now is the clock; tests set it.
	Now func() time.Time
	// Interrupts lets the api close a model call at once on Stop or Pause.
	Interrupts *stream.Interrupts
	// Verifier, when set, checks a final answer and sends back what is still missing.
	Verifier assistant.Verifier
	// Playbooks are the playbooks routing may preload.
	Playbooks []playbooks.Playbook
	// ContextTokens overrides the model's context window (0: the model family's).
	ContextTokens int
	// Usage saves every model call's usage and holds the spaces' monthly
	// budgets (usage.go). Nil saves nothing (the in-process benchmark).
	Usage *usage.Store
	// Price, when set, replaces the catalog's price of a model: a test
	// knob (wiring.TestKnobs.Price).
	Price func(model string) llm.Price
	// Metrics are the per-model Prometheus series; nil observes nothing.
	Metrics *usage.Metrics
	// Work counts turns, tool calls and receipts (nil: not counted).
	Work *WorkMetrics
	// Scheduler saves the turns of agents' schedules' firings (nil: no
	// firing starts a turn).
	Scheduler Scheduler
	// Fault, when set, fails the activity at a named point of Apply or a
	// model call: the fault tests' stand-in for a killed worker.
	Fault func(point string) error

	transcripts transcripts // each running turn's messages (transcripts.go)
}

// Fault points of Apply and of a model call.
const (
	FaultBeforeCommit  = "apply.before-commit"  // inside the space's transaction, after its writes
	FaultAfterCommit   = "apply.after-commit"   // the transaction committed, the activity has not reported
	FaultBeforeOutside = "apply.before-outside" // before an outside write is marked sending
	FaultAfterSend     = "apply.after-send"     // the outside write went out, its receipt not yet written
	FaultStepRunning   = "apply.step-running"   // a workflow step was marked running, nothing done yet
	FaultModelStart    = "model.start"          // before the call reads the turn (a slow worker)
	FaultModelReserved = "model.reserved"       // the reservation made, the request not sent
	FaultModelSettled  = "model.settled"        // settled and the step saved, the activity has not reported
)

func (a *Activities) fault(point string) error {
	if a.Fault == nil {
		return nil
	}
	return a.Fault(point)
}

func (a *Activities) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// turnAndSteps reads the turn with its run record, and its steps before
// the one given with their calls.
func (a *Activities) turnAndSteps(ctx context.Context, turnID string, before int) (chat.Turn, chat.RunRecord, []chat.Step, error) {
	turn, rec, err := a.Chat.GetTurn(ctx, turnID)
	if err != nil {
		return chat.Turn{}, chat.RunRecord{}, nil, err
	}
	steps, err := a.Chat.Steps(ctx, turnID, before)
	return turn, rec, steps, err
}

// logTurn writes one of the turn's lifecycle lines with the ids an
// operator searches by, and the Temporal ids when called as an activity.
// Ids and counts only: never a message's text, a tool's input or output.
func logTurn(ctx context.Context, msg string, args ...any) {
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		args = append(args, "workflow", info.WorkflowExecution.ID, "run", info.WorkflowExecution.RunID, "attempt", info.Attempt)
	}
	slog.InfoContext(ctx, msg, args...)
}

// workflowRun is the Temporal run of the activity ("" outside Temporal).
func workflowRun(ctx context.Context) string {
	if !activity.IsActivity(ctx) {
		return ""
	}
	return activity.GetInfo(ctx).WorkflowExecution.RunID
}
