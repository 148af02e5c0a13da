//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
)

// scrape reads one series' value from /metrics (0 when absent).
func scrape(t *testing.T, s *hubtest.Stack, series string) float64 {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

// Hub's own series count what happened: turns by status and their time,
// tool calls by tool and outcome, Apply receipts by state, frames by type
// and the event streams open.
func TestWorkMetrics(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Book the venue"}]}}]}},
	  {"reply": {"text": "Proposed."}}]}`)})
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task to book the venue")

	// An open stream is counted while it is open (the activity stream
	// stays open; a turn's ends with the turn).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	es := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream", s.Token, "")
	require.Eventually(t, func() bool { return scrape(t, s, `hub_sse_clients{stream="activity"}`) == 1 }, 10*time.Second, 10*time.Millisecond)
	es.Close()
	require.Eventually(t, func() bool { return scrape(t, s, `hub_sse_clients{stream="activity"}`) == 0 }, 10*time.Second, 10*time.Millisecond)
	s.Stream(t, st.StreamURL, 0, 0)
	require.Eventually(t, func() bool { return scrape(t, s, `hub_turns_total{status="done"}`) == 1 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, float64(1), scrape(t, s, `hub_turn_duration_seconds_count{status="done"}`))
	require.Equal(t, float64(1), scrape(t, s, `hub_tool_calls_total{outcome="held",tool="hub_create_tasks"}`))
	require.Positive(t, scrape(t, s, `hub_frames_published_total{type="text"}`))
	require.Equal(t, float64(1), scrape(t, s, `hub_frames_published_total{type="done"}`))

	r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, float64(1), scrape(t, s, `hub_apply_receipts_total{status="succeeded"}`))
}
