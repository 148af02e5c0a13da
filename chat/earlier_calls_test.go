package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
)

// EarlierCalls counts the calls of a turn before a call: earlier steps and
// the earlier calls of its own step, whatever became of them, and none of
// another turn's.
func TestEarlierCallsCountTheTurnsCallsBeforeOne(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "what changed?")
		search := chat.ToolCall{Tool: "hub_web_search", Arguments: `{"query":"a"}`}
		read := chat.ToolCall{Tool: "hub_read_web_page", Arguments: `{"url":"https://example.com"}`}
		step1, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{search, read}})
		require.NoError(t, err)
		_, err = f.store.CompleteToolCall(ctx, step1[0].ID, chat.Outcome{Status: chat.CallFailed, ErrorCode: "failed"})
		require.NoError(t, err)
		step2, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 2, Attempt: 1, ToolCalls: []chat.ToolCall{search, search, search}})
		require.NoError(t, err)

		got, err := f.store.EarlierCalls(ctx, step1[0].ID)
		require.NoError(t, err)
		require.Empty(t, got)
		got, err = f.store.EarlierCalls(ctx, step1[1].ID)
		require.NoError(t, err)
		require.Equal(t, map[string]int{"hub_web_search": 1}, got, "a failed call counts")
		got, err = f.store.EarlierCalls(ctx, step2[2].ID)
		require.NoError(t, err)
		require.Equal(t, map[string]int{"hub_web_search": 3, "hub_read_web_page": 1}, got, "this step's earlier calls count, pending or not")

		f.finish(t, turn, chat.StatusDone, "done")
		next := f.start(t, "and now?")
		calls, err := f.store.SaveStep(ctx, next.ID, chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{search}})
		require.NoError(t, err)
		got, err = f.store.EarlierCalls(ctx, calls[0].ID)
		require.NoError(t, err)
		require.Empty(t, got, "another turn's calls do not count")

		_, err = f.store.EarlierCalls(ctx, "no-such-call")
		require.Error(t, err)
	})
}
