package chat_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
	"hub/workspace"
)

func noFrames(context.Context) error { return nil }

func TestClaimTurnTakesAFreshTurnAndReopensAnEndedOne(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "add a task")
		reopened, err := f.store.ClaimTurn(ctx, turn.ID, "run-1", -1, noFrames)
		require.NoError(t, err)
		require.False(t, reopened, "the first run takes the turn")
		reopened, err = f.store.ClaimTurn(ctx, turn.ID, "run-1", 0, func(context.Context) error { panic("not a reopening") })
		require.NoError(t, err)
		require.False(t, reopened, "its own run asking again changes nothing")

		// The first run saved two steps, each with a call (one committed,
		// one held), and ended in error.
		for step := 1; step <= 2; step++ {
			calls, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: step, Attempt: 1, Text: "step text",
				ToolCalls: []chat.ToolCall{{Tool: "hub_create_tasks", Arguments: "{}"}}, Usage: chat.Usage{InputTokens: 10, OutputTokens: 1}})
			require.NoError(t, err)
			status := chat.CallDone
			if step == 2 {
				status = chat.CallHeld
			}
			_, err = f.store.CompleteToolCall(ctx, calls[0].ID, chat.Outcome{Status: status})
			require.NoError(t, err)
		}
		_, err = f.store.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError, ErrorCode: "model_error", ErrorMessage: "no",
			Text: "step text", Usage: chat.Usage{InputTokens: 20, OutputTokens: 2}})
		require.NoError(t, err)

		// A reset run that reuses step 1 reopens it.
		var inTx bool
		reopened, err = f.store.ClaimTurn(ctx, turn.ID, "run-2", 1, func(ctx context.Context) error {
			inTx = f.db.InTxNow(ctx)
			return nil
		})
		require.NoError(t, err)
		require.True(t, reopened)
		require.True(t, inTx)
		got, _, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusWorking, got.Status)
		require.Nil(t, got.FinishedAt)
		require.Empty(t, got.ErrorCode)
		require.Zero(t, got.Usage)
		require.Equal(t, "run-2", got.RunID)
		reply, err := f.store.GetMessage(ctx, turn.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, "running", reply.Status)
		require.Empty(t, reply.Text)
		steps, err := f.store.Steps(ctx, turn.ID, 10)
		require.NoError(t, err)
		require.Len(t, steps, 1, "steps after the kept one go")
		require.Len(t, steps[0].ToolCalls, 1, "the kept step keeps its committed call")
		require.Equal(t, int64(0), f.count(t, &storage.ToolCall{}, "turn_id = ? AND step = 2", turn.ID), "a held call of a dropped step goes")

		// Its ending is its own.
		ended, err := f.store.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusDone, Text: "new", Usage: chat.Usage{InputTokens: 5}})
		require.NoError(t, err)
		require.Equal(t, chat.StatusDone, ended.Status)
		require.Equal(t, 5, ended.Usage.InputTokens)

		// A failing stream part leaves the turn as it was.
		_, err = f.store.ClaimTurn(ctx, turn.ID, "run-3", 1, func(context.Context) error { return workspace.ErrConflict })
		require.ErrorIs(t, err, workspace.ErrConflict)
		got, _, err = f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusDone, got.Status)
		require.Equal(t, "run-2", got.RunID)
	})
}

func TestClaimTurnRefusesToReopenWhileAnotherTurnRunsOrOnceRetried(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		first := f.start(t, "one")
		_, err := f.store.ClaimTurn(ctx, first.ID, "run-1", -1, noFrames)
		require.NoError(t, err)
		f.finish(t, first, chat.StatusError, "")
		second := f.start(t, "two")

		_, err = f.store.ClaimTurn(ctx, first.ID, "run-2", -1, noFrames)
		require.ErrorIs(t, err, workspace.ErrConflict, "another turn of the conversation runs")
		require.ErrorContains(t, err, "another turn of conversation")
		got, _, err := f.store.GetTurn(ctx, first.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusError, got.Status, "left as it was")

		f.finish(t, second, chat.StatusDone, "")
		retry, err := f.store.RetryTurn(ctx, f.ann, first.ID)
		require.NoError(t, err)
		f.finish(t, retry, chat.StatusDone, "")
		_, err = f.store.ClaimTurn(ctx, first.ID, "run-2", -1, noFrames)
		require.ErrorIs(t, err, workspace.ErrConflict, "the retry answers its message")
		require.ErrorContains(t, err, retry.ID)

		// A turn ended with no run recorded (before runs were) reopens.
		old := f.exchange(t, "three", "answer")
		reopened, err := f.store.ClaimTurn(ctx, old.ID, "run-9", -1, noFrames)
		require.NoError(t, err)
		require.True(t, reopened)
	})
}
