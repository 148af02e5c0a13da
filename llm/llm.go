// Package llm is Hub's gateway to a chat model: one streaming call to any
// OpenAI-compatible chat completions endpoint, through go-openai. It builds
// the request, assembles the streamed answer, bounds the call and sorts
// failures into one *Error. It never retries: the CallModel activity decides
// from Error.Retryable, so a retry is visible in Temporal.
package llm

import (
	"cmp"
	"encoding/json"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Message roles, as the chat completions API names them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of the transcript sent to the model.
type Message struct {
	Role    string
	Content string
	// ToolCalls are an assistant message's calls, sent back so the tool results that follow make sense.
	ToolCalls  []ToolCall
	ToolCallID string // the call a tool message answers
	Parts      []Part // files given with a user message, after its text
}

// ToolCall is one tool call the model made.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is the raw JSON as the model sent it, possibly malformed:
	// the caller reports that to the model as a tool error.
	Arguments string
}

// Tool is one tool offered to the model.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // input JSON Schema; empty: no input
}

// Request is one model call. No Tools means tools-off: the model must answer
// in text (the turn's final step).
type Request struct {
	Messages  []Message
	Tools     []Tool
	MaxTokens int    // 0 leaves it to the endpoint
	Model     string // empty: the client's Config.Model
	Effort    string // reasoning_effort; empty sends none
}

// Usage is the token count the endpoint reported for the call.
type Usage struct {
	InputTokens, OutputTokens int
	// CachedInputTokens is the part of InputTokens served from the
	// provider's prompt cache; never more than InputTokens.
	CachedInputTokens int
	// Estimated is set by Hub, never by a provider: the call reported no
	// usage, and these counts are an estimate (activities' meter).
	Estimated bool
}

// Result is the assembled answer of one call.
type Result struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	// FinishReason is the endpoint's: stop, tool_calls, length, ...
	FinishReason string
}

// Chunk is passed to Stream's onChunk once per received SSE chunk, even when
// the chunk carries only tool-call deltas or usage, so the caller can
// heartbeat on every sign of life and publish text as it arrives.
type Chunk struct {
	TextDelta string
}

// Client calls one model endpoint. It is safe for concurrent use.
type Client struct {
	cfg Config
	oc  *openai.Client
}

// New returns a client for cfg, sending through hc. A nil hc has no overall
// or response-header timeout, so a model that thinks for minutes before its
// first token is bounded only by the call's context and Timeout. For a
// Config that is not Configured, Stream answers KindUnavailable.
func New(cfg Config, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	cfg.Model, cfg.Timeout = cmp.Or(cfg.Model, DefaultModel), cfg.timeout()
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.baseURLOrDefault()
	oc.HTTPClient = recordingDoer{hc: hc}
	// go-openai gives up after this many consecutive non-data lines. Keepalive
	// comments from a model that thinks for a long time are such lines; the
	// call's deadline, not a line count, is what bounds a silent model.
	oc.EmptyMessagesLimit = 1 << 20
	return &Client{cfg: cfg, oc: openai.NewClientWithConfig(oc)}
}

// Model names the model this client calls, for messages and the run record.
func (c *Client) Model() string { return c.cfg.Model }

// Timeout is the limit of one call.
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }
