package workflows

import (
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
)

// DefaultTaskQueue is the task queue Hub's workers poll and its api starts
// workflows on unless HUB_TASK_QUEUE names another (config.Config.TaskQueue).
const DefaultTaskQueue = "hub"

// Signal and query names of the Turn workflow.
const (
	StopSignal   = "stop"
	PauseSignal  = "pause"
	ResumeSignal = "resume"
	StateQuery   = "state"
)

// Turn statuses, as the Turn workflow records them (TurnState, TurnResult,
// HubTurnStatus, the turn's row). They are chat.Status values written out
// because workflows imports only activities (api's
// TestWorkflowWordsAreChatWords keeps them equal); recorded histories carry
// them, so they never change.
const (
	StatusQueued  = "queued"
	StatusWorking = "working"
	StatusPaused  = "paused"
	StatusStopped = "stopped"
	StatusDone    = "done"
	StatusError   = "error"
)

// What the Apply workflow reads and writes of a call's outcome: the
// receipt statuses it saves when an activity gave up (chat.ReceiptFailed,
// chat.ReceiptUnknown) and the status of a step that succeeded
// (chat.PlanStepSucceeded).
const (
	ReceiptFailed     = "failed"
	ReceiptUnknown    = "unknown"
	PlanStepSucceeded = "succeeded"
)

// TurnWorkflowID is the workflow id of a turn, so the api can signal and
// query it knowing only the turn id.
func TurnWorkflowID(turnID string) string { return "turn:" + turnID }

// Search attributes let operators find turns in the Temporal UI.
var (
	SpaceIDKey        = temporal.NewSearchAttributeKeyKeyword("HubSpaceID")
	ConversationIDKey = temporal.NewSearchAttributeKeyKeyword("HubConversationID")
	ActorIDKey        = temporal.NewSearchAttributeKeyKeyword("HubActorID")
	TurnStatusKey     = temporal.NewSearchAttributeKeyKeyword("HubTurnStatus")
	// AgentIDKey is the agent an agent's turn, schedule or firing works for.
	AgentIDKey = temporal.NewSearchAttributeKeyKeyword("HubAgentID")
)

// SearchAttributes lists Hub's search attributes with their types, for
// registering them on a namespace (`hub migrate`, `hub dev`).
func SearchAttributes() map[string]enums.IndexedValueType {
	return map[string]enums.IndexedValueType{
		SpaceIDKey.GetName():        enums.INDEXED_VALUE_TYPE_KEYWORD,
		ConversationIDKey.GetName(): enums.INDEXED_VALUE_TYPE_KEYWORD,
		ActorIDKey.GetName():        enums.INDEXED_VALUE_TYPE_KEYWORD,
		TurnStatusKey.GetName():     enums.INDEXED_VALUE_TYPE_KEYWORD,
		AgentIDKey.GetName():        enums.INDEXED_VALUE_TYPE_KEYWORD,
	}
}

// TurnInput starts a turn: ids only; everything else is in the database.
type TurnInput struct {
	TurnID         string
	ConversationID string
	SpaceID        string
	ActorID        string
	// Model and Effort are the catalog model and reasoning effort the turn
	// was started with; every model call carries them, so a reset runs the
	// model it started with. Empty in older turns: the call reads the turn.
	Model  string `json:",omitempty"`
	Effort string `json:",omitempty"`
}

// TurnResult is how a turn ended: done, stopped or error (with its code and message).
type TurnResult struct {
	Status       string
	Steps        int
	ErrorCode    string `json:",omitempty"`
	ErrorMessage string `json:",omitempty"`
}

// TurnState answers the state query (the top bar).
type TurnState struct {
	Status string
	Step   int
}
