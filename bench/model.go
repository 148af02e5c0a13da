package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"hub/fakemodel"
)

// The bench's turns, as the stand-in model's script answers them. A turn's
// text names it ("bench turn R-h7"); its three model calls are told apart
// by how many tool results follow that message, so any number of turns
// can run at once:
//
//  1. no tool result yet: hub_create_tasks "R-h7 a"
//  2. one: hub_create_tasks "R-h7 b"
//  3. two: the text "Done: two tasks."
//
// "bench text …" answers text at once (first-text latency); "bench stop
// …" streams a long text slowly, so a stop lands mid-stream.
const (
	turnPrefix  = "bench turn "
	textPrefix  = "bench text "
	stopPrefix  = "bench stop "
	createTasks = "hub_create_tasks"
)

// script is the bench's fakemodel script; delay is waited before every
// reply's first chunk (the realistic-latency phase).
func script(delay time.Duration) string {
	d, _ := json.Marshal(delay.String())
	write := func(n int, suffix string) string {
		return fmt.Sprintf(`{"name": "write %s", "match": {"lastUser": "(?m)^bench turn (\\S+)$", "toolResults": %d},
  "reply": {"toolCalls": [{"name": %q, "arguments": {"tasks": [{"title": "{{index .Groups 1}} %s"}]}}], "firstTokenDelay": %s}}`, suffix, n, createTasks, suffix, d)
	}
	return `{"name": "hub bench", "rules": [
` + write(0, "a") + `,
` + write(1, "b") + `,
{"name": "answer", "match": {"lastUser": "(?m)^bench turn ", "toolResults": 2}, "reply": {"text": "Done: two tasks.", "firstTokenDelay": ` + string(d) + `}},
{"name": "text", "match": {"lastUser": "(?m)^bench text "}, "reply": {"text": "Hello from the bench, at once.", "firstTokenDelay": ` + string(d) + `}},
{"name": "slow text", "match": {"lastUser": "(?m)^bench stop "}, "reply": {"text": "` + strings.Repeat("slowly ", 300) + `", "chunkSize": 7, "chunkDelay": "20ms"}}
]}`
}

// model is the scripted stand-in the Hub under test and the plain loop
// call: the bench's own (started on loopback) or a `hub fakemodel`
// elsewhere, driven through its /fake routes either way.
type model struct {
	baseURL string // …/v1
	http    *http.Client
	own     *fakemodel.Server
}

// startModel starts the bench's own fakemodel on addr (127.0.0.1:0: a free
// port), or uses the fakemodel at baseURL when it is not empty.
func startModel(addr, baseURL string) (*model, error) {
	m := &model{baseURL: strings.TrimRight(baseURL, "/"), http: &http.Client{Timeout: 30 * time.Second}}
	if m.baseURL == "" {
		m.own = fakemodel.New(fakemodel.Script{})
		base, err := m.own.Start(addr)
		if err != nil {
			return nil, fmt.Errorf("start the stand-in model: %w", err)
		}
		m.baseURL = base
	}
	if !strings.HasSuffix(m.baseURL, "/v1") {
		return nil, fmt.Errorf("model URL %s: want the /v1 URL `hub fakemodel` prints", m.baseURL)
	}
	return m, nil
}

func (m *model) close() {
	if m.own != nil {
		_ = m.own.Close()
	}
}

func (m *model) root() string { return strings.TrimSuffix(m.baseURL, "/v1") }

// setScript replaces the model's script (PUT /fake/script).
func (m *model) setScript(ctx context.Context, s string) error {
	return m.send(ctx, http.MethodPut, "/fake/script", strings.NewReader(s))
}

// reset forgets the recorded requests, so they do not pile up over a run.
func (m *model) reset(ctx context.Context) error {
	return m.send(ctx, http.MethodDelete, "/fake/requests", nil)
}

func (m *model) send(ctx context.Context, method, path string, body io.Reader) error {
	req, err := http.NewRequestWithContext(ctx, method, m.root()+path, body)
	if err != nil {
		return err
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return fmt.Errorf("the model at %s: %w", m.root(), err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s%s: %d %s (is it a scripted `hub fakemodel`?)", method, m.root(), path, resp.StatusCode, bytes.TrimSpace(b))
	}
	return nil
}

// recorded is what the bench reads of a recorded request.
type recorded struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ReceivedAt           time.Time  `json:"receivedAt"`
	FirstByteAt          *time.Time `json:"firstByteAt"`
	ClientDisconnectedAt *time.Time `json:"clientDisconnectedAt"`
	FinishedAt           *time.Time `json:"finishedAt"`
}

// disconnected waits until the model saw the client hang up on the
// request whose last user message ends in text, and returns when.
func (m *model) disconnected(ctx context.Context, text string) (time.Time, error) {
	r, err := m.await(ctx, text, func(r recorded) (bool, error) {
		if r.ClientDisconnectedAt == nil && r.FinishedAt != nil {
			return false, fmt.Errorf("the model finished its answer to %q: Hub did not hang up", text)
		}
		return r.ClientDisconnectedAt != nil, nil
	})
	if err != nil {
		return time.Time{}, err
	}
	return *r.ClientDisconnectedAt, nil
}

// firstByte is when the model sent the first chunk of its answer to the
// request whose last user message ends in text.
func (m *model) firstByte(ctx context.Context, text string) (time.Time, error) {
	r, err := m.await(ctx, text, func(r recorded) (bool, error) { return r.FirstByteAt != nil, nil })
	if err != nil {
		return time.Time{}, err
	}
	return *r.FirstByteAt, nil
}

// await polls the recorded requests until the one for text satisfies ok.
// The times compared are the model's own records, so how often it polls
// does not change them.
func (m *model) await(ctx context.Context, text string, ok func(recorded) (bool, error)) (recorded, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.root()+"/fake/requests", nil)
		if err != nil {
			return recorded{}, err
		}
		resp, err := m.http.Do(req)
		if err != nil {
			return recorded{}, err
		}
		var reqs []recorded
		err = json.NewDecoder(resp.Body).Decode(&reqs)
		resp.Body.Close()
		if err != nil {
			return recorded{}, fmt.Errorf("GET /fake/requests: %w", err)
		}
		for _, r := range reqs {
			if strings.HasSuffix(lastUser(r), text) { // Hub puts the context before it
				done, err := ok(r)
				if err != nil || done {
					return r, err
				}
			}
		}
		select {
		case <-ctx.Done():
			return recorded{}, fmt.Errorf("waiting for the model's record of %q: %w", text, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func lastUser(r recorded) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}
