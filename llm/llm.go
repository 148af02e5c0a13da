// Package llm is Hub's gateway to a chat model: one streaming call to any
// OpenAI-compatible chat completions endpoint, through go-openai.
//
// It owns what every model call needs and nothing a turn decides: building
// the request, assembling streamed text and tool-call deltas, counting usage,
// bounding the call with its timeout, closing the HTTP stream the moment the
// caller's context ends, and sorting failures into one typed *Error. It never
// retries: the CallModel activity decides that from Error.Retryable and
// Error.RetryAfter, so a retry is visible in Temporal instead of hidden here.
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
	// Role is system, user, assistant or tool.
	Role    string
	Content string
	// ToolCalls are the calls an assistant message made; they must be sent
	// back with the transcript so the tool results that follow make sense.
	ToolCalls []ToolCall
	// ToolCallID ties a tool message to the call it answers.
	ToolCallID string
	// Parts are files given with a user message: pictures as image parts,
	// other files as file parts, after its text.
	Parts []Part
}

// ToolCall is one tool call the model made.
type ToolCall struct {
	ID   string
	Name string
	// Arguments is the raw JSON text exactly as the model sent it. It may be
	// malformed: the caller reports that to the model as a tool error rather
	// than this package hiding or "repairing" it.
	Arguments string
}

// Tool is one tool offered to the model.
type Tool struct {
	Name        string
	Description string
	// Parameters is the tool's input JSON Schema; empty means "no input".
	Parameters json.RawMessage
}

// Request is one model call. No Tools means tools-off: the model must answer
// in text (the turn's final step).
type Request struct {
	Messages []Message
	Tools    []Tool
	// MaxTokens caps the answer; 0 leaves it to the endpoint.
	MaxTokens int
	// Model is the model name sent for this call; empty: the client's
	// (Config.Model). One client serves every model of its endpoint.
	Model string
	// Effort is the reasoning effort sent (reasoning_effort); empty sends
	// none.
	Effort string
}

// Usage is the token count the endpoint reported for the call.
// CachedInputTokens is the part of InputTokens the provider served from its
// prompt cache (billed at Price.CachedInput); it is never more than
// InputTokens.
type Usage struct {
	InputTokens, OutputTokens int
	CachedInputTokens         int
	// Estimated is set by Hub, never by a provider: the call reported no
	// usage, and these counts are an estimate (activities' meter).
	Estimated bool
}

// Result is the assembled answer of one call.
type Result struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	// FinishReason is the endpoint's: stop, tool_calls, length,
	// content_filter.
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

// New returns a client for cfg. hc is the HTTP client to send through; nil
// means a client with no overall timeout and no response-header timeout, so a
// model that thinks for minutes before its first token is not cut off by
// transport defaults: every call is bounded by its context and the configured
// Timeout instead.
//
// New never fails, even for a Config that is not Configured: Stream then
// answers KindUnavailable, so Hub can start and say what to set.
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

// Model names the model this client calls, for messages such as "<model> did
// not answer within 15 minutes" and for the run record.
func (c *Client) Model() string { return c.cfg.Model }

// Timeout is the limit of one call.
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }
