package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// client speaks Hub's HTTP API (docs/api.md) as a person with a token.
type client struct {
	base  string // http://host:port, no trailing slash
	token string
	http  *http.Client
}

func newClient(base, token string, inFlight int) *client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// Every turn in flight holds a stream and makes calls beside it: keep
	// their connections instead of opening new ones all the time.
	tr.MaxIdleConnsPerHost = 2*inFlight + 8
	tr.MaxIdleConns = 2*inFlight + 8
	return &client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{Transport: tr}}
}

// apiError is a non-2xx answer.
type apiError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, strings.TrimSpace(e.Body))
}

// do sends a JSON request and decodes a JSON answer into out (when not nil).
func (c *client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return &apiError{Method: method, Path: path, Status: resp.StatusCode, Body: string(b)}
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// ready waits until GET /readyz answers 200 (database and Temporal
// reachable), or ctx ends.
func (c *client) ready(ctx context.Context) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := c.http.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s/readyz: not ready: %w (last: %v)", c.base, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// firstSpace is the first space the person can open.
func (c *client) firstSpace(ctx context.Context) (string, error) {
	var out struct {
		Spaces []struct{ ID, Name, Role string }
	}
	if err := c.do(ctx, http.MethodGet, "/api/spaces", nil, &out); err != nil {
		return "", err
	}
	if len(out.Spaces) == 0 {
		return "", errors.New("the token's person has no space: create one with `hub token create --space NAME --person NAME`")
	}
	return out.Spaces[0].ID, nil
}

func (c *client) conversation(ctx context.Context, spaceID, title string) (string, error) {
	var out struct{ ID string }
	err := c.do(ctx, http.MethodPost, "/api/assistant/conversations", map[string]any{"spaceId": spaceID, "title": title}, &out)
	return out.ID, err
}

// started is POST …/turns' answer.
type started struct {
	TurnID    string `json:"turnId"`
	StreamURL string `json:"streamUrl"`
}

func (c *client) startTurn(ctx context.Context, conversationID, text string) (started, error) {
	var out started
	err := c.do(ctx, http.MethodPost, "/api/assistant/conversations/"+conversationID+"/turns", map[string]any{"text": text}, &out)
	return out, err
}

func (c *client) stop(ctx context.Context, turnID string) error {
	return c.do(ctx, http.MethodPost, "/api/assistant/turns/"+turnID+"/stop", map[string]any{}, nil)
}

// createTask is the plain loop's write: the same service the assistant's
// tools use, without a turn around it.
func (c *client) createTask(ctx context.Context, spaceID, title string) error {
	return c.do(ctx, http.MethodPost, "/api/spaces/"+spaceID+"/tasks", map[string]any{"title": title}, nil)
}

// taskTitles lists the titles of the space's tasks whose title has the
// word q, page by page.
func (c *client) taskTitles(ctx context.Context, spaceID, q string) ([]string, error) {
	var titles []string
	offset := 0
	for {
		var page struct {
			Tasks      []struct{ Title string }
			NextOffset *int `json:"nextOffset"`
		}
		path := fmt.Sprintf("/api/spaces/%s/tasks?limit=200&offset=%d&q=%s", spaceID, offset, url.QueryEscape(q))
		if err := c.do(ctx, http.MethodGet, path, nil, &page); err != nil {
			return nil, err
		}
		for _, t := range page.Tasks {
			titles = append(titles, t.Title)
		}
		if page.NextOffset == nil || *page.NextOffset <= offset {
			return titles, nil
		}
		offset = *page.NextOffset
	}
}

// event is one Server-Sent Event of a turn's stream.
type event struct {
	ID   int64
	Type string
	Data json.RawMessage
	At   time.Time // when the bench read it
}

// follow reads a turn's stream from the start and calls onEvent for
// each event until the done event, which it returns. It is an error for
// the stream to end without one.
func (c *client) follow(ctx context.Context, streamURL string, onEvent func(event)) (event, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+streamURL, nil)
	if err != nil {
		return event{}, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		return event{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return event{}, &apiError{Method: http.MethodGet, Path: "stream", Status: resp.StatusCode, Body: string(b)}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var cur event
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if cur.Type == "" {
				continue
			}
			cur.At = time.Now()
			if onEvent != nil {
				onEvent(cur)
			}
			if cur.Type == "done" {
				return cur, nil
			}
			cur = event{}
		case bytes.HasPrefix(line, []byte("id: ")):
			cur.ID, _ = strconv.ParseInt(string(line[4:]), 10, 64)
		case bytes.HasPrefix(line, []byte("event: ")):
			cur.Type = string(line[7:])
		case bytes.HasPrefix(line, []byte("data: ")):
			cur.Data = append(json.RawMessage(nil), line[6:]...)
		}
	}
	if err := sc.Err(); err != nil {
		return event{}, fmt.Errorf("stream: %w", err)
	}
	return event{}, errors.New("stream ended without a done event")
}

// doneStatus is the status a done event carries.
func doneStatus(e event) string {
	var d struct{ Status string }
	_ = json.Unmarshal(e.Data, &d)
	return d.Status
}
