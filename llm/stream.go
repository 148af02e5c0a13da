package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Stream makes one streaming chat completion, calling onChunk (may be nil)
// for every chunk, and returns the assembled Result once the stream ended
// properly: a finish reason, then `data: [DONE]`.
//
// The call is bounded by ctx and the client's Timeout. When ctx ends the
// HTTP stream is closed at once, so the endpoint stops generating (and
// billing). An error from onChunk is returned unchanged, every other
// failure is an *Error. On error the Result holds what had arrived.
func (c *Client) Stream(ctx context.Context, req Request, onChunk func(Chunk) error) (Result, error) {
	if onChunk == nil {
		onChunk = func(Chunk) error { return nil }
	}
	if !c.cfg.Configured() {
		return Result{}, &Error{Kind: KindUnavailable, Message: UnavailableMessage}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	ex := &exchange{}
	ctx = context.WithValue(ctx, exchangeKey{}, ex)

	creq := c.chatRequest(req, &ex.files)
	ex.model = creq.Model
	stream, err := c.oc.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		if ex.body != nil {
			_ = ex.body.Close() // go-openai read the error body but does not close it
		}
		return Result{}, c.classify(ctx, start, ex, err)
	}
	defer stream.Close()
	// The transport already drops the connection when ctx ends; closing the
	// body as well makes that independent of the caller's RoundTripper.
	stopClosing := context.AfterFunc(ctx, func() { _ = stream.Close() })
	defer stopClosing()

	var acc assembler
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) && ctx.Err() == nil {
			break
		}
		if err != nil {
			return acc.result(), c.classify(ctx, start, ex, err)
		}
		delta := acc.add(resp)
		if err := onChunk(Chunk{TextDelta: delta}); err != nil {
			return acc.result(), err
		}
	}
	if !ex.sawDone || acc.finishReason == "" {
		what := "before [DONE]"
		if acc.finishReason == "" {
			what = "before a finish reason"
		}
		msg := "the stream ended " + what + ", so the answer is incomplete"
		return acc.result(), &Error{Kind: KindStreamCut, Status: ex.status, Message: msg, cause: io.ErrUnexpectedEOF}
	}
	ex.drainRest()
	return acc.result(), nil
}

// emptyParameters is offered for a tool without a schema: some endpoints
// reject a tool whose parameters are missing or null.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// chatRequest converts a Request into go-openai's form.
func (c *Client) chatRequest(req Request, files *[]Part) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:           cmp.Or(req.Model, c.cfg.Model),
		ReasoningEffort: req.Effort,
		Messages:        make([]openai.ChatCompletionMessage, 0, len(req.Messages)),
		StreamOptions:   &openai.StreamOptions{IncludeUsage: true},
	}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.Parts) > 0 {
			om.Content, om.MultiContent = "", multiContent(m, files)
		}
		for _, tc := range m.ToolCalls {
			fn := openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction, Function: fn})
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptyParameters
		}
		fn := &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}
		out.Tools = append(out.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: fn})
	}
	if req.MaxTokens > 0 {
		//lint:ignore SA1019 max_tokens is what older OpenAI-compatible servers know; reasoning models get max_completion_tokens below
		out.MaxTokens = req.MaxTokens
		// Reasoning models refuse max_tokens; go-openai's validator knows them.
		if errors.Is(openai.NewReasoningValidator().Validate(out), openai.ErrReasoningModelMaxTokensDeprecated) {
			//lint:ignore SA1019 clearing the deprecated field is how a reasoning model gets max_completion_tokens alone
			out.MaxTokens, out.MaxCompletionTokens = 0, req.MaxTokens
		}
	}
	return out
}

// assembler accumulates a streamed answer.
type assembler struct {
	text         strings.Builder
	calls        []*partialCall
	byIndex      map[int]*partialCall
	finishReason string
	usage        Usage
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

// add folds one chunk in and returns its text delta.
func (a *assembler) add(resp openai.ChatCompletionStreamResponse) string {
	if resp.Usage != nil {
		a.usage = Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}
		if d := resp.Usage.PromptTokensDetails; d != nil {
			// Cached tokens are part of the prompt: never more than it.
			a.usage.CachedInputTokens = min(max(d.CachedTokens, 0), max(resp.Usage.PromptTokens, 0))
		}
	}
	var delta strings.Builder
	for _, ch := range resp.Choices {
		if ch.Index != 0 {
			continue // Hub asks for one choice.
		}
		// A refusal is the model's answer too; the person must see it.
		delta.WriteString(ch.Delta.Content)
		delta.WriteString(ch.Delta.Refusal)
		for _, tc := range ch.Delta.ToolCalls {
			a.addToolDelta(tc)
		}
		if ch.FinishReason != "" {
			a.finishReason = string(ch.FinishReason)
		}
	}
	d := cleanText(delta.String())
	a.text.WriteString(d)
	return d
}

// addToolDelta merges one tool-call delta by its index. Endpoints that omit
// the index (some older compatible servers) start a new call with each id and
// continue the last call otherwise.
func (a *assembler) addToolDelta(tc openai.ToolCall) {
	var p *partialCall
	switch {
	case tc.Index != nil:
		p = a.byIndex[*tc.Index]
		if p == nil {
			p = &partialCall{}
			if a.byIndex == nil {
				a.byIndex = map[int]*partialCall{}
			}
			a.byIndex[*tc.Index] = p
			a.calls = append(a.calls, p)
		}
	case tc.ID != "" || len(a.calls) == 0:
		p = &partialCall{}
		a.calls = append(a.calls, p)
	default:
		p = a.calls[len(a.calls)-1]
	}
	// Some servers repeat the id and name in every delta: keep the first.
	p.id, p.name = cmp.Or(p.id, tc.ID), cmp.Or(p.name, tc.Function.Name)
	p.args.WriteString(tc.Function.Arguments)
}

func (a *assembler) result() Result {
	r := Result{Text: a.text.String(), Usage: a.usage, FinishReason: a.finishReason}
	for i, p := range a.calls {
		// A tool result must name its call: a stable id for servers that send none.
		id := cmp.Or(p.id, fmt.Sprintf("call_%d", i))
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: cleanText(id), Name: cleanText(p.name), Arguments: cleanArguments(p.args.String())})
	}
	return r
}

// clean makes the model's bytes storable: Postgres refuses a NUL or bytes
// that are not UTF-8 in a text column. Bad UTF-8 becomes U+FFFD and each
// NUL becomes nul. A chunk is one decoded JSON string, so cleaning each
// delta cleans the whole text the same way.
func clean(s, nul string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", nul)
}

// cleanText keeps what text can be kept: NULs are dropped.
func cleanText(s string) string { return clean(s, "") }

// cleanArguments makes a tool call's arguments storable without changing
// what they say: a raw NUL becomes the JSON escape \u0000.
func cleanArguments(s string) string { return clean(s, `\u0000`) }
