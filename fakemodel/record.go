package fakemodel

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// RecordedRequest is what the server saw of one chat completion request and
// how it answered, so tests can assert on what Hub sent (messages, tools
// offered) and on timing (first byte, finish, the client leaving early).
type RecordedRequest struct {
	// Index counts requests from 0 since the server started or was Reset.
	Index      int       `json:"index"`
	ReceivedAt time.Time `json:"receivedAt"`
	// RemoteAddr is the client's address: two requests from the same
	// address came over one kept-alive connection.
	RemoteAddr string `json:"remoteAddr"`
	// BearerToken is the key the client sent (its Authorization header
	// without "Bearer "), so a test can tell which endpoint key a call
	// used. The fake is a test server: it holds no real keys.
	BearerToken string `json:"bearerToken,omitempty"`
	// Body is the request body exactly as sent.
	Body json.RawMessage `json:"body"`
	// Model, Stream, IncludeUsage, Messages and Tools are read from Body.
	Model string `json:"model"`
	// ReasoningEffort is the request's reasoning_effort ("" when none
	// was sent).
	ReasoningEffort string    `json:"reasoningEffort,omitempty"`
	Stream          bool      `json:"stream"`
	IncludeUsage    bool      `json:"includeUsage"`
	Messages        []Message `json:"messages"`
	// Tools are the names of the tools offered, in order.
	Tools []string `json:"tools"`
	// Rule is the label of the rule that answered (`rule 2 "create a
	// task"`), empty when none matched; RuleNumber is its 1-based position,
	// 0 when none matched.
	Rule       string `json:"rule"`
	RuleNumber int    `json:"ruleNumber"`
	// Status is the HTTP status sent; Fault the fault injected, if any.
	Status int    `json:"status"`
	Fault  string `json:"fault,omitempty"`
	// Error says why the request could not be answered as scripted (an
	// unreadable body, a template that failed on this request's data).
	Error string `json:"error,omitempty"`
	// HeadersAt: response headers flushed. FirstByteAt: the first data
	// chunk (or the whole body when not streaming) written. FinishedAt: the
	// response ended, including a deliberately cut one.
	HeadersAt   *time.Time `json:"headersAt,omitempty"`
	FirstByteAt *time.Time `json:"firstByteAt,omitempty"`
	FinishedAt  *time.Time `json:"finishedAt,omitempty"`
	// ClientDisconnectedAt is set when the client closed the connection
	// before the response ended (Stop, a deadline, a cancelled context).
	ClientDisconnectedAt *time.Time `json:"clientDisconnectedAt,omitempty"`
}

// Message is one message of a recorded request, with its content as text.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	// Parts are the message's image and file parts, in order (its text
	// parts are in Content).
	Parts []Part `json:"parts,omitempty"`
}

// Part is an image or file part of a recorded message: its type
// ("image_url" or "file"), the file name a file part carries, the media
// type of its data URL and how many bytes that URL decodes to.
type Part struct {
	Type      string `json:"type"`
	Filename  string `json:"filename,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	Bytes     int    `json:"bytes"`
}

// ToolCall is a tool call inside a recorded assistant message.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatRequest is the part of a chat completions request the server reads.
type chatRequest struct {
	Model           string `json:"model"`
	ReasoningEffort string `json:"reasoning_effort"`
	Messages        []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// contentText reads a message's content, which is a string, null, or an
// array of parts of which the text parts count.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// contentParts reads a content array's image and file parts.
func contentParts(raw json.RawMessage) []Part {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
		File *struct {
			Filename string `json:"filename"`
			FileData string `json:"file_data"`
		} `json:"file"`
	}
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []Part
	for _, p := range parts {
		switch {
		case p.Type == "image_url" && p.ImageURL != nil:
			mt, n := dataURL(p.ImageURL.URL)
			out = append(out, Part{Type: p.Type, MediaType: mt, Bytes: n})
		case p.Type == "file" && p.File != nil:
			mt, n := dataURL(p.File.FileData)
			out = append(out, Part{Type: p.Type, Filename: p.File.Filename, MediaType: mt, Bytes: n})
		case p.Type != "text":
			out = append(out, Part{Type: p.Type})
		}
	}
	return out
}

// dataURL reads a base64 data URL's media type and decoded size.
func dataURL(u string) (string, int) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", 0
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", 0
	}
	mt, _, _ := strings.Cut(meta, ";")
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return mt, 0
	}
	return mt, len(b)
}

// fill copies the parsed request into the recording.
func (rec *RecordedRequest) fill(req chatRequest) {
	rec.Model, rec.Stream, rec.ReasoningEffort = req.Model, req.Stream, req.ReasoningEffort
	rec.IncludeUsage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	for _, m := range req.Messages {
		msg := Message{Role: m.Role, Content: contentText(m.Content), ToolCallID: m.ToolCallID, Parts: contentParts(m.Content)}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		rec.Messages = append(rec.Messages, msg)
	}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
}
