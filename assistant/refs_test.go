package assistant_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/chat"
	"hub/tools"
	"hub/workspace"
)

func TestHumanizeShowsTitlesForKnownIDs(t *testing.T) {
	t.Parallel()
	known := map[string]string{"task_ab": "Draft brief", "task_abc": "Call Mira"}
	require.Equal(t, "Moved “Call Mira” after “Draft brief”.", assistant.Humanize("Moved task_abc after task_ab.", known),
		"the longer id is replaced whole")
	require.Equal(t, "task_zz stays", assistant.Humanize("task_zz stays", known), "an unknown id is left alone")
}

func TestWritesNoteNamesWrittenRecordsWithTheirIDs(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(tools.ListTasks, tools.CreateTasks)
	ref := workspace.Ref{Kind: "task", ID: "task_1", Label: "Buy milk"}
	note := assistant.WritesNote([]chat.ToolCall{
		{Tool: "hub_list_tasks", Status: chat.CallDone, Summary: "Found 1 task: “Buy milk”.", Refs: []workspace.Ref{ref}},
		{Tool: "hub_create_tasks", Status: chat.CallDone, Summary: "Added 1 task: “Buy milk”.", Refs: []workspace.Ref{ref}},
		{Tool: "hub_create_tasks", Status: chat.CallFailed, Summary: "", ErrorCode: "invalid_payload"},
	}, reg)
	require.Equal(t, "Added 1 task: “Buy milk”. Records: [Buy milk](hub://task/task_1)", note, "only writes that happened, with links")
}

// A held write the person applied since is told as applied, with the
// records it changed.
func TestWritesNoteTellsAppliedWrites(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(tools.CreateTasks)
	ref := workspace.Ref{Kind: "task", ID: "task_1", Label: "Buy milk"}
	note := assistant.WritesNote([]chat.ToolCall{
		{Tool: "hub_create_tasks", Status: chat.CallApplied, Summary: "Add “Buy milk”.", Refs: []workspace.Ref{ref}},
	}, reg)
	require.Equal(t, "Proposed, then applied by the person: Add “Buy milk”. Records: [Buy milk](hub://task/task_1)", note)
}
