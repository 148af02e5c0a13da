package chat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
)

// A reply's Apply shows working from MarkApplying(on) to MarkApplying(off);
// a mark that was never cleared (an Apply ended by an operator) counts as
// cleared after a while, and the next Apply renews it.
func TestMarkApplying(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "add two tasks")
		calls, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{
			{Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"A"}]}`}}})
		require.NoError(t, err)
		_, err = f.store.CompleteToolCall(ctx, calls[0].ID, chat.Outcome{Status: chat.CallHeld, HeldFor: chat.HeldForApply,
			Summary: "Add “A”.", Input: `{"tasks":[{"title":"A"}]}`})
		require.NoError(t, err)
		f.finish(t, turn, chat.StatusDone, "Proposed.")
		status := func() chat.Status {
			bar, err := f.store.TopBar(ctx, f.ann)
			require.NoError(t, err)
			require.Len(t, bar, 1)
			return bar[0].Status
		}
		require.Equal(t, chat.StatusWaiting, status())

		require.NoError(t, f.store.MarkApplying(ctx, turn.ReplyMessageID, true))
		require.Equal(t, chat.StatusWorking, status())
		require.NoError(t, f.store.MarkApplying(ctx, turn.ReplyMessageID, false))
		require.Equal(t, chat.StatusWaiting, status())

		// Marked, then never cleared: after 15 minutes it reads waiting, and
		// the next Apply shows working again.
		require.NoError(t, f.store.MarkApplying(ctx, turn.ReplyMessageID, true))
		long := time.Now().Add(-20 * time.Minute).UTC()
		require.NoError(t, f.db.Model(&storage.Turn{}).Where("id = ?", turn.ID).Update("applying_since", long).Error)
		require.Equal(t, chat.StatusWaiting, status(), "a stale mark counts as cleared")
		require.NoError(t, f.store.MarkApplying(ctx, turn.ReplyMessageID, true))
		require.Equal(t, chat.StatusWorking, status(), "a new Apply renews a stale mark")
	})
}
