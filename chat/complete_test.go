package chat_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"hub/chat"
	"hub/models"
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

		_, err = f.store.CompleteToolCall(ctx, calls[0].ID, done, func(tx *gorm.DB) error {
			// Written in the outcome's transaction: rolled back with it.
			if err := tx.Model(&models.Turn{}).Where("id = ?", turn.ID).Update("frame_seq", 99).Error; err != nil {
				return err
			}
			return lost
		})
		require.ErrorIs(t, err, lost)
		call, err := f.store.GetToolCall(ctx, calls[0].ID)
		require.NoError(t, err)
		require.Equal(t, chat.CallPending, call.Status, "the outcome went with what failed")
		var seq int64
		require.NoError(t, f.db.Model(&models.Turn{}).Where("id = ?", turn.ID).Select("frame_seq").Scan(&seq).Error)
		require.NotEqual(t, int64(99), seq, "what went with it was rolled back too")

		ran := 0
		won, err := f.store.CompleteToolCall(ctx, calls[0].ID, done, func(*gorm.DB) error { ran++; return nil })
		require.NoError(t, err)
		require.True(t, won)
		require.Equal(t, 1, ran)
		won, err = f.store.CompleteToolCall(ctx, calls[0].ID, done, func(*gorm.DB) error { ran++; return nil })
		require.NoError(t, err)
		require.False(t, won, "recorded already")
		require.Equal(t, 1, ran, "nothing goes with an outcome this call did not write")
	})
}
