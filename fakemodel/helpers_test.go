package fakemodel_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"hub/fakemodel"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start runs a server on loopback with the given script and returns it, its
// base URL and an HTTP client whose connections are closed after the test.
func start(t *testing.T, script string) (*fakemodel.Server, string, *http.Client) {
	t.Helper()
	return startScript(t, fakemodel.MustParseScript(script))
}

func startScript(t *testing.T, script fakemodel.Script) (*fakemodel.Server, string, *http.Client) {
	t.Helper()
	s := fakemodel.New(script)
	baseURL, err := s.Start("127.0.0.1:0")
	require.NoError(t, err)
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		require.NoError(t, s.Close())
	})
	return s, baseURL, &http.Client{Transport: tr}
}

// waitCtx bounds a wait for something the server must do promptly.
func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type msg = map[string]any

// chatBody builds a chat completions request body.
func chatBody(stream, includeUsage bool, tools []string, messages ...msg) msg {
	b := msg{"model": "test-model", "messages": messages, "stream": stream}
	if includeUsage {
		b["stream_options"] = msg{"include_usage": true}
	}
	if len(tools) > 0 {
		var ts []msg
		for _, name := range tools {
			ts = append(ts, msg{"type": "function", "function": msg{"name": name, "parameters": msg{"type": "object"}}})
		}
		b["tools"] = ts
	}
	return b
}

func user(text string) msg { return msg{"role": "user", "content": text} }

func toolResult(id, content string) msg {
	return msg{"role": "tool", "tool_call_id": id, "content": content}
}

// post sends a chat completions request and returns the response; the body
// is closed after the test.
func post(t *testing.T, ctx context.Context, hc *http.Client, baseURL string, body any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/chat/completions", bytes.NewReader(data))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// chunk is a streamed chat completion chunk as a client reads it.
type chunk struct {
	Choices []struct {
		Delta struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// sse is a read stream: its chunks, whether [DONE] arrived, and the error
// that ended reading (nil for a clean end of body).
type sse struct {
	chunks []chunk
	done   bool
	err    error
}

func readSSE(t *testing.T, body io.Reader) sse {
	t.Helper()
	var out sse
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			require.Empty(t, line, "only data lines and blank separators are expected")
			continue
		}
		require.False(t, out.done, "nothing may follow [DONE]")
		if data == "[DONE]" {
			out.done = true
			continue
		}
		var c chunk
		require.NoError(t, json.Unmarshal([]byte(data), &c), data)
		out.chunks = append(out.chunks, c)
	}
	out.err = sc.Err()
	return out
}

// text joins the streamed text deltas.
func (s sse) text() string {
	var b strings.Builder
	for _, c := range s.chunks {
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				b.WriteString(*ch.Delta.Content)
			}
		}
	}
	return b.String()
}

type assembledCall struct{ ID, Name, Arguments string }

// calls assembles tool-call deltas by index.
func (s sse) calls() []assembledCall {
	var out []assembledCall
	for _, c := range s.chunks {
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				i := *tc.Index
				for len(out) <= i {
					out = append(out, assembledCall{})
				}
				if tc.ID != "" {
					out[i].ID = tc.ID
				}
				out[i].Name += tc.Function.Name
				out[i].Arguments += tc.Function.Arguments
			}
		}
	}
	return out
}

func (s sse) finishReason() string {
	for _, c := range s.chunks {
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				return *ch.FinishReason
			}
		}
	}
	return ""
}

// getJSON fetches a control route.
func getJSON(t *testing.T, hc *http.Client, url string, v any) {
	t.Helper()
	resp, err := hc.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

// root strips /v1 from a base URL, for the /fake routes.
func root(baseURL string) string { return strings.TrimSuffix(baseURL, "/v1") }
