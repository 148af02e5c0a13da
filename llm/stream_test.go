package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"hub/fakemodel"
	"hub/llm"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// setup starts a fakemodel server with script and returns it and a client
// pointed at it; both are closed after the test.
func setup(t *testing.T, script string) (*fakemodel.Server, *llm.Client) {
	t.Helper()
	srv, baseURL, hc := startFake(t, script)
	return srv, llm.New(llm.Config{BaseURL: baseURL, Model: "test-model"}, hc)
}

// startFake starts the server alone, for tests that build their own client.
func startFake(t *testing.T, script string) (*fakemodel.Server, string, *http.Client) {
	t.Helper()
	srv := fakemodel.New(fakemodel.MustParseScript(script))
	baseURL, err := srv.Start("127.0.0.1:0")
	require.NoError(t, err)
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		require.NoError(t, srv.Close())
	})
	return srv, baseURL, &http.Client{Transport: tr}
}

// collector records the chunks Stream hands over.
type collector struct{ deltas []string }

func (c *collector) onChunk(ch llm.Chunk) error {
	c.deltas = append(c.deltas, ch.TextDelta)
	return nil
}

func (c *collector) text() string { return strings.Join(c.deltas, "") }

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ask(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

func TestStreamText(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, `{"rules": [{"reply": {"text": "Hello there, this is streamed.", "chunkSize": 4, "usage": {"input": 12, "output": 7}}}]}`)
	var col collector
	res, err := c.Stream(testCtx(t), ask("hi"), col.onChunk)
	require.NoError(t, err)
	require.Equal(t, "Hello there, this is streamed.", res.Text)
	require.Equal(t, res.Text, col.text(), "onChunk saw every text delta")
	require.Len(t, col.deltas, 8+2, "one call per chunk: 8 text chunks, the finish chunk and the usage chunk")
	require.Equal(t, "Hell", col.deltas[0])
	require.Equal(t, llm.Usage{InputTokens: 12, OutputTokens: 7}, res.Usage)
	require.Equal(t, "stop", res.FinishReason)
	require.Empty(t, res.ToolCalls)

	rec := srv.Requests()[0]
	require.True(t, rec.Stream)
	require.True(t, rec.IncludeUsage, "usage is asked for with stream_options.include_usage")
	require.Equal(t, "test-model", rec.Model)
	require.Empty(t, rec.Tools, "no tools = tools-off")
	require.Equal(t, "test-model", c.Model())
}

// TestStreamCachedTokens: the provider's prompt_tokens_details.cached_tokens
// is the call's CachedInputTokens, which a call's cost bills at the cached
// price.
func TestStreamCachedTokens(t *testing.T) {
	t.Parallel()
	_, c := setup(t, `{"rules": [{"reply": {"text": "ok", "usage": {"input": 1000, "cached": 600, "output": 50}}}]}`)
	res, err := c.Stream(testCtx(t), ask("hi"), func(llm.Chunk) error { return nil })
	require.NoError(t, err)
	require.Equal(t, llm.Usage{InputTokens: 1000, CachedInputTokens: 600, OutputTokens: 50}, res.Usage)
}

func TestStreamToolCalls(t *testing.T) {
	t.Parallel()
	_, c := setup(t, `{"rules": [{"reply": {"chunkSize": 3, "usage": {"input": 40, "output": 9}, "toolCalls": [
		{"id": "call_a", "name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Buy milk"}, {"title": "Call Sam"}]}},
		{"id": "call_b", "name": "hub_list_tasks", "arguments": {}}
	]}}]}`)
	var col collector
	res, err := c.Stream(testCtx(t), ask("add two tasks"), col.onChunk)
	require.NoError(t, err)
	args := `{"tasks":[{"title":"Buy milk"},{"title":"Call Sam"}]}`
	require.Equal(t, []llm.ToolCall{
		{ID: "call_a", Name: "hub_create_tasks", Arguments: args},
		{ID: "call_b", Name: "hub_list_tasks", Arguments: "{}"},
	}, res.ToolCalls)
	require.Equal(t, "tool_calls", res.FinishReason)
	require.Equal(t, llm.Usage{InputTokens: 40, OutputTokens: 9}, res.Usage)
	require.Empty(t, res.Text)
	// name chunk + ceil(len/3) argument chunks for each call, finish, usage.
	want := 1 + (len(args)+2)/3 + 1 + 1 + 2
	require.Len(t, col.deltas, want, "onChunk is called for chunks that carry only tool-call deltas")
}

func TestMalformedToolArgumentsPassThrough(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply string
		want  string
	}{
		{
			name:  "raw arguments",
			reply: `{"chunkSize": 5, "toolCalls": [{"name": "hub_create_tasks", "rawArguments": "{\"tasks\": [{\"title\": \"x\"}"}]}`,
			want:  `{"tasks": [{"title": "x"}`,
		},
		{
			name:  "malformed_tool_args fault",
			reply: `{"chunkSize": 2, "fault": "malformed_tool_args", "toolCalls": [{"name": "hub_list_tasks", "arguments": {"status": "open"}}]}`,
			want:  `{"status":"open"`,
		},
		{
			name:  "not JSON at all",
			reply: `{"toolCalls": [{"name": "hub_list_tasks", "rawArguments": "status=open, please"}]}`,
			want:  `status=open, please`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c := setup(t, `{"rules": [{"reply": `+tt.reply+`}]}`)
			var col collector
			res, err := c.Stream(testCtx(t), ask("x"), col.onChunk)
			require.NoError(t, err, "malformed arguments are the caller's to report, not a call failure")
			require.Len(t, res.ToolCalls, 1)
			require.Equal(t, tt.want, res.ToolCalls[0].Arguments)
			require.False(t, json.Valid([]byte(res.ToolCalls[0].Arguments)))
		})
	}
}

func TestRequestSent(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, `{"rules": [{"reply": {"text": "ok"}}]}`)
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are Hub."},
			{Role: llm.RoleUser, Content: "list my tasks"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "hub_list_tasks", Arguments: "{}"}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Content: `{"summary": "no tasks"}`},
		},
		Tools: []llm.Tool{
			{Name: "hub_list_tasks", Description: "List tasks.", Parameters: json.RawMessage(`{"type":"object","properties":{"status":{"type":"string"}}}`)},
			{Name: "hub_how_to", Description: "Load a playbook."},
		},
		MaxTokens: 500,
	}
	_, err := c.Stream(testCtx(t), req, func(llm.Chunk) error { return nil })
	require.NoError(t, err)

	rec := srv.Requests()[0]
	require.Equal(t, []fakemodel.Message{
		{Role: "system", Content: "You are Hub."},
		{Role: "user", Content: "list my tasks"},
		{Role: "assistant", ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "hub_list_tasks", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"summary": "no tasks"}`},
	}, rec.Messages)
	require.Equal(t, []string{"hub_list_tasks", "hub_how_to"}, rec.Tools)

	var body struct {
		MaxTokens           int `json:"max_tokens"`
		MaxCompletionTokens int `json:"max_completion_tokens"`
		Tools               []struct {
			Function struct {
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(rec.Body, &body))
	require.Equal(t, 500, body.MaxTokens)
	require.Zero(t, body.MaxCompletionTokens)
	require.JSONEq(t, `{"type":"object","properties":{"status":{"type":"string"}}}`, string(body.Tools[0].Function.Parameters))
	require.JSONEq(t, `{"type":"object","properties":{}}`, string(body.Tools[1].Function.Parameters), "a tool without a schema gets an empty object schema")
	require.Equal(t, "List tasks.", body.Tools[0].Function.Description)
}

func TestMaxTokensFieldFollowsTheModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model          string
		wantMax        int
		wantCompletion int
	}{
		{model: "llama3.1", wantMax: 100},
		{model: "gpt-5-mini", wantCompletion: 100},
		{model: "o3", wantCompletion: 100},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			srv, baseURL, hc := startFake(t, `{"rules": [{"reply": {"text": "ok"}}]}`)
			c := llm.New(llm.Config{BaseURL: baseURL, Model: tt.model}, hc)
			req := ask("x")
			req.MaxTokens = 100
			_, err := c.Stream(testCtx(t), req, func(llm.Chunk) error { return nil })
			require.NoError(t, err)
			var body struct {
				MaxTokens           int `json:"max_tokens"`
				MaxCompletionTokens int `json:"max_completion_tokens"`
			}
			require.NoError(t, json.Unmarshal(srv.Requests()[0].Body, &body))
			require.Equal(t, tt.wantMax, body.MaxTokens)
			require.Equal(t, tt.wantCompletion, body.MaxCompletionTokens)
		})
	}
}

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	future := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		reply      string
		kind       llm.Kind
		status     int
		retryAfter time.Duration
		retryable  bool
		partial    string // text that arrived before the failure
	}{
		{name: "429 with Retry-After seconds", reply: `{"fault": {"kind": "rate_limit", "retryAfter": 3}}`,
			kind: llm.KindRateLimited, status: 429, retryAfter: 3 * time.Second, retryable: true},
		{name: "429 with Retry-After date", reply: `{"fault": {"kind": "rate_limit", "retryAfter": "` + future + `"}}`,
			kind: llm.KindRateLimited, status: 429, retryAfter: 30 * time.Second, retryable: true},
		{name: "500", reply: `{"fault": "server_error"}`, kind: llm.KindServer, status: 500, retryable: true},
		{name: "503 with Retry-After", reply: `{"fault": {"kind": "http_error", "status": 503, "retryAfter": 2}}`,
			kind: llm.KindServer, status: 503, retryAfter: 2 * time.Second, retryable: true},
		{name: "408", reply: `{"fault": {"kind": "http_error", "status": 408}}`, kind: llm.KindTimeout, status: 408, retryable: true},
		{name: "409", reply: `{"fault": {"kind": "http_error", "status": 409}}`, kind: llm.KindConflict, status: 409, retryable: true},
		{name: "400", reply: `{"fault": {"kind": "http_error", "status": 400}}`, kind: llm.KindBadRequest, status: 400},
		{name: "404", reply: `{"fault": {"kind": "http_error", "status": 404}}`, kind: llm.KindBadRequest, status: 404},
		{name: "422", reply: `{"fault": {"kind": "http_error", "status": 422}}`, kind: llm.KindBadRequest, status: 422},
		{name: "401", reply: `{"fault": {"kind": "http_error", "status": 401}}`, kind: llm.KindAuth, status: 401},
		{name: "403", reply: `{"fault": {"kind": "http_error", "status": 403}}`, kind: llm.KindAuth, status: 403},
		{name: "connection dropped mid-stream", reply: `{"text": "abcdefgh", "chunkSize": 2, "fault": {"kind": "cut", "afterChunks": 2}}`,
			kind: llm.KindStreamCut, status: 200, retryable: true, partial: "abcd"},
		{name: "clean end before a finish reason", reply: `{"text": "abcdefgh", "chunkSize": 2, "fault": {"kind": "cut", "clean": true}}`,
			kind: llm.KindStreamCut, status: 200, retryable: true, partial: "abcd"},
		{name: "clean end after the finish reason but before [DONE]", reply: `{"text": "abcdefgh", "chunkSize": 2, "fault": {"kind": "cut", "clean": true, "afterChunks": 100}}`,
			kind: llm.KindStreamCut, status: 200, retryable: true, partial: "abcdefgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c := setup(t, `{"rules": [{"reply": `+tt.reply+`}]}`)
			var col collector
			res, err := c.Stream(testCtx(t), ask("x"), col.onChunk)
			var e *llm.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tt.kind, e.Kind, e.Error())
			require.Equal(t, tt.status, e.Status)
			require.InDelta(t, tt.retryAfter, e.RetryAfter, float64(2*time.Second))
			require.Equal(t, tt.retryable, e.Retryable())
			require.NotEmpty(t, e.Message)
			require.Equal(t, tt.partial, res.Text, "what arrived before the failure is returned")
			require.Equal(t, tt.partial, col.text())
		})
	}
}

func TestNetworkError(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := llm.New(llm.Config{BaseURL: "http://" + addr + "/v1", Model: "m"}, &http.Client{Transport: tr})
	_, err = c.Stream(testCtx(t), ask("x"), func(llm.Chunk) error { return nil })
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, llm.KindNetwork, e.Kind)
	require.Zero(t, e.Status)
	require.True(t, e.Retryable())
}

// TestEndpointMisbehaviour covers answers the fakemodel cannot script: an
// error event inside a 200 stream and a chunk that is not JSON.
func TestEndpointMisbehaviour(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		body      string
		kind      llm.Kind
		retryable bool
	}{
		{name: "error event mid-stream", kind: llm.KindServer, retryable: true,
			body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"error\": {\"message\": \"overloaded\", \"type\": \"server_error\"}}\n\n"},
		{name: "rate limit event mid-stream", kind: llm.KindRateLimited, retryable: true,
			body: "data: {\"error\": {\"message\": \"slow down\", \"code\": \"rate_limit_exceeded\"}}\n\n"},
		{name: "chunk that is not JSON", kind: llm.KindBadResponse, retryable: true,
			body: "data: {\"choices\": [\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(tt.body))
			}))
			defer ts.Close()
			c := llm.New(llm.Config{BaseURL: ts.URL + "/v1", Model: "m"}, ts.Client())
			_, err := c.Stream(testCtx(t), ask("x"), func(llm.Chunk) error { return nil })
			var e *llm.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tt.kind, e.Kind, e.Error())
			require.Equal(t, tt.retryable, e.Retryable())
		})
	}
}

func TestUnconfigured(t *testing.T) {
	t.Parallel()
	c := llm.New(llm.Config{}, nil)
	_, err := c.Stream(testCtx(t), ask("x"), func(llm.Chunk) error { return nil })
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, llm.KindUnavailable, e.Kind)
	require.False(t, e.Retryable())
	require.Contains(t, e.Message, "OPENAI_API_KEY")
	require.Contains(t, e.Message, "OPENAI_BASE_URL")
	require.Equal(t, llm.DefaultModel, c.Model())
}

// TestCancelClosesStream checks that cancelling the caller's context closes
// the HTTP stream at once: the fake server records the disconnect.
func TestCancelClosesStream(t *testing.T) {
	t.Parallel()
	errStop := errors.New("stop requested")
	tests := []struct {
		name  string
		reply string
		// cancelOn says when the test cancels: "headers" once the server
		// sent them, "chunk" from inside onChunk.
		cancelOn string
		// onChunkErr is returned by onChunk instead of cancelling.
		onChunkErr error
	}{
		{name: "while the model hangs after headers", reply: `{"fault": "hang"}`, cancelOn: "headers"},
		{name: "before the first token", reply: `{"text": "abc", "firstTokenDelay": "1h"}`, cancelOn: "headers"},
		{name: "mid-stream", reply: `{"text": "abcdef", "chunkSize": 1, "chunkDelay": "1h"}`, cancelOn: "chunk"},
		{name: "onChunk fails", reply: `{"text": "abcdef", "chunkSize": 1, "chunkDelay": "1h"}`, onChunkErr: errStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := setup(t, `{"rules": [{"reply": `+tt.reply+`}]}`)
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			var cancelledAt time.Time
			onChunk := func(llm.Chunk) error {
				if cancelledAt.IsZero() {
					cancelledAt = time.Now()
					if tt.onChunkErr != nil {
						return tt.onChunkErr
					}
					cancel()
				}
				return nil
			}
			done := make(chan error, 1)
			go func() {
				_, err := c.Stream(ctx, ask("x"), onChunk)
				done <- err
			}()
			if tt.cancelOn == "headers" {
				_, err := srv.Await(testCtx(t), func(r []fakemodel.RecordedRequest) bool {
					return len(r) == 1 && r[0].HeadersAt != nil
				})
				require.NoError(t, err)
				cancelledAt = time.Now()
				cancel()
			}
			err := <-done

			if tt.onChunkErr != nil {
				require.ErrorIs(t, err, tt.onChunkErr, "onChunk's error is returned unchanged")
			} else {
				require.ErrorIs(t, err, context.Canceled)
				var e *llm.Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, llm.KindCanceled, e.Kind)
				require.False(t, e.Retryable())
			}
			reqs, err := srv.Await(testCtx(t), func(r []fakemodel.RecordedRequest) bool {
				return r[0].ClientDisconnectedAt != nil
			})
			require.NoError(t, err, "the server saw the client leave")
			gone := *reqs[0].ClientDisconnectedAt
			require.False(t, gone.Before(cancelledAt.Add(-time.Millisecond)))
			require.WithinDuration(t, cancelledAt, gone, 500*time.Millisecond, "closed at once, not at the next chunk")
			require.Nil(t, reqs[0].FinishedAt)
		})
	}
}

func TestDeadlines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ctxLimit  time.Duration
		cfgLimit  time.Duration
		wantLimit string
	}{
		// The caller's deadline was set before the call began, so the time
		// left is a little under it: limits are named rounded to seconds
		// (a sub-second one, in milliseconds, would read 149ms).
		{name: "caller's deadline", ctxLimit: 2 * time.Second, wantLimit: "2 seconds"},
		{name: "client's timeout", cfgLimit: 120 * time.Millisecond, wantLimit: "120ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, baseURL, hc := startFake(t, `{"rules": [{"reply": {"fault": "hang"}}]}`)
			ctx := testCtx(t)
			if tt.ctxLimit > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxLimit)
				defer cancel()
			}
			c := llm.New(llm.Config{BaseURL: baseURL, Model: "GPT Test", Timeout: tt.cfgLimit}, hc)
			_, err := c.Stream(ctx, ask("x"), func(llm.Chunk) error { return nil })
			require.ErrorIs(t, err, context.DeadlineExceeded)
			var e *llm.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, llm.KindTimeout, e.Kind)
			require.False(t, e.Retryable(), "a call past its limit is reported, not retried")
			require.Equal(t, "GPT Test did not answer within "+tt.wantLimit+", so I stopped waiting. Ask again, or try a narrower question.", e.Message)
			_, err = srv.Await(testCtx(t), func(r []fakemodel.RecordedRequest) bool { return r[0].ClientDisconnectedAt != nil })
			require.NoError(t, err, "the deadline closed the stream")
		})
	}
}

func TestConnectionIsReused(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, `{"rules": [{"reply": {"text": "ok"}}]}`)
	for range 3 {
		_, err := c.Stream(testCtx(t), ask("x"), func(llm.Chunk) error { return nil })
		require.NoError(t, err)
	}
	reqs := srv.Requests()
	require.Equal(t, reqs[0].RemoteAddr, reqs[1].RemoteAddr, "a finished stream leaves its connection reusable")
	require.Equal(t, reqs[0].RemoteAddr, reqs[2].RemoteAddr)
}

// The model's bytes are made storable: NULs leave the text (each delta and
// the whole alike), a NUL in the arguments becomes the escape \u0000 so the
// tool can name the field, and a tool name or id loses its NULs.
func TestStreamCleansTheModelsBytes(t *testing.T) {
	t.Parallel()
	_, c := setup(t, `{"rules": [{"reply": {"text": "He\u0000llo\u0000", "chunkSize": 2, "toolCalls": [
	  {"id": "call\u00001", "name": "hub_\u0000list", "rawArguments": "{\"q\": \"a\u0000b\"}"}]}}]}`)
	var col collector
	res, err := c.Stream(testCtx(t), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}, col.onChunk)
	require.NoError(t, err)
	require.Equal(t, "Hello", res.Text)
	require.Equal(t, "Hello", col.text())
	require.Len(t, res.ToolCalls, 1)
	require.Equal(t, llm.ToolCall{ID: "call1", Name: "hub_list", Arguments: `{"q": "a\u0000b"}`}, res.ToolCalls[0])
}
