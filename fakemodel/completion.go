package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// handleChat answers POST /v1/chat/completions as the script says.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		writeError(w, http.StatusServiceUnavailable, "closing", "fakemodel is shutting down", "")
		return
	}
	defer s.active.Done()

	rec := &RecordedRequest{ReceivedAt: time.Now(), RemoteAddr: r.RemoteAddr,
		BearerToken: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")}
	x := &responder{s: s, w: w, rc: http.NewResponseController(w), ctx: r.Context(), rec: rec}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var req chatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if json.Valid(body) {
		rec.Body = body
	} else {
		rec.Body, _ = json.Marshal(string(body)) // keep what was sent, readable
	}
	if err != nil {
		rec.Error = "unreadable request body: " + err.Error()
		s.record(rec)
		x.fail(http.StatusBadRequest, "invalid_request_error", "fakemodel could not read the request: "+err.Error(), "")
		return
	}
	rec.fill(req)
	s.record(rec)

	c := conversationOf(rec)
	promptChars := 0
	for _, m := range rec.Messages {
		promptChars += len(m.Content)
	}
	var a answer
	if rl, groups := s.choose(rec); rl == nil {
		a = noAnswer(c, promptChars)
	} else if a, err = rl.render(c, groups, rec.Index, promptChars); err != nil {
		s.update(rec, func(r *RecordedRequest) { r.Error = err.Error() })
		x.fail(http.StatusInternalServerError, "server_error", "fakemodel script error: "+err.Error(), "")
		return
	}
	if a.fault.Kind != "" {
		s.update(rec, func(r *RecordedRequest) { r.Fault = a.fault.Kind })
	}
	model := req.Model
	if model == "" {
		model = ModelID
	}
	x.id, x.model = fmt.Sprintf("chatcmpl-fake-%d", rec.Index), model

	switch a.fault.Kind {
	case FaultRateLimit, FaultServerError, FaultHTTPError:
		if !x.wait(a.firstTokenDelay) {
			return
		}
		status, code := http.StatusTooManyRequests, "rate_limit_exceeded"
		switch a.fault.Kind {
		case FaultServerError:
			status, code = http.StatusInternalServerError, "server_error"
		case FaultHTTPError:
			status, code = a.fault.Status, "scripted_error"
		}
		msg := a.fault.Message
		if msg == "" {
			msg = fmt.Sprintf("fakemodel: scripted %s (%s)", a.fault.Kind, rec.Rule)
		}
		x.fail(status, code, msg, a.fault.RetryAfter)
	case FaultHang:
		ct := "application/json"
		if req.Stream {
			ct = "text/event-stream"
		}
		if x.headers(http.StatusOK, ct) {
			x.hang()
		}
	default:
		if req.Stream {
			x.stream(a, rec.IncludeUsage)
		} else {
			x.whole(a)
		}
	}
}

// record adds a request to the recordings.
func (s *Server) record(rec *RecordedRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Index = len(s.reqs)
	s.reqs = append(s.reqs, rec)
	s.notifyLocked()
}

// responder writes one response and records its timing.
type responder struct {
	s         *Server
	w         http.ResponseWriter
	rc        *http.ResponseController
	ctx       context.Context
	rec       *RecordedRequest
	id, model string
	sentFirst bool
}

// stamp records the current time into one of the recording's time fields.
func (x *responder) stamp(field func(*RecordedRequest) **time.Time) {
	now := time.Now()
	x.s.update(x.rec, func(r *RecordedRequest) {
		if p := field(r); *p == nil {
			*p = &now
		}
	})
}

// disconnected records that the client left before the response ended; a
// connection dropped by Close is not the client leaving.
func (x *responder) disconnected() {
	select {
	case <-x.s.closing:
		return
	default:
	}
	now := time.Now()
	x.s.update(x.rec, func(r *RecordedRequest) {
		if r.ClientDisconnectedAt == nil && r.FinishedAt == nil {
			r.ClientDisconnectedAt = &now
		}
	})
}

// wait pauses for d; false if the client left or the server is closing,
// which ends the response at once.
func (x *responder) wait(d time.Duration) bool {
	// Checked first so that a gone client is noticed even with no delay.
	select {
	case <-x.ctx.Done():
		x.disconnected()
		return false
	case <-x.s.closing:
		return false
	default:
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-x.ctx.Done():
		x.disconnected()
		return false
	case <-x.s.closing:
		return false
	}
}

// hang keeps the response open until the client leaves or Close.
func (x *responder) hang() {
	select {
	case <-x.ctx.Done():
		x.disconnected()
	case <-x.s.closing:
	}
}

// headers sends the status line and headers at once, as a streaming server
// does before its first token.
func (x *responder) headers(status int, contentType string) bool {
	h := x.w.Header()
	h.Set("Content-Type", contentType)
	if contentType == "text/event-stream" {
		h.Set("Cache-Control", "no-cache")
	}
	x.w.WriteHeader(status)
	x.s.update(x.rec, func(r *RecordedRequest) { r.Status = status })
	if err := x.rc.Flush(); err != nil {
		x.disconnected()
		return false
	}
	x.stamp(func(r *RecordedRequest) **time.Time { return &r.HeadersAt })
	return true
}

// write sends bytes and flushes them; false if the client is gone.
func (x *responder) write(b []byte) bool {
	if _, err := x.w.Write(b); err != nil {
		x.disconnected()
		return false
	}
	if err := x.rc.Flush(); err != nil {
		x.disconnected()
		return false
	}
	if !x.sentFirst {
		x.sentFirst = true
		x.stamp(func(r *RecordedRequest) **time.Time { return &r.FirstByteAt })
	}
	return true
}

func (x *responder) finished() {
	x.stamp(func(r *RecordedRequest) **time.Time { return &r.FinishedAt })
}

// fail writes an error response.
func (x *responder) fail(status int, code, msg, retryAfter string) {
	x.s.update(x.rec, func(r *RecordedRequest) { r.Status = status })
	writeError(x.w, status, code, msg, retryAfter)
	now := time.Now()
	x.s.update(x.rec, func(r *RecordedRequest) { r.HeadersAt, r.FirstByteAt, r.FinishedAt = &now, &now, &now })
}

// cut ends a response mid-way: cleanly (the handler just returns, so HTTP
// framing is intact and only the stream's own end is missing) or by dropping
// the connection, as a dying proxy or network does.
func (x *responder) cut(clean bool) {
	x.finished()
	if !clean {
		panic(http.ErrAbortHandler) // net/http closes the connection quietly
	}
}

// stream writes the answer as server-sent events.
func (x *responder) stream(a answer, includeUsage bool) {
	if !x.headers(http.StatusOK, "text/event-stream") || !x.wait(a.firstTokenDelay) {
		return
	}
	events, content := x.chunks(a, includeUsage)
	send := len(events)
	cutting := a.fault.Kind == FaultCut
	if cutting {
		send = a.fault.AfterChunks
		if send == 0 {
			send = max(1, content/2)
		}
		send = min(send, len(events))
	}
	for i, ev := range events[:send] {
		if i > 0 && !x.wait(a.chunkDelay) {
			return
		}
		b, _ := json.Marshal(ev) // plain structs always marshal
		if !x.write([]byte("data: " + string(b) + "\n\n")) {
			return
		}
	}
	if cutting {
		x.cut(a.fault.Clean)
		return
	}
	if x.write([]byte("data: [DONE]\n\n")) {
		x.finished()
	}
}

// whole writes the answer as one chat.completion body.
func (x *responder) whole(a answer) {
	if !x.wait(a.firstTokenDelay) {
		return
	}
	msg := wireMessage{Role: "assistant"}
	if a.text != "" || len(a.calls) == 0 {
		msg.Content = &a.text
	}
	for _, c := range a.calls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: c.Arguments}})
	}
	body, _ := json.Marshal(wireCompletion{
		ID: x.id, Object: "chat.completion", Created: x.rec.ReceivedAt.Unix(), Model: x.model,
		Choices: []wireChoice{{Message: &msg, FinishReason: &a.finishReason}},
		Usage:   wireUsageOf(a.usage),
	})
	if !x.headers(http.StatusOK, "application/json") {
		return
	}
	if a.fault.Kind == FaultCut {
		if x.write(body[:len(body)/2]) {
			x.cut(a.fault.Clean)
		}
		return
	}
	if x.write(body) {
		x.finished()
	}
}

// chunks builds the stream's data events: text in pieces (the first also
// carries the role), each tool call as a first delta with id and name and
// then its arguments in pieces, a finish chunk, and a usage chunk when the
// client asked for one. content counts the events before the finish chunk.
func (x *responder) chunks(a answer, includeUsage bool) (events []wireCompletion, content int) {
	chunk := func(d wireDelta, finish *string) wireCompletion {
		return wireCompletion{
			ID: x.id, Object: "chat.completion.chunk", Created: x.rec.ReceivedAt.Unix(), Model: x.model,
			Choices: []wireChoice{{Delta: &d, FinishReason: finish}},
		}
	}
	role := "assistant"
	takeRole := func() string { r := role; role = ""; return r }
	for _, piece := range splitRunes(a.text, a.chunkSize) {
		events = append(events, chunk(wireDelta{Role: takeRole(), Content: &piece}, nil))
	}
	for i, c := range a.calls {
		events = append(events, chunk(wireDelta{Role: takeRole(), ToolCalls: []wireToolCall{{
			Index: &i, ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name},
		}}}, nil))
		for _, piece := range splitRunes(c.Arguments, a.chunkSize) {
			events = append(events, chunk(wireDelta{ToolCalls: []wireToolCall{{
				Index: &i, Function: wireFunction{Arguments: piece},
			}}}, nil))
		}
	}
	if len(events) == 0 {
		empty := ""
		events = append(events, chunk(wireDelta{Role: takeRole(), Content: &empty}, nil))
	}
	content = len(events)
	events = append(events, chunk(wireDelta{}, &a.finishReason))
	if includeUsage {
		events = append(events, wireCompletion{
			ID: x.id, Object: "chat.completion.chunk", Created: x.rec.ReceivedAt.Unix(), Model: x.model,
			Choices: []wireChoice{}, Usage: wireUsageOf(a.usage),
		})
	}
	return events, content
}

// The wire shapes of chat completions, written here rather than borrowed
// from a client library so the fake checks the client instead of agreeing
// with it by construction.
type (
	wireCompletion struct {
		ID      string       `json:"id"`
		Object  string       `json:"object"`
		Created int64        `json:"created"`
		Model   string       `json:"model"`
		Choices []wireChoice `json:"choices"`
		Usage   *wireUsage   `json:"usage,omitempty"`
	}
	wireChoice struct {
		Index        int          `json:"index"`
		Delta        *wireDelta   `json:"delta,omitempty"`
		Message      *wireMessage `json:"message,omitempty"`
		FinishReason *string      `json:"finish_reason"`
	}
	wireDelta struct {
		Role      string         `json:"role,omitempty"`
		Content   *string        `json:"content,omitempty"`
		ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	}
	wireMessage struct {
		Role      string         `json:"role"`
		Content   *string        `json:"content"`
		ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	}
	wireToolCall struct {
		Index    *int         `json:"index,omitempty"`
		ID       string       `json:"id,omitempty"`
		Type     string       `json:"type,omitempty"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	wireUsage struct {
		PromptTokens        int                `json:"prompt_tokens"`
		CompletionTokens    int                `json:"completion_tokens"`
		TotalTokens         int                `json:"total_tokens"`
		PromptTokensDetails *wirePromptDetails `json:"prompt_tokens_details,omitempty"`
	}
	// wirePromptDetails is OpenAI's breakdown of the prompt: how many of
	// its tokens the provider's prompt cache served.
	wirePromptDetails struct {
		CachedTokens int `json:"cached_tokens"`
	}
)

func wireUsageOf(u usageSpec) *wireUsage {
	w := &wireUsage{PromptTokens: u.Input, CompletionTokens: u.Output, TotalTokens: u.Input + u.Output}
	if u.Cached > 0 {
		w.PromptTokensDetails = &wirePromptDetails{CachedTokens: u.Cached}
	}
	return w
}
