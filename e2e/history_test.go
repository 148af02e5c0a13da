package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/worker"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

// TestTurnHistoryReplays runs a turn with tool calls on a real server, takes
// its history and replays it against the current workflow code: a
// non-deterministic change fails here. With HUB_RECORD_HISTORY=1 it also
// saves the history in workflows/testdata, where the workflows package
// replays every recorded history on each run (so a change that breaks
// turns already running is caught even after this test changes).
func TestTurnHistoryReplays(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(listThenCreate)})
	st := s.Ask(t, s.Conversation(t), "add a task to draft the brief")
	s.Stream(t, st.StreamURL, 0, 0)
	s.AwaitStatus(t, st.TurnID)

	ctx := context.Background()
	it := s.Temporal.GetWorkflowHistory(ctx, workflows.TurnWorkflowID(st.TurnID), "", false, 0)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	require.NotEmpty(t, h.Events)

	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(workflows.Turn)
	require.NoError(t, r.ReplayWorkflowHistory(nil, h))

	if os.Getenv("HUB_RECORD_HISTORY") == "1" {
		raw, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join("..", "workflows", "testdata", "turn_list_create_v1.json"), raw, 0o644))
	}
}

// TestApplyHistoryReplays does the same for an Apply (its history so far:
// the workflow stays open for a Retry).
func TestApplyHistoryReplays(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.MustParseScript(proposeTwo)})
	conv, reply := proposeTasks(t, s)
	r := s.Do(t, s.Token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": reply})
	require.Equal(t, 200, r.Status, "%s", r.Body)

	it := s.Temporal.GetWorkflowHistory(context.Background(), workflows.ApplyWorkflowID(reply), "", false, 0)
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
		require.NoError(t, os.WriteFile(filepath.Join("..", "workflows", "testdata", "apply_two_writes.json"), raw, 0o644))
	}
}
