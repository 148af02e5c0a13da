package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/workspace"
)

// A succeeded receipt keeps the records the applied call changed and its
// summary of what was done; the call takes those records as its refs and
// the messages list carries the receipt, while the proposal keeps its
// preview. The reply's named records are its mentions.
func TestReceiptKeepsRefsAndTheFinalSummary(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "add a task")
		calls, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{
			{Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"A"}]}`}}})
		require.NoError(t, err)
		_, err = f.store.CompleteToolCall(ctx, calls[0].ID, chat.Outcome{Status: chat.CallHeld, HeldFor: chat.HeldForApply,
			Summary: "Add “A”.", Input: `{"tasks":[{"title":"A"}]}`})
		require.NoError(t, err)
		named := []workspace.Ref{{Kind: "task", ID: "task_named", Label: "Named"}}
		_, err = f.store.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusDone, Text: "Proposed task_named.", Named: named})
		require.NoError(t, err)

		landed := []workspace.Ref{{Kind: "task", ID: "task_a", Label: "A"}}
		require.NoError(t, f.store.SaveReceipt(ctx, turn.ReplyMessageID, chat.Receipt{CallID: calls[0].ID, SpaceID: f.space,
			Status: chat.ReceiptSucceeded, Summary: "Added 1 task: “A”.", UndoGroupID: "undo_1", Refs: landed}))
		receipts, err := f.store.Receipts(ctx, turn.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, landed, receipts[calls[0].ID].Refs)

		msgs, err := f.store.Messages(ctx, f.ann, f.conv.ID)
		require.NoError(t, err)
		reply := msgs[1]
		require.Equal(t, named, reply.Mentions)
		c := reply.ToolCalls[0]
		require.Equal(t, chat.CallApplied, c.Status)
		require.Equal(t, "Add “A”.", c.Summary, "the call keeps its preview for the proposal")
		require.Equal(t, landed, c.Refs)
		require.NotNil(t, c.Receipt)
		require.Equal(t, "Added 1 task: “A”.", c.Receipt.Summary)
		require.Equal(t, landed, c.Receipt.Refs)
	})
}
