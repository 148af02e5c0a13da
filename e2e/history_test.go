//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/worker"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
	"hub/workspace"
)

// TestTurnHistoryReplays runs a turn with tool calls on a real server, takes
// its history and replays it against the current workflow code: a
// non-deterministic change fails here. With HUB_RECORD_HISTORY=1 it also
// saves the history in workflows/testdata, where the workflows package
// replays every recorded history on each run (so a change that breaks
// turns already running is caught even after this test changes).
//
// Each recording has its own file, named after what it covers and the
// version markers of the code that recorded it; a file no test writes any
// more is kept as it is, so the old code paths stay replayed: _v0 (no
// marker), _v1 (local-tool-calls), _v2 (turn-wall-clock; recorded with the
// workflow code from before turn-reset-wall-clock and turn-result-ending),
// _v3 (those two as well; recorded before interrupt-count), _v4
// (interrupt-count too; recorded before turn-shape), _v5 (turn-shape
// alone, which stands for all five; written by these tests now), _v6 (an
// error turn with turn-error-fails: its workflow fails).
func TestTurnHistoryReplays(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(listThenCreate)})
	st := s.Ask(t, s.Conversation(t), "add a task to draft the brief")
	s.Stream(t, st.StreamURL, 0, 0)
	s.AwaitStatus(t, st.TurnID)
	h := replayTurn(t, s, st.TurnID, "", "turn_list_create_v5.json", "turn-shape")
	// One version marker and its change-version upsert, not one per gated
	// change (issue 14): the search-attribute upserts are that one, working
	// and done.
	count := map[enumspb.EventType]int{}
	for _, ev := range h.Events {
		count[ev.GetEventType()]++
	}
	require.Equal(t, 1, count[enumspb.EVENT_TYPE_MARKER_RECORDED]-localActivityMarkers(h), "version markers")
	require.Equal(t, 3, count[enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES], "search-attribute upserts")
}

// localActivityMarkers counts the markers that record local activities
// (PrepareTurn, the tool calls, FinishTurn), not versions.
func localActivityMarkers(h *historypb.History) int {
	n := 0
	for _, ev := range h.Events {
		if a := ev.GetMarkerRecordedEventAttributes(); a != nil && a.GetMarkerName() == "LocalActivity" {
			n++
		}
	}
	return n
}

// slowerText streams 40 chunks 50 ms apart: about two seconds a call.
var slowerText = `{"rules": [{"reply": {"text": "` + strings.Repeat("word ", 200) + `", "chunkSize": 5, "chunkDelay": "50ms"}}]}`

// TestTurnSignalsHistoryReplays records a turn paused, resumed and then
// stopped while its model call streams: the signals, the cancelled calls
// and the paused wait.
func TestTurnSignalsHistoryReplays(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(slowerText)})
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	s.Stream(t, st.StreamURL, 0, 4)
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	awaitDisconnect(t, s, 1)
	// Resume once the workflow itself waits paused (its state query).
	require.Eventually(t, func() bool {
		v, err := s.Temporal.QueryWorkflow(context.Background(), workflows.TurnWorkflowID(st.TurnID), "", workflows.StateQuery)
		var state workflows.TurnState
		return err == nil && v.Get(&state) == nil && state.Status == "paused"
	}, 20*time.Second, 20*time.Millisecond)
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/resume", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	// Stop once the resumed call streams.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 2 && r[1].HeadersAt != nil })
	require.NoError(t, err)
	r = s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	require.Equal(t, "stopped", s.AwaitStatus(t, st.TurnID)["status"])
	replayTurn(t, s, st.TurnID, "", "turn_pause_resume_stop_v5.json", "turn-shape")
}

// TestTurnWallClockHistoryReplays records a turn that stayed paused past
// its wall-time bound: the timer fires and the turn ends as timeout, its
// workflow failing with that code (turn-error-fails).
func TestTurnWallClockHistoryReplays(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(slowerText), TurnTimeout: 3 * time.Second})
	st := s.Ask(t, s.Conversation(t), "tell me a long story")
	s.Stream(t, st.StreamURL, 0, 3)
	r := s.Do(t, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	turn := s.AwaitStatus(t, st.TurnID)
	require.Equal(t, "timeout", turn["error"].(map[string]any)["code"])
	replayTurn(t, s, st.TurnID, "", "turn_wall_clock_timeout_v6.json", "turn-shape", "turn-error-fails")
}

// replayTurn replays a run of the turn's workflow ("" for the latest),
// checks its history records each version marker named, and with
// HUB_RECORD_HISTORY=1 saves it in workflows/testdata as name.
func replayTurn(t *testing.T, s *hubtest.Stack, turnID, runID, name string, markers ...string) *historypb.History {
	t.Helper()
	return replayWorkflow(t, s, workflows.TurnWorkflowID(turnID), runID, name, markers...)
}

// replayWorkflow is replayTurn for a Turn, ScheduledTurn or Completion, by id.
func replayWorkflow(t *testing.T, s *hubtest.Stack, workflowID, runID, name string, markers ...string) *historypb.History {
	t.Helper()
	// The turn's row says it ended inside the workflow's last task: wait
	// for the run to close, so its history is whole.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = s.Temporal.GetWorkflow(ctx, workflowID, runID).Get(ctx, nil)
	it := s.Temporal.GetWorkflowHistory(ctx, workflowID, runID, false, 0)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	require.NotEmpty(t, h.Events)
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(workflows.Turn)
	r.RegisterWorkflow(workflows.ScheduledTurn)
	r.RegisterWorkflow(workflows.Completion)
	require.NoError(t, r.ReplayWorkflowHistory(nil, h))
	raw, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	require.NoError(t, err)
	for _, m := range markers {
		// Version markers name their change id in the marker's details.
		require.Contains(t, string(raw), base64.StdEncoding.EncodeToString([]byte(`"`+m+`"`)), "the history records version %s", m)
	}
	if os.Getenv("HUB_RECORD_HISTORY") == "1" {
		require.NoError(t, os.WriteFile(filepath.Join("..", "workflows", "testdata", name), raw, 0o644))
	}
	return h
}

// TestApplyHistoryReplays does the same for an Apply (its history so far:
// the workflow stays open for a Retry).
func TestApplyHistoryReplays(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	replayApply(t, s, reply, "apply_two_writes.json")
}

// TestApplyAcrossSpacesHistoryReplays records an Apply whose writes are in
// two spaces, so their activities run at once.
func TestApplyAcrossSpacesHistoryReplays(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{})
	_, other := s.Member(t, "Ops", "Mira Chen", workspace.RoleOwner)
	s.Model.SetScript(fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Here"}]}},
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "There"}], "space": "Ops"}}]}},
	  {"reply": {"text": "Proposed."}}]}`))
	r := s.Do(t, s.Token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	conv := s.Conversation(t)
	r = s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conv+"/turns", map[string]any{"text": "add both", "spaces": []string{other}})
	require.Equal(t, 202, r.Status, "%s", r.Body)
	var st hubtest.Started
	r.Decode(t, &st)
	s.Stream(t, st.StreamURL, 0, 0)
	r = s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var res struct {
		Receipts []struct{ Status, SpaceID, UndoGroupID string }
	}
	r.Decode(t, &res)
	require.Len(t, res.Receipts, 2)
	require.Equal(t, []string{s.SpaceID, other}, []string{res.Receipts[0].SpaceID, res.Receipts[1].SpaceID})
	require.NotEqual(t, res.Receipts[0].UndoGroupID, res.Receipts[1].UndoGroupID, "one Undo group per space")
	replayApply(t, s, st.ReplyMessageID, "apply_two_spaces.json")
}

// replayApply replays a message's Apply history and, with
// HUB_RECORD_HISTORY=1, saves it in workflows/testdata as name.
func replayApply(t *testing.T, s *hubtest.Stack, messageID, name string) {
	t.Helper()
	it := s.Temporal.GetWorkflowHistory(context.Background(), workflows.ApplyWorkflowID(messageID), "", false, 0)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflow(workflows.Apply)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, h))
	if os.Getenv("HUB_RECORD_HISTORY") == "1" {
		raw, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join("..", "workflows", "testdata", name), raw, 0o644))
	}
}
