package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/stream"
	"hub/workflows"
)

// workflows and stream sit below chat (or beside it) and cannot name its
// constants, so they write the same values out; the api sees all three
// packages and holds them equal. A value that drifted would be a turn whose
// row, search attribute and frames disagree about how it ended.
func TestWorkflowWordsAreChatWords(t *testing.T) {
	for _, w := range []struct {
		written string
		chat    chat.Status
	}{
		{workflows.StatusQueued, chat.StatusQueued},
		{workflows.StatusWorking, chat.StatusWorking},
		{workflows.StatusPaused, chat.StatusPaused},
		{workflows.StatusStopped, chat.StatusStopped},
		{workflows.StatusDone, chat.StatusDone},
		{workflows.StatusError, chat.StatusError},
		{stream.StatusWorking, chat.StatusWorking},
	} {
		require.Equal(t, string(w.chat), w.written)
	}
	require.Equal(t, chat.ReceiptFailed, workflows.ReceiptFailed)
	require.Equal(t, chat.ReceiptUnknown, workflows.ReceiptUnknown)
	require.Equal(t, chat.PlanStepSucceeded, workflows.PlanStepSucceeded)
	require.Equal(t, chat.CallDone, stream.PhaseDone)
	require.Equal(t, chat.CallFailed, stream.PhaseFailed)
	require.Equal(t, chat.CallHeld, stream.PhaseHeld)
}
