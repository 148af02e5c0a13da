//go:build chaos

package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hub/hubtest"
)

// client is what a browser tab does against the api, written to survive
// the api going away: it retries what is safe to retry, and follows a
// stream again with Last-Event-ID after a broken connection.
type client struct {
	base  string // http://127.0.0.1:PORT; the api restarts on the same port
	token string
	http  *http.Client
	// onRetry is told about each retry and why (for the report).
	onRetry func(what, why string)
}

// errTransport marks a request that got no HTTP answer (the api was down
// or died while answering).
var errTransport = errors.New("no answer from the api")

func (c *client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %s %s: %w", errTransport, method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %s %s: reading the answer: %w", errTransport, method, path, err)
	}
	return resp.StatusCode, raw, nil
}

// pause waits before a retry, or returns the context's error.
func pause(ctx context.Context, attempt int) error {
	d := time.Duration(min(attempt, 10)) * 100 * time.Millisecond
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// call sends a request that is safe to send again (a read, an Apply, a new
// conversation) until it gets an HTTP answer; with retry5xx it also sends
// again after a 5xx. It decodes a 2xx answer into out.
func (c *client) call(ctx context.Context, method, path string, body, out any, retry5xx bool) (int, error) {
	for attempt := 1; ; attempt++ {
		status, raw, err := c.do(ctx, method, path, body)
		switch {
		case errors.Is(err, errTransport) || (retry5xx && status >= 500):
			if c.onRetry != nil {
				c.onRetry(method+" "+routeOf(path), why(status, raw, err))
			}
			if perr := pause(ctx, attempt); perr != nil {
				if err == nil {
					err = fmt.Errorf("%s %s: %d %s", method, path, status, raw)
				}
				return status, fmt.Errorf("%w (last: %v)", perr, err)
			}
			continue
		case err != nil:
			return 0, err
		case status/100 != 2:
			return status, fmt.Errorf("%s %s: %d %s", method, path, status, raw)
		}
		if out != nil && len(raw) > 0 {
			if err := json.Unmarshal(raw, out); err != nil {
				return status, fmt.Errorf("%s %s: %w: %s", method, path, err, raw)
			}
		}
		return status, nil
	}
}

// why says in a few words why a request is sent again: no answer, or the
// status and error code the api answered.
func why(status int, raw []byte, err error) string {
	switch {
	case errors.Is(err, errTransport):
		return "no answer"
	case err != nil && status == 0:
		return "connection broke"
	}
	var body struct{ Error struct{ Code string } }
	_ = json.Unmarshal(raw, &body)
	return strings.TrimSpace(fmt.Sprintf("%d %s", status, body.Error.Code))
}

// streamWhy says why a stream is followed again.
func streamWhy(err error) string {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "ended before done"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case err != nil && strings.HasPrefix(err.Error(), "stream: "):
		return err.Error()
	}
	return "connection broke"
}

// routeOf names a request's route without its ids, for the report.
func routeOf(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if len(p) > 20 || strings.ContainsAny(p, "0123456789") {
			parts[i] = ":id"
		}
	}
	return strings.Join(parts, "/")
}

type started struct {
	TurnID         string `json:"turnId"`
	ReplyMessageID string `json:"replyMessageId"`
}

type message struct {
	ID        string `json:"id"`
	Role      string `json:"role"`
	Text      string `json:"text"`
	Status    string `json:"status"`
	TurnID    string `json:"turnId"`
	ToolCalls []struct {
		ID, Tool, Status string
	} `json:"toolCalls"`
	Proposals []struct {
		CallID, Tool, Status string
	} `json:"proposals"`
}

func (c *client) messages(ctx context.Context, conv string) ([]message, error) {
	var out struct{ Messages []message }
	_, err := c.call(ctx, "GET", "/api/assistant/conversations/"+conv+"/messages", nil, &out, true)
	return out.Messages, err
}

// ask starts a turn. Starting one is not safe to repeat blindly (it would
// be a second turn), so after a request that got no answer it looks at the
// conversation first: a turn the api saved before it died is followed, not
// started again.
func (c *client) ask(ctx context.Context, conv, text string) (started, error) {
	for attempt := 1; ; attempt++ {
		var st started
		status, raw, err := c.do(ctx, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": text})
		if err == nil && status == http.StatusAccepted {
			return st, json.Unmarshal(raw, &st)
		}
		if err == nil && status != http.StatusConflict && status < 500 {
			return st, fmt.Errorf("start a turn: %d %s", status, raw)
		}
		if c.onRetry != nil {
			c.onRetry("POST /api/assistant/conversations/:id/turns", why(status, raw, err))
		}
		if perr := pause(ctx, attempt); perr != nil {
			return st, fmt.Errorf("start a turn: %w (last: %v %d %s)", perr, err, status, raw)
		}
		msgs, merr := c.messages(ctx, conv)
		if merr != nil {
			return st, merr
		}
		for _, m := range msgs {
			if m.Role == "user" && m.TurnID != "" {
				var turn struct{ ReplyMessageID string }
				if _, err := c.call(ctx, "GET", "/api/assistant/turns/"+m.TurnID, nil, &turn, true); err != nil {
					return st, err
				}
				return started{TurnID: m.TurnID, ReplyMessageID: turn.ReplyMessageID}, nil
			}
		}
	}
}

// event is one SSE event.
// event is one SSE event, as the other end-to-end tests read them.
type event = hubtest.Event

// followed is what a client saw of one turn's stream.
type followed struct {
	events     []event
	reconnects int
	// misnumbered counts frames whose id was not the previous one plus
	// one: a gap or a repeat across reconnects.
	misnumbered int
}

// follow reads a turn's stream until its done frame, reconnecting with
// Last-Event-ID whenever the connection breaks.
func (c *client) follow(ctx context.Context, turnID string) (followed, error) {
	var f followed
	var last int64
	for attempt := 1; ; attempt++ {
		done, err := c.readStream(ctx, turnID, last, &f)
		if n := len(f.events); n > 0 {
			last = f.events[n-1].ID
		}
		if done {
			return f, nil
		}
		if ctx.Err() != nil {
			return f, fmt.Errorf("stream of turn %s: %w (last: %v)", turnID, ctx.Err(), err)
		}
		f.reconnects++
		if c.onRetry != nil {
			c.onRetry("GET /api/assistant/turns/:id/stream", streamWhy(err))
		}
		if perr := pause(ctx, attempt); perr != nil {
			return f, fmt.Errorf("stream of turn %s: %w (last: %v)", turnID, perr, err)
		}
	}
}

// readStream reads one connection of the stream; done is true once the
// done frame arrived, or the api answered 204 (nothing more will come).
func (c *client) readStream(ctx context.Context, turnID string, last int64, f *followed) (done bool, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/api/assistant/turns/"+turnID+"/stream", nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if last > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNoContent:
		return true, nil
	case resp.StatusCode != http.StatusOK:
		raw, _ := io.ReadAll(resp.Body)
		return false, fmt.Errorf("stream: %d %s", resp.StatusCode, raw)
	}
	var cur event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Type == "" {
				continue
			}
			if cur.ID != last+1 {
				f.misnumbered++
			}
			last = cur.ID
			f.events = append(f.events, cur)
			if cur.Type == "done" {
				return true, nil
			}
			cur = event{}
		case strings.HasPrefix(line, "id: "):
			cur.ID, _ = strconv.ParseInt(line[4:], 10, 64)
		case strings.HasPrefix(line, "event: "):
			cur.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &cur.Data); err != nil {
				return false, fmt.Errorf("stream: data %q: %w", line, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, io.ErrUnexpectedEOF
}

type receipt struct {
	CallID, Tool, Status string
	Error                *struct{ Code, Message string }
}

// apply sends POST /api/assistant/apply until it answers 200. Sending it
// again is the documented Retry: it never resends a succeeded call.
func (c *client) apply(ctx context.Context, conv, messageID string) ([]receipt, error) {
	var out struct{ Receipts []receipt }
	_, err := c.call(ctx, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": messageID}, &out, true)
	return out.Receipts, err
}
