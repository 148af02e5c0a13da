package llm

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "12"}, 12 * time.Second},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"HTTP date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"milliseconds win", map[string]string{"Retry-After": "2", "Retry-After-Ms": "1500"}, 1500 * time.Millisecond},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			require.Equal(t, tt.want, retryAfter(h, now))
		})
	}
}

func TestKindForStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   Kind
	}{
		{429, KindRateLimited}, {500, KindServer}, {502, KindServer}, {503, KindServer}, {408, KindTimeout},
		{409, KindConflict}, {401, KindAuth}, {403, KindAuth}, {400, KindBadRequest}, {404, KindBadRequest},
		{413, KindBadRequest}, {422, KindBadRequest},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			require.Equal(t, tt.want, kindForStatus(tt.status))
		})
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{15 * time.Minute, "15 minutes"},
		{15*time.Minute - 3*time.Millisecond, "15 minutes"},
		{time.Minute, "1 minute"},
		{90 * time.Second, "90 seconds"},
		{30 * time.Second, "30 seconds"},
		{time.Second, "1 second"},
		{150 * time.Millisecond, "150ms"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, humanDuration(tt.d))
		})
	}
}

func TestDoneWatcher(t *testing.T) {
	t.Parallel()
	long := "data: " + strings.Repeat("x", 100) + "[DONE]\n"
	tests := []struct {
		name string
		body string
		want bool
	}{
		{"standard", "data: {\"a\":1}\n\ndata: [DONE]\n\n", true},
		{"no space", "data:[DONE]\n", true},
		{"CRLF", "data: [DONE]\r\n\r\n", true},
		{"no final newline", "data: [DONE]", true},
		{"missing", "data: {\"a\":1}\n\n", false},
		{"inside a chunk", "data: {\"content\":\"[DONE]\"}\n", false},
		{"at the end of a long line", long, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &exchange{}
			// One byte per read: the terminator is split across reads.
			w := &doneWatcher{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(tt.body))), ex: ex}
			got, err := io.ReadAll(w)
			require.NoError(t, err)
			require.Equal(t, tt.body, string(got), "the body passes through unchanged")
			require.Equal(t, tt.want, ex.sawDone)
		})
	}
}

func TestAssemblerWithoutIndexes(t *testing.T) {
	t.Parallel()
	// Some compatible servers send tool-call deltas without an index, or
	// repeat the id and name in every delta.
	delta := func(id, name, args string) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{
			Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{
				ID: id, Function: openai.FunctionCall{Name: name, Arguments: args},
			}}},
		}}}
	}
	var a assembler
	for _, d := range []openai.ChatCompletionStreamResponse{
		delta("a", "one", `{"x":`), delta("", "", `1}`),
		delta("b", "two", `{}`),
		delta("", "", ""), // an empty continuation changes nothing
	} {
		a.add(d)
	}
	require.Equal(t, []ToolCall{{ID: "a", Name: "one", Arguments: `{"x":1}`}, {ID: "b", Name: "two", Arguments: `{}`}}, a.result().ToolCalls)

	var repeated assembler
	idx := 0
	for _, args := range []string{`{"y"`, `:2}`} {
		repeated.add(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{
			Delta: openai.ChatCompletionStreamChoiceDelta{ToolCalls: []openai.ToolCall{{
				Index: &idx, ID: "", Function: openai.FunctionCall{Name: "same", Arguments: args},
			}}},
		}}})
	}
	require.Equal(t, []ToolCall{{ID: "call_0", Name: "same", Arguments: `{"y":2}`}}, repeated.result().ToolCalls,
		"a repeated name is kept once; a missing id is made up so the tool result can name the call")
}

func TestConfig(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name       string
		env        map[string]string
		want       Config
		configured bool
		wantErr    string
	}{
		{name: "nothing set", env: nil, want: Config{Model: DefaultModel, Timeout: DefaultTimeout}},
		{name: "key only", env: map[string]string{EnvAPIKey: "sk-secret"},
			want: Config{APIKey: "sk-secret", Model: DefaultModel, Timeout: DefaultTimeout}, configured: true},
		{name: "local endpoint", env: map[string]string{EnvBaseURL: "http://127.0.0.1:8090/v1", EnvModel: "llama3", EnvTimeout: "2m"},
			want: Config{BaseURL: "http://127.0.0.1:8090/v1", Model: "llama3", Timeout: 2 * time.Minute}, configured: true},
		{name: "timeout in seconds", env: map[string]string{EnvTimeout: "45"}, want: Config{Model: DefaultModel, Timeout: 45 * time.Second}},
		{name: "timeout too short", env: map[string]string{EnvTimeout: "10s"}, wantErr: "HUB_MODEL_TIMEOUT: 10s is outside"},
		{name: "timeout too long", env: map[string]string{EnvTimeout: "1h"}, wantErr: "outside the allowed 30s to 30m0s"},
		{name: "timeout unreadable", env: map[string]string{EnvTimeout: "soon"}, wantErr: "not a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(env(tt.env))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.configured, got.Configured())
		})
	}
}

func TestConfigNeverPrintsTheKey(t *testing.T) {
	t.Parallel()
	cfg := Config{APIKey: "sk-very-secret-1234", Model: "m"}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), cfg.LogValue().String()} {
		require.NotContains(t, s, "very-secret")
		require.Contains(t, s, "****1234")
	}
}

func TestErrorUnwrapsToItsCause(t *testing.T) {
	t.Parallel()
	apiErr := &openai.APIError{HTTPStatusCode: 429, Message: "slow down"}
	e := (&exchange{header: http.Header{"Retry-After": {"4"}}}).statusError(429, "slow down", apiErr)
	var got *openai.APIError
	require.True(t, errors.As(e, &got), "go-openai's error stays reachable")
	require.Equal(t, `model call: rate_limited (HTTP 429): slow down (retry after 4s)`, e.Error())
}
