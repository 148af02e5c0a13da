package storage

import "time"

// Space is a workspace: the unit of access. Every record belongs to one.
type Space struct {
	ID                  string `gorm:"primaryKey"`
	Name                string
	MonthlyBudgetMicros *int64 // for the space's model calls; nil: no budget
	CreatedAt           time.Time
}

// Person is someone who signs in (or a service account acting for them).
type Person struct {
	ID        string `gorm:"primaryKey"`
	Name      string
	Persona   string // one sentence about the person's work, in their words
	FirstName string // what the assistant calls them ("": the first word of Name)
	CreatedAt time.Time
}

// TableName keeps the plural English name.
func (Person) TableName() string { return "people" }

// Membership gives a person a role in a space: owner, editor, viewer or guest.
type Membership struct {
	SpaceID   string `gorm:"primaryKey"`
	PersonID  string `gorm:"primaryKey"`
	Role      string
	Revision  int `gorm:"default:1"` // moves on with every change of the person's role or name
	CreatedAt time.Time
}

// APIToken is a bearer token, stored as a SHA-256 hash. Scope is empty for a
// person's full token; a stream token carries "stream:<turnID>" and expires.
type APIToken struct {
	ID         string `gorm:"primaryKey"`
	PersonID   string
	Hash       string
	Scope      string
	ExpiresAt  *time.Time
	CreatedAt  time.Time
	Name       string // a token made by hub token create
	Prefix     string // the token's first characters, to tell tokens apart
	LastUsedAt *time.Time
	ParentID   string // the token a stream token or session was derived from: revoking it deletes them
}

// Setting holds a person's assistant settings. AllowedWriteAreas is a JSON
// list of area names ("[]": every area).
type Setting struct {
	PersonID           string `gorm:"primaryKey"`
	WritePolicy        string
	AllowedWriteAreas  string
	ConnectedAppWrites bool
	Model              string // the person's default ("": the catalog's)
	Effort             string // the person's default reasoning effort ("": none)
	UpdatedAt          time.Time
}

// Project groups tasks in a space.
type Project struct {
	ID          string `gorm:"primaryKey"`
	SpaceID     string
	Name        string
	Status      string
	Description string
	Revision    int
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Task is a to-do in a space. DueDate is a calendar date, "YYYY-MM-DD".
type Task struct {
	ID         string `gorm:"primaryKey"`
	SpaceID    string
	ProjectID  *string
	Title      string
	Status     string
	DueDate    *string
	Priority   string
	AssigneeID *string
	Revision   int
	CreatedBy  string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Conversation is one chat with the assistant, in one space, owned by one person.
type Conversation struct {
	ID        string `gorm:"primaryKey"`
	SpaceID   string
	PersonID  string
	AgentID   string // "": the person's own
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Message is what the person wrote or what the assistant answered. JSON
// columns (mentions, refs) are stored as text so both engines read them alike.
type Message struct {
	ID             string `gorm:"primaryKey"`
	ConversationID string
	TurnID         string
	Role           string
	Text           string
	Status         string
	Mentions       string
	PageContext    string // what the client said was on screen (JSON), user messages only
	Refs           string
	InputTokens    int
	OutputTokens   int
	ErrorCode      string
	ErrorMessage   string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Turn is one run of the assistant for one message of the person: its status
// and its run record (exactly what the model was shown), so an inspector can
// replay what happened. FrameSeq is the last stream frame's sequence number.
type Turn struct {
	ID             string `gorm:"primaryKey"`
	ConversationID string
	SpaceID        string
	PersonID       string
	UserMessageID  string
	ReplyMessageID string
	RetryOf        string
	Status         string
	Step           int
	ErrorCode      string
	ErrorMessage   string
	Model          string
	Effort         string // reasoning effort ("" none)
	Instructions   string
	Context        string
	OfferedTools   string
	AddedTools     string
	OfferWhy       string // JSON chat.OfferWhy
	HistoryIDs     string
	Spaces         string // JSON ids of other spaces the turn may act in
	AgentID        string // its conversation's agent, "" for the person's own
	Purpose        string // the usage bucket of its model calls ("chat", or its agent's purpose)
	// ReferenceContext is what another screen sent with the message for
	// the model alone (turns.Message.ReferenceContext).
	ReferenceContext string
	// ScheduleID and ScheduleRun name the agent schedule and the firing
	// (its workflow's id) that started the turn; "" for a person's message.
	ScheduleID  string
	ScheduleRun string
	// WritePolicy overrides the person's write policy for this turn ("":
	// theirs); a schedule's turn holds its writes unless told otherwise.
	WritePolicy   string
	FrameSeq      int64
	RunID         string // the Temporal run that owns the turn
	AttemptSeq    int64  // the frame that opened the current attempt (a reset run's reopening)
	InputTokens   int
	OutputTokens  int
	CreatedAt     time.Time
	UpdatedAt     time.Time
	FinishedAt    *time.Time
	ApplyingSince *time.Time // when the Apply of the reply started running; nil: none runs
	Interrupts    int        // the Stops and Pauses the api signalled
}

// TurnStep is one model request of a turn and what the model answered: the
// text it streamed and the tool calls it asked for (JSON).
type TurnStep struct {
	TurnID       string `gorm:"primaryKey"`
	Step         int    `gorm:"primaryKey"`
	Attempt      int
	Text         string
	ToolCalls    string
	FinishReason string
	InputTokens  int
	OutputTokens int
	Nudge        string // the note the answer went back to the model with
	NudgeKind    string
	PartsLevel   int // how far the call went down the attached files' fallback (0: all sent)
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// ToolCall is one tool call of a turn: the model's arguments, what Hub sent
// back as the tool result, and the summary the person reads. Its ID is
// derived from the turn, step and position, so a retried activity finds the
// row it already wrote instead of writing twice.
type ToolCall struct {
	ID             string `gorm:"primaryKey"`
	TurnID         string
	Step           int
	Idx            int
	ProviderCallID string
	Tool           string
	Arguments      string
	Status         string
	Result         string
	Summary        string
	Refs           string
	ErrorCode      string
	ErrorMessage   string
	Input          string // a held call's prepared input, which Apply runs
	HeldFor        string // where a held call waits: "apply" or "needs-me"
	UndoGroupID    string // an immediate write's Undo group
	SpaceID        string // the space it named; "": its turn's
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Frame is one frame of a log (a turn's stream, a person's work frames).
type Frame struct {
	Log       string `gorm:"primaryKey"`
	Seq       int64  `gorm:"primaryKey"`
	Type      string
	Data      string
	CreatedAt time.Time
	// Attempt is the turn's attempt_seq for a frame an attempt sends once
	// (unique on log, type, attempt); nil for others.
	Attempt *int64
}

// FrameHead is the last number of a log not numbered by a turn (a
// person's work frames). Its row lock orders the log's frames; it outlives
// them, so numbers never go back.
type FrameHead struct {
	Log string `gorm:"primaryKey"`
	Seq int64
}

// Connection is a connected app of a space, added by OwnerID: for now a
// webhook (Kind "webhook") Hub posts updates to at URL. A disabled one stays
// listed but is never posted to.
type Connection struct {
	ID      string `gorm:"primaryKey"`
	SpaceID string
	OwnerID string
	Kind    string
	Name    string
	URL     string
	Enabled bool
	Failure string // why Hub's last post to it failed; "" when it worked
	Secret  []byte // an MCP server's bearer secret, sealed (apps.SecretBox)
	// Tools is the JSON of the tools an MCP server listed at ToolsListedAt.
	Tools         string
	ToolsListedAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Skill is a person's own saved instructions: only PersonID reads it.
// Version guards every change; a Purpose keeps it out of chat turns.
type Skill struct {
	ID           string `gorm:"primaryKey"`
	PersonID     string
	Name         string
	Description  string
	Instructions string
	Enabled      bool
	Purpose      string
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Agent is a person's agent (workspace.Agent). Tools, WithoutTools and
// Spaces are JSON arrays of names and ids.
type Agent struct {
	ID           string `gorm:"primaryKey"`
	OwnerID      string
	Name         string
	Persona      string
	Model        string
	Effort       string
	Tools        string
	WithoutTools string
	Spaces       string
	Purpose      string
	Enabled      bool
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// AgentSchedule is what Hub keeps of an agent's Temporal Schedule: the
// work it starts and where; Temporal keeps its times and pause state.
type AgentSchedule struct {
	ID             string `gorm:"primaryKey"`
	AgentID        string
	OwnerID        string
	ConversationID string
	Text           string
	Spec           string // JSON workspace.ScheduleSpec
	TimeZone       string
	Overlap        string
	Writes         string
	HeldByAgent    bool
	CreatedAt      time.Time
}

// UndoGroup is what one Undo takes back: the writes of one tool call, or of
// one Apply in one space, made by PersonID. State is "done", "undone" or
// "redone"; EntryCount is the last entry's Seq.
type UndoGroup struct {
	ID         string `gorm:"primaryKey"`
	SpaceID    string
	PersonID   string
	Via        string
	Label      string
	State      string
	EntryCount int
	CreatedAt  time.Time
	UndoneAt   *time.Time
	RedoneAt   *time.Time
}

// UndoEntry is one record changed in an Undo group: its state before (nil:
// it did not exist) and after (nil: it was deleted), as JSON.
type UndoEntry struct {
	GroupID   string `gorm:"primaryKey"`
	Seq       int    `gorm:"primaryKey"`
	Kind      string
	RecordID  string
	Before    *string
	After     *string
	CreatedAt time.Time
}

// Receipt is what became of one held call the person applied: succeeded,
// failed, unattempted, unknown (an outside write whose outcome is not
// known), or sending (an outside write on its way).
type Receipt struct {
	CallID       string `gorm:"primaryKey"`
	MessageID    string
	SpaceID      string
	Status       string
	Summary      string
	ErrorCode    string
	ErrorMessage string
	UndoGroupID  string
	Attempts     int
	Refs         string // the records the applied call changed (JSON)
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// RecordChange is one committed change to a task or project: who made it,
// through what, and the record's title after it (before, for a deletion).
type RecordChange struct {
	ID        string `gorm:"primaryKey"`
	SpaceID   string
	Kind      string
	RecordID  string
	Op        string
	ActorID   string
	Via       string
	Title     string
	CreatedAt time.Time
}

// AuditEvent is one entry of a space's audit log: a change of its
// connected apps, its settings or its people, by whom and how.
type AuditEvent struct {
	ID        string `gorm:"primaryKey"`
	SpaceID   string
	ActorID   string
	Via       string
	Kind      string
	Action    string
	TargetID  string
	Summary   string
	Changes   string
	CreatedAt time.Time
}

// WorkflowStep is one step of an applied hub_run_workflow call.
type WorkflowStep struct {
	CallID         string `gorm:"primaryKey"`
	StepID         string `gorm:"primaryKey"`
	Idx            int
	SpaceID        string
	ActorID        string
	ConversationID string
	Tool           string
	Status         string
	ResolvedInput  string
	Output         string
	Summary        string
	ErrorCode      string
	ErrorMessage   string
	UndoGroupID    string
	Refs           string // the records a succeeded step changed (JSON)
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// ModelCall is one request Hub sent to a model: a reservation before it
// (Status reserved, ReservedMicros the estimate), settled after it with the
// tokens the provider reported and their cost in micro-dollars. Its ID is
// the request's identity (turn, workflow run, activity, attempt, try).
type ModelCall struct {
	ID                string `gorm:"primaryKey"`
	TurnID            string
	Step              int
	ConversationID    string
	SpaceID           string
	PersonID          string
	Model             string
	Purpose           string // the turn's (storage.Turn.Purpose), or the completion's
	CompletionID      string // the completion it was made for ("": a turn's own call)
	Status            string
	Day               string // UTC date of CreatedAt, 2026-12-01
	InputTokens       int64
	CachedInputTokens int64
	OutputTokens      int64
	ReservedMicros    int64
	CostMicros        int64
	ErrorKind         string
	Estimated         bool // the provider reported no usage: tokens and cost are Hub's estimate
	CreatedAt         time.Time
	SettledAt         *time.Time
}

// Completion is one direct completion (POST /api/completions): a fixed
// task's one model call, its input and result as JSON.
type Completion struct {
	ID           string `gorm:"primaryKey"`
	PersonID     string
	SpaceID      string
	Kind         string
	Status       string
	Title        string
	Model        string
	Effort       string
	Purpose      string
	TurnID       string // the turn it started inside ("": none)
	Input        string
	Result       string
	ErrorCode    string
	ErrorMessage string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	EndedAt      *time.Time
}

// SpaceSpend is what a space spent and holds reserved in one UTC month
// (2026-12): the one row the pre-spend check reads and changes.
type SpaceSpend struct {
	SpaceID        string `gorm:"primaryKey"`
	Month          string `gorm:"primaryKey"`
	SpentMicros    int64
	ReservedMicros int64
}

// TableName keeps gorm from pluralising the spend table.
func (SpaceSpend) TableName() string { return "space_spend" }

// OIDCSubject is a subject of the OpenID Connect provider (issuer and sub)
// and the person it signs in as.
type OIDCSubject struct {
	Issuer    string `gorm:"primaryKey"`
	Subject   string `gorm:"primaryKey"`
	PersonID  string
	CreatedAt time.Time
}

// TableName keeps the table's name whole.
func (OIDCSubject) TableName() string { return "oidc_subjects" }
