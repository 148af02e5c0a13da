package chat_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
)

// CompleteToolCall runs what goes with an outcome (a tool call's done
// frame) in the outcome's transaction: when it fails, no outcome is
// recorded, so the activity's retry runs the call's recording again
// instead of finding it done with no frame; when the call had an outcome
// already, it does not run.
func TestCompleteToolCallCommitsWhatGoesWithIt(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "list my tasks")
		calls, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 1, Attempt: 1,
			ToolCalls: []chat.ToolCall{{Tool: "hub_list_tasks", Arguments: `{}`}}})
		require.NoError(t, err)
		done := chat.Outcome{Status: chat.CallDone, Summary: "Found 2 tasks."}
		lost := errors.New("the frame could not be stored")

		_, err = f.store.CompleteToolCall(ctx, calls[0].ID, done, func(ctx context.Context) error {
			tx := f.db.Q(ctx)
			// Written in the outcome's transaction: rolled back with it.
			if err := tx.Model(&storage.Turn{}).Where("id = ?", turn.ID).Update("frame_seq", 99).Error; err != nil {
				return err
			}
			return lost
		})
		require.ErrorIs(t, err, lost)
		call, err := f.store.GetToolCall(ctx, calls[0].ID)
		require.NoError(t, err)
		require.Equal(t, chat.CallPending, call.Status, "the outcome went with what failed")
		var seq int64
		require.NoError(t, f.db.Model(&storage.Turn{}).Where("id = ?", turn.ID).Select("frame_seq").Scan(&seq).Error)
		require.NotEqual(t, int64(99), seq, "what went with it was rolled back too")

		ran := 0
		won, err := f.store.CompleteToolCall(ctx, calls[0].ID, done, func(context.Context) error { ran++; return nil })
		require.NoError(t, err)
		require.True(t, won)
		require.Equal(t, 1, ran)
		won, err = f.store.CompleteToolCall(ctx, calls[0].ID, done, func(context.Context) error { ran++; return nil })
		require.NoError(t, err)
		require.False(t, won, "recorded already")
		require.Equal(t, 1, ran, "nothing goes with an outcome this call did not write")
	})
}

// TestSaveStepCommitsWhatGoesWithIt: what ends a model call runs in the
// transaction of its step: when it fails, the step and its calls are not
// saved either.
func TestSaveStepCommitsWhatGoesWithIt(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "list my tasks")
		lost := errors.New("the settle failed")
		st := chat.Step{Step: 1, Attempt: 1, Text: "Looking.", ToolCalls: []chat.ToolCall{{Tool: "hub_list_tasks", Arguments: `{}`}}}
		err := f.db.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.store.SaveStep(ctx, turn.ID, st); err != nil {
				return err
			}
			return lost
		})
		require.ErrorIs(t, err, lost)
		steps, err := f.store.Steps(ctx, turn.ID, 2)
		require.NoError(t, err)
		require.Empty(t, steps, "the step went with what failed")
		var n int64
		require.NoError(t, f.db.Model(&storage.ToolCall{}).Where("turn_id = ?", turn.ID).Count(&n).Error)
		require.Zero(t, n, "and its calls")

		calls, err := f.store.SaveStep(ctx, turn.ID, st)
		require.NoError(t, err)
		require.Len(t, calls, 1)
	})
}

// TestClaimGoesWithItsTransaction: the first run's claim rides the
// status change that marks the turn working, with the run record; a turn
// claimed meanwhile refuses it, and nothing of the transaction commits.
func TestClaimGoesWithItsTransaction(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "list my tasks")
		rec := chat.RunRecord{Model: "m", Instructions: "Be brief."}
		require.NoError(t, f.db.InTx(ctx, claimWith(f, turn.ID, "run-1", rec)))
		got, _, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, "run-1", got.RunID)
		require.Equal(t, chat.StatusWorking, got.Status)
		_, saved, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, "Be brief.", saved.Instructions)

		f.finish(t, got, chat.StatusDone, "Done.")
		other := f.start(t, "and another")
		require.NoError(t, f.db.Model(&storage.Turn{}).Where("id = ?", other.ID).Update("run_id", "run-2").Error)
		err = f.db.InTx(ctx, claimWith(f, other.ID, "run-3", rec))
		require.ErrorIs(t, err, chat.ErrClaimedMeanwhile)
		got, _, err = f.store.GetTurn(ctx, other.ID)
		require.NoError(t, err)
		require.Equal(t, "run-2", got.RunID)
		require.Equal(t, chat.StatusQueued, got.Status, "the status went with the claim")
		_, saved, err = f.store.GetTurn(ctx, other.ID)
		require.NoError(t, err)
		require.Empty(t, saved.Instructions, "and the record")
	})
}

// claimWith marks the turn working, claims it for runID and saves its run
// record in one transaction, as PrepareTurn does.
func claimWith(f *fixture, turnID, runID string, rec chat.RunRecord) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := f.store.MarkWorking(ctx, turnID, 0); err != nil {
			return err
		}
		if err := f.store.Claim(ctx, turnID, runID); err != nil {
			return err
		}
		return f.store.SaveRunRecord(ctx, turnID, rec)
	}
}
