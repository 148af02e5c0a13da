package storage

import "time"

// Space is a workspace: the unit of access. Every record belongs to one.
type Space struct {
	ID   string `gorm:"primaryKey"`
	Name string
	// MonthlyBudgetMicros is the owner's monthly budget for the space's
	// model calls, in micro-dollars; nil: no budget.
	MonthlyBudgetMicros *int64
	CreatedAt           time.Time
}

// Person is someone who signs in (or a service account acting for them).
type Person struct {
	ID   string `gorm:"primaryKey"`
	Name string
	// Persona is one sentence about the person's work, in their words;
	// FirstName what the assistant calls them ("": the first word of Name).
	Persona   string
	FirstName string
	CreatedAt time.Time
}

// TableName keeps the plural English name.
func (Person) TableName() string { return "people" }

// Membership gives a person a role in a space: owner, editor, viewer or guest.
type Membership struct {
	SpaceID  string `gorm:"primaryKey"`
	PersonID string `gorm:"primaryKey"`
	Role     string
	// Revision moves on with every change of the person's record in the
	// space (their role, their name), as a task's does.
	Revision  int `gorm:"default:1"`
	CreatedAt time.Time
}

// APIToken is a bearer token, stored as a SHA-256 hash. Scope is empty for a
// person's full token; a stream token carries "stream:<turnID>" and expires.
type APIToken struct {
	ID        string `gorm:"primaryKey"`
	PersonID  string
	Hash      string
	Scope     string
	ExpiresAt *time.Time
	CreatedAt time.Time
	// Name names a token made by hub token create; Prefix is the token's
	// first characters, to tell tokens apart (the token is only hashed).
	Name       string
	Prefix     string
	LastUsedAt *time.Time
	// ParentID is the token a stream token or a session was derived from
	// ("": none): revoking it deletes them too.
	ParentID string
}

// Setting holds a person's assistant settings. AllowedWriteAreas is a JSON
// list of area names ("[]": every area).
type Setting struct {
	PersonID           string `gorm:"primaryKey"`
	WritePolicy        string
	AllowedWriteAreas  string
	ConnectedAppWrites bool
	// Model and Effort are the person's default model and reasoning
	// effort ("": the catalog's default, no effort).
	Model     string
	Effort    string
	UpdatedAt time.Time
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
	// Effort is the reasoning effort the turn was started with ("" none);
	// Model the catalog model it runs.
	Effort       string
	Instructions string
	Context      string
	OfferedTools string
	AddedTools   string
	// OfferWhy is why the offer is what it is (JSON chat.OfferWhy).
	OfferWhy   string
	HistoryIDs string
	// Spaces are the other spaces (JSON ids) the turn may act in besides
	// its conversation's.
	Spaces   string
	FrameSeq int64
	// RunID is the Temporal run that owns the turn; AttemptSeq the frame
	// that opened its current attempt of frames (a reset run's reopening).
	RunID        string
	AttemptSeq   int64
	InputTokens  int
	OutputTokens int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	FinishedAt   *time.Time
	// ApplyingSince is when the Apply of the turn's reply started running;
	// nil when none runs.
	ApplyingSince *time.Time
	// Interrupts counts the Stops and Pauses the api signalled.
	Interrupts int
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
	// Nudge is the note this step's answer went back to the model with;
	// NudgeKind what kind of note it is ("answer", "verify").
	Nudge     string
	NudgeKind string
	// PartsLevel is how far the model call went down the attached files'
	// fallback (0: every part as sent).
	PartsLevel int
	CreatedAt  time.Time
	UpdatedAt  time.Time
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
	// Input is the prepared input of a held call, which Apply runs.
	Input string
	// HeldFor is where a held call waits: "apply" (the chat) or "needs-me".
	HeldFor string
	// UndoGroupID is the Undo group an immediate write recorded.
	UndoGroupID string
	// SpaceID is the space the call acted in when it named one; empty
	// means its turn's space.
	SpaceID   string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Frame is one frame of a log (a turn's stream, a person's work frames),
// kept so a client that reconnects with Last-Event-ID gets every frame
// after it, from any api process.
type Frame struct {
	Log       string `gorm:"primaryKey"`
	Seq       int64  `gorm:"primaryKey"`
	Type      string
	Data      string
	CreatedAt time.Time
	// Attempt is the turn's attempt_seq when a frame its attempt sends once
	// (refs, proposal, turn_error, error, done) was stored; a unique index
	// on (log, type, attempt) keeps a second one out. nil (NULL) for a
	// frame placed in no attempt.
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
	// Failure is why Hub's last post to it failed; "" when it worked.
	Failure string
	// Secret is an MCP server's bearer secret, sealed with the operator's
	// key (apps.SecretBox); nil when it has none.
	Secret []byte
	// Tools is the JSON of the tools an MCP server listed at ToolsListedAt
	// (nil: never listed).
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
	Status            string
	Day               string // UTC date of CreatedAt, 2026-12-01
	InputTokens       int64
	CachedInputTokens int64
	OutputTokens      int64
	ReservedMicros    int64
	CostMicros        int64
	ErrorKind         string
	// Estimated: the provider reported no usage (a stopped call, one past
	// its limit or cut off, an endpoint that sends none); the tokens and
	// cost are Hub's estimate of what was sent and streamed.
	Estimated bool
	CreatedAt time.Time
	SettledAt *time.Time
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
