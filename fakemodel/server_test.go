package fakemodel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
)

func TestStreamChunking(t *testing.T) {
	t.Parallel()
	_, baseURL, hc := start(t, `{"rules": [
		{"name": "text", "match": {"lastUser": "^text$"}, "reply": {"text": "Hello, streaming world!", "chunkSize": 5, "usage": {"input": 11, "output": 7}}},
		{"name": "tools", "match": {"lastUser": "^tools$"}, "reply": {"chunkSize": 4, "toolCalls": [
			{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Buy milk"}]}},
			{"id": "call_fixed", "name": "hub_list_tasks", "rawArguments": "{}"}
		]}}
	]}`)
	tests := []struct {
		name         string
		say          string
		includeUsage bool
		check        func(t *testing.T, s sse)
	}{
		{
			name: "text in pieces of chunkSize, role first", say: "text", includeUsage: true,
			check: func(t *testing.T, s sse) {
				var pieces []string
				for _, c := range s.chunks[:len(s.chunks)-2] {
					pieces = append(pieces, *c.Choices[0].Delta.Content)
				}
				require.Equal(t, []string{"Hello", ", str", "eamin", "g wor", "ld!"}, pieces)
				require.Equal(t, "assistant", s.chunks[0].Choices[0].Delta.Role)
				require.Equal(t, "stop", s.finishReason())
				last := s.chunks[len(s.chunks)-1]
				require.Empty(t, last.Choices, "the usage chunk has no choices")
				require.NotNil(t, last.Usage)
				require.Equal(t, 11, last.Usage.PromptTokens)
				require.Equal(t, 7, last.Usage.CompletionTokens)
			},
		},
		{
			name: "no usage chunk unless asked", say: "text", includeUsage: false,
			check: func(t *testing.T, s sse) {
				for _, c := range s.chunks {
					require.Nil(t, c.Usage)
				}
				require.Equal(t, "Hello, streaming world!", s.text())
			},
		},
		{
			name: "tool calls: name first, arguments in pieces", say: "tools", includeUsage: true,
			check: func(t *testing.T, s sse) {
				first := s.chunks[0].Choices[0].Delta.ToolCalls[0]
				require.Equal(t, "hub_create_tasks", first.Function.Name)
				require.Regexp(t, `^call_\d+_0$`, first.ID, "ids are unique per request and call")
				require.Equal(t, "function", first.Type)
				require.Empty(t, first.Function.Arguments)
				args := `{"tasks":[{"title":"Buy milk"}]}`
				for i, c := range s.chunks[1:8] {
					d := c.Choices[0].Delta.ToolCalls[0]
					require.Empty(t, d.Function.Name, "only the first delta names the tool")
					require.Equal(t, args[i*4:min(len(args), i*4+4)], d.Function.Arguments)
				}
				require.Equal(t, []assembledCall{
					{ID: first.ID, Name: "hub_create_tasks", Arguments: args},
					{ID: "call_fixed", Name: "hub_list_tasks", Arguments: "{}"},
				}, s.calls())
				require.Equal(t, "tool_calls", s.finishReason())
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, waitCtx(t), hc, baseURL, chatBody(true, tt.includeUsage, nil, user(tt.say)))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			require.NotEmpty(t, resp.Header.Get("X-Fakemodel"))
			s := readSSE(t, resp.Body)
			require.NoError(t, s.err)
			require.True(t, s.done, "the stream ends with [DONE]")
			tt.check(t, s)
		})
	}
}

func TestNonStreaming(t *testing.T) {
	t.Parallel()
	_, baseURL, hc := start(t, `{"rules": [{"reply": {"text": "Hi", "usage": {"input": 3, "output": 1},
		"toolCalls": [{"name": "hub_list_tasks", "arguments": {"status": "open"}}]}}]}`)
	resp := post(t, waitCtx(t), hc, baseURL, chatBody(false, false, nil, user("hello")))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role      string `json:"role"`
				Content   string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		} `json:"usage"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "chat.completion", body.Object)
	m := body.Choices[0].Message
	require.Equal(t, "assistant", m.Role)
	require.Equal(t, "Hi", m.Content)
	require.Equal(t, "hub_list_tasks", m.ToolCalls[0].Function.Name)
	require.JSONEq(t, `{"status":"open"}`, m.ToolCalls[0].Function.Arguments)
	require.Equal(t, "tool_calls", body.Choices[0].FinishReason)
	require.Equal(t, 4, body.Usage.TotalTokens)
}

func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reply  string
		stream bool
		check  func(t *testing.T, resp *http.Response, rec fakemodel.RecordedRequest)
	}{
		{
			name: "rate_limit is 429 with Retry-After", stream: true,
			reply: `{"fault": {"kind": "rate_limit", "retryAfter": 7}}`,
			check: func(t *testing.T, resp *http.Response, rec fakemodel.RecordedRequest) {
				require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
				require.Equal(t, "7", resp.Header.Get("Retry-After"))
				var body struct {
					Error struct{ Code, Message string }
				}
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
				require.Equal(t, "rate_limit_exceeded", body.Error.Code)
				require.Equal(t, "rate_limit", rec.Fault)
				require.Equal(t, http.StatusTooManyRequests, rec.Status)
			},
		},
		{
			name: "rate_limit defaults to Retry-After 1", stream: true,
			reply: `{"fault": "rate_limit"}`,
			check: func(t *testing.T, resp *http.Response, _ fakemodel.RecordedRequest) {
				require.Equal(t, "1", resp.Header.Get("Retry-After"))
			},
		},
		{
			name: "server_error is 500", stream: true,
			reply: `{"fault": "server_error"}`,
			check: func(t *testing.T, resp *http.Response, _ fakemodel.RecordedRequest) {
				require.Equal(t, http.StatusInternalServerError, resp.StatusCode)
				require.Empty(t, resp.Header.Get("Retry-After"))
			},
		},
		{
			name: "http_error sends the status and message", stream: false,
			reply: `{"fault": {"kind": "http_error", "status": 409, "message": "busy", "retryAfter": "Wed, 21 Oct 2099 07:28:00 GMT"}}`,
			check: func(t *testing.T, resp *http.Response, _ fakemodel.RecordedRequest) {
				require.Equal(t, http.StatusConflict, resp.StatusCode)
				require.Equal(t, "Wed, 21 Oct 2099 07:28:00 GMT", resp.Header.Get("Retry-After"))
				var body struct{ Error struct{ Message string } }
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
				require.Equal(t, "busy", body.Error.Message)
			},
		},
		{
			name: "cut drops the connection mid-stream", stream: true,
			reply: `{"text": "one two three four", "chunkSize": 4, "fault": {"kind": "cut", "afterChunks": 2}}`,
			check: func(t *testing.T, resp *http.Response, rec fakemodel.RecordedRequest) {
				s := readSSE(t, resp.Body)
				require.ErrorIs(t, s.err, io.ErrUnexpectedEOF)
				require.False(t, s.done)
				require.Len(t, s.chunks, 2)
				require.Equal(t, "one two ", s.text())
				require.NotNil(t, rec.FinishedAt)
				require.Nil(t, rec.ClientDisconnectedAt)
			},
		},
		{
			name: "clean cut ends the body without [DONE]", stream: true,
			reply: `{"text": "one two three four", "chunkSize": 4, "fault": {"kind": "cut", "clean": true}}`,
			check: func(t *testing.T, resp *http.Response, _ fakemodel.RecordedRequest) {
				s := readSSE(t, resp.Body)
				require.NoError(t, s.err)
				require.False(t, s.done)
				require.Len(t, s.chunks, 2, "by default half of the five content chunks")
				require.Empty(t, s.finishReason())
			},
		},
		{
			name: "cut of a non-streamed body", stream: false,
			reply: `{"text": "a longer answer that is cut", "fault": "cut"}`,
			check: func(t *testing.T, resp *http.Response, _ fakemodel.RecordedRequest) {
				data, err := io.ReadAll(resp.Body)
				require.ErrorIs(t, err, io.ErrUnexpectedEOF)
				require.False(t, json.Valid(data))
			},
		},
		{
			name: "malformed_tool_args", stream: true,
			reply: `{"chunkSize": 5, "fault": "malformed_tool_args", "toolCalls": [{"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "x"}]}}]}`,
			check: func(t *testing.T, resp *http.Response, _ fakemodel.RecordedRequest) {
				s := readSSE(t, resp.Body)
				require.True(t, s.done)
				args := s.calls()[0].Arguments
				require.Equal(t, `{"tasks":[{"title":"x"}]`, args)
				require.False(t, json.Valid([]byte(args)))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, baseURL, hc := start(t, `{"rules": [{"name": "fault", "reply": `+tt.reply+`}]}`)
			resp := post(t, waitCtx(t), hc, baseURL, chatBody(tt.stream, true, nil, user("hi")))
			reqs, err := srv.Await(waitCtx(t), func(r []fakemodel.RecordedRequest) bool {
				return len(r) == 1 && r[0].FinishedAt != nil
			})
			require.NoError(t, err)
			tt.check(t, resp, reqs[0])
		})
	}
}

func TestHangAndDisconnect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reply  string
		stream bool
		// readFirst reads one event before the client leaves.
		readFirst bool
	}{
		{name: "hang, streaming", reply: `{"fault": "hang"}`, stream: true},
		{name: "hang, not streaming", reply: `{"fault": "hang"}`, stream: false},
		{name: "slow stream left mid-way", reply: `{"text": "abcdef", "chunkSize": 1, "chunkDelay": "1h"}`, stream: true, readFirst: true},
		{name: "slow first token", reply: `{"text": "abc", "firstTokenDelay": "1h"}`, stream: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, baseURL, hc := start(t, `{"rules": [{"reply": `+tt.reply+`}]}`)
			ctx, cancel := context.WithCancel(waitCtx(t))
			resp := post(t, ctx, hc, baseURL, chatBody(tt.stream, false, nil, user("hi")))
			require.Equal(t, http.StatusOK, resp.StatusCode, "headers arrive before the body")
			if tt.readFirst {
				line, err := bufio.NewReader(resp.Body).ReadString('\n')
				require.NoError(t, err)
				require.True(t, strings.HasPrefix(line, "data: "))
			}
			left := time.Now()
			cancel()
			reqs, err := srv.Await(waitCtx(t), func(r []fakemodel.RecordedRequest) bool {
				return r[0].ClientDisconnectedAt != nil
			})
			require.NoError(t, err)
			rec := reqs[0]
			require.NotNil(t, rec.HeadersAt)
			require.Nil(t, rec.FinishedAt)
			require.WithinDuration(t, left, *rec.ClientDisconnectedAt, time.Second)
			require.Equal(t, tt.readFirst, rec.FirstByteAt != nil)
		})
	}
}

func TestRecording(t *testing.T) {
	t.Parallel()
	srv, baseURL, hc := start(t, `{"rules": [{"name": "hello", "match": {"lastUser": "hello"}, "reply": {"text": "hi"}}]}`)
	body := chatBody(true, true, []string{"hub_list_tasks", "hub_create_tasks"},
		msg{"role": "system", "content": "be brief"},
		user("hello there"),
		msg{"role": "assistant", "tool_calls": []msg{{"id": "c1", "type": "function", "function": msg{"name": "hub_list_tasks", "arguments": "{}"}}}},
		toolResult("c1", `{"summary": "no tasks"}`),
		msg{"role": "user", "content": []msg{{"type": "text", "text": "hello "}, {"type": "text", "text": "again"}}},
	)
	resp := post(t, waitCtx(t), hc, baseURL, body)
	require.True(t, readSSE(t, resp.Body).done)
	post(t, waitCtx(t), hc, baseURL, chatBody(false, false, nil, user("unmatched")))

	var recs []fakemodel.RecordedRequest
	getJSON(t, hc, root(baseURL)+"/fake/requests", &recs)
	require.Len(t, recs, 2)
	r := recs[0]
	require.Equal(t, 0, r.Index)
	require.Equal(t, "test-model", r.Model)
	require.True(t, r.Stream)
	require.True(t, r.IncludeUsage)
	require.Equal(t, []string{"hub_list_tasks", "hub_create_tasks"}, r.Tools)
	require.Equal(t, []fakemodel.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "hello there"},
		{Role: "assistant", ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "hub_list_tasks", Arguments: "{}"}}},
		{Role: "tool", Content: `{"summary": "no tasks"}`, ToolCallID: "c1"},
		{Role: "user", Content: "hello again"},
	}, r.Messages)
	sent, err := json.Marshal(body)
	require.NoError(t, err)
	require.JSONEq(t, string(sent), string(r.Body))
	require.Equal(t, `rule 1 "hello"`, r.Rule)
	require.Equal(t, 1, r.RuleNumber)
	require.Equal(t, http.StatusOK, r.Status)
	require.False(t, r.FirstByteAt.Before(*r.HeadersAt))
	require.False(t, r.FinishedAt.Before(*r.FirstByteAt))
	require.Nil(t, r.ClientDisconnectedAt)

	require.Equal(t, 1, recs[1].Index)
	require.Zero(t, recs[1].RuleNumber, "no rule matched")
	require.Empty(t, recs[1].Rule)

	req, err := http.NewRequest(http.MethodDelete, root(baseURL)+"/fake/requests", nil)
	require.NoError(t, err)
	del, err := hc.Do(req)
	require.NoError(t, err)
	require.NoError(t, del.Body.Close())
	require.Equal(t, http.StatusNoContent, del.StatusCode)
	require.Empty(t, srv.Requests())
}

func TestBadRequestBodyIsRecorded(t *testing.T) {
	t.Parallel()
	srv, baseURL, hc := start(t, `{"rules": []}`)
	resp, err := hc.Post(baseURL+"/chat/completions", "application/json", strings.NewReader("{not json"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	recs := srv.Requests()
	require.Len(t, recs, 1)
	require.Contains(t, recs[0].Error, "unreadable request body")
	require.JSONEq(t, `"{not json"`, string(recs[0].Body))
}

func TestDelays(t *testing.T) {
	t.Parallel()
	srv, baseURL, hc := start(t, `{"rules": [{"reply": {"text": "abc", "chunkSize": 1, "firstTokenDelay": "40ms", "chunkDelay": "20ms"}}]}`)
	resp := post(t, waitCtx(t), hc, baseURL, chatBody(true, false, nil, user("hi")))
	require.True(t, readSSE(t, resp.Body).done)
	reqs, err := srv.Await(waitCtx(t), func(r []fakemodel.RecordedRequest) bool { return r[0].FinishedAt != nil })
	require.NoError(t, err)
	r := reqs[0]
	require.GreaterOrEqual(t, r.FirstByteAt.Sub(*r.HeadersAt), 40*time.Millisecond)
	require.GreaterOrEqual(t, r.FinishedAt.Sub(*r.FirstByteAt), 2*20*time.Millisecond, "two delays between three chunks")
}

func TestTimes(t *testing.T) {
	t.Parallel()
	srv, baseURL, hc := start(t, `{"rules": [
		{"name": "fail twice", "times": 2, "reply": {"fault": "server_error"}},
		{"name": "then answer", "reply": {"text": "ok"}}
	]}`)
	statuses := func(n int) []int {
		var out []int
		for range n {
			resp := post(t, waitCtx(t), hc, baseURL, chatBody(false, false, nil, user("hi")))
			_, _ = io.Copy(io.Discard, resp.Body)
			out = append(out, resp.StatusCode)
		}
		return out
	}
	require.Equal(t, []int{500, 500, 200, 200}, statuses(4))
	var rules []int
	for _, r := range srv.Requests() {
		rules = append(rules, r.RuleNumber)
	}
	require.Equal(t, []int{1, 1, 2, 2}, rules)

	srv.Reset()
	require.Equal(t, []int{500, 500, 200}, statuses(3), "Reset restarts the counts")
	srv.SetScript(fakemodel.MustParseScript(`{"rules": [{"times": 1, "reply": {"fault": "server_error"}}, {"reply": {"text": "ok"}}]}`))
	require.Equal(t, []int{500, 200}, statuses(2), "SetScript restarts the counts")
}

func TestMatchConditions(t *testing.T) {
	t.Parallel()
	_, baseURL, hc := start(t, `{"rules": [
		{"name": "after tool", "match": {"afterToolResult": true}, "reply": {"text": "after tool"}},
		{"name": "create offered", "match": {"offered": "hub_create_tasks", "lastUser": "create"}, "reply": {"text": "create offered"}},
		{"name": "tools off", "match": {"toolsOffered": false, "lastUser": "create"}, "reply": {"text": "tools off"}},
		{"name": "tools on", "match": {"toolsOffered": true}, "reply": {"text": "tools on"}}
	]}`)
	tests := []struct {
		name     string
		tools    []string
		messages []msg
		want     string
	}{
		{"last message is a tool result", []string{"hub_create_tasks"}, []msg{user("create"), toolResult("c", "{}")}, "after tool"},
		{"the tool is offered", []string{"hub_list_tasks", "hub_create_tasks"}, []msg{user("create")}, "create offered"},
		{"another tool is offered", []string{"hub_list_tasks"}, []msg{user("create")}, "tools on"},
		{"no tools offered", nil, []msg{user("create")}, "tools off"},
		{"nothing matches", nil, []msg{user("something else")}, `fakemodel (a scripted test double, not a real model) has no answer in its script for: "something else"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, waitCtx(t), hc, baseURL, chatBody(true, false, tt.tools, tt.messages...))
			require.Equal(t, tt.want, readSSE(t, resp.Body).text())
		})
	}
}

// TestMatchToolResults: toolResults counts the tool results after the last
// user message, so a script can answer each model call of a turn
// differently however many turns run at once.
func TestMatchToolResults(t *testing.T) {
	t.Parallel()
	_, baseURL, hc := start(t, `{"rules": [
		{"match": {"toolResults": 0}, "reply": {"text": "first"}},
		{"match": {"toolResults": 1}, "reply": {"text": "second"}},
		{"reply": {"text": "later"}}
	]}`)
	assistant := msg{"role": "assistant", "content": "ok"}
	tests := []struct {
		name     string
		messages []msg
		want     string
	}{
		{"no tool result yet", []msg{user("go")}, "first"},
		{"one", []msg{user("go"), toolResult("a", "{}")}, "second"},
		{"two", []msg{user("go"), toolResult("a", "{}"), toolResult("b", "{}")}, "later"},
		{"earlier turns' results do not count", []msg{user("go"), toolResult("a", "{}"), toolResult("b", "{}"), assistant, user("again"), toolResult("c", "{}")}, "second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, waitCtx(t), hc, baseURL, chatBody(true, false, nil, tt.messages...))
			require.Equal(t, tt.want, readSSE(t, resp.Body).text())
		})
	}
}

func TestScriptRoutes(t *testing.T) {
	t.Parallel()
	_, baseURL, hc := start(t, `{"rules": [{"reply": {"text": "old"}}]}`)
	put := func(script string) (*http.Response, string) {
		req, err := http.NewRequest(http.MethodPut, root(baseURL)+"/fake/script", strings.NewReader(script))
		require.NoError(t, err)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(body)
	}

	resp, body := put(`{"rules": [{"name": "broken", "match": {"lastUser": "("}}]}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, body, `rule 1 \"broken\": match.lastUser`)

	newScript := `{"name": "new", "rules": [{"reply": {"text": "new"}}]}`
	resp, _ = put(newScript)
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	chat := post(t, waitCtx(t), hc, baseURL, chatBody(true, false, nil, user("hi")))
	require.Equal(t, "new", readSSE(t, chat.Body).text())

	var got json.RawMessage
	getJSON(t, hc, root(baseURL)+"/fake/script", &got)
	require.JSONEq(t, newScript, string(got))
}

func TestModelsAndRoutes(t *testing.T) {
	t.Parallel()
	_, baseURL, hc := start(t, `{"rules": []}`)
	require.True(t, strings.HasPrefix(baseURL, "http://127.0.0.1:"))
	require.True(t, strings.HasSuffix(baseURL, "/v1"))

	var models struct {
		Data []struct {
			ID          string `json:"id"`
			Description string `json:"description"`
		} `json:"data"`
	}
	getJSON(t, hc, baseURL+"/models", &models)
	require.Equal(t, fakemodel.ModelID, models.Data[0].ID)
	require.Contains(t, models.Data[0].Description, "test double")

	resp, err := hc.Get(root(baseURL) + "/nowhere")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestStartBindsLoopbackOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr    string
		wantErr string
		prefix  string
	}{
		{addr: "0.0.0.0:0", wantErr: "loopback only"},
		{addr: "192.0.2.1:0", wantErr: "loopback only"},
		{addr: "example.com:0", wantErr: "loopback only"},
		{addr: "nonsense", wantErr: "address"},
		{addr: ":0", prefix: "http://127.0.0.1:"},
		{addr: "", prefix: "http://127.0.0.1:"},
		{addr: "localhost:0", prefix: "http://"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			s := fakemodel.New(fakemodel.Script{})
			defer func() { require.NoError(t, s.Close()) }()
			baseURL, err := s.Start(tt.addr)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(baseURL, tt.prefix), baseURL)
			_, err = s.Start(tt.addr)
			require.Error(t, err, "a server starts once")
		})
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(waitCtx(t))
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := fakemodel.Run(ctx, "127.0.0.1:0", "", pw)
		_ = pw.CloseWithError(errors.New("Run returned"))
		done <- err
	}()

	lines := bufio.NewScanner(pr)
	var baseURL string
	for baseURL == "" && lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "OPENAI_BASE_URL="); ok {
			baseURL = url
		}
	}
	require.NotEmpty(t, baseURL, "Run prints OPENAI_BASE_URL=...")

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp := post(t, ctx, &http.Client{Transport: tr}, baseURL, chatBody(true, false, nil, user("hello")))
	require.Contains(t, readSSE(t, resp.Body).text(), "scripted stand-in", "Run serves the default script")

	cancel()
	require.NoError(t, <-done)
}

func TestRunRejectsBadScript(t *testing.T) {
	t.Parallel()
	err := fakemodel.Run(context.Background(), "", "/nonexistent/script.json", io.Discard)
	require.ErrorContains(t, err, "load script")
}
