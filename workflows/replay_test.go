package workflows

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
)

// TestReplayRecordedHistories replays every recorded turn history against
// the current code. A change to Turn that would break turns already running
// fails here; gate such a change with workflow.GetVersion. Record a new
// history with `HUB_RECORD_HISTORY=1 scripts/test.sh -run 'HistoryReplays|TestResetOfAFailed|TestAgentSchedules|TestCompletionPausedAndResumed' ./e2e`
// (e2e/history_test.go says which file holds what; revert the Apply files
// if they were not meant to change).
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "recorded histories belong in testdata")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(Turn)
			r.RegisterWorkflow(Apply)
			r.RegisterWorkflow(ScheduledTurn)
			r.RegisterWorkflow(Completion)
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
