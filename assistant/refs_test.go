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

// An applied workflow is told step by step (its receipt's summary), with
// the records every step changed; one whose Apply stopped partway says
// what was done and where it stopped.
func TestWritesNoteTellsAppliedWorkflowsStepByStep(t *testing.T) {
	t.Parallel()
	reg := tools.NewRegistry(tools.CreateTasks, tools.CreateProject)
	reg.Add(tools.RunPlan(reg))
	project := workspace.Ref{Kind: "project", ID: "project_1", Label: "Launch"}
	task := workspace.Ref{Kind: "task", ID: "task_1", Label: "Write the announcement"}
	applied := chat.ToolCall{Tool: tools.PlanTool, Status: chat.CallApplied, Summary: "Run 2 steps in order: …",
		Refs: []workspace.Ref{project, task}, Receipt: &chat.Receipt{Status: chat.ReceiptSucceeded,
			Summary: "1. Created 1 project: “Launch”. 2. Added 1 task: “Write the announcement”.", Refs: []workspace.Ref{project, task}}}
	require.Equal(t, "Proposed, then applied by the person: 1. Created 1 project: “Launch”. 2. Added 1 task: “Write the announcement”. "+
		"Records: [Launch](hub://project/project_1), [Write the announcement](hub://task/task_1)", assistant.WritesNote([]chat.ToolCall{applied}, reg))

	partly := chat.ToolCall{Tool: tools.PlanTool, Status: chat.CallHeld, Summary: "Run 2 steps in order: …",
		Receipt: &chat.Receipt{Status: chat.ReceiptFailed, Summary: "1. Created 1 project: “Launch”.",
			ErrorMessage: "Finished 1 of 2 steps. step 2 (tasks) failed: no.", Refs: []workspace.Ref{project}}}
	require.Equal(t, "Proposed; the person's Apply did part of it: 1. Created 1 project: “Launch”. Finished 1 of 2 steps. step 2 (tasks) failed: no. "+
		"Records: [Launch](hub://project/project_1)", assistant.WritesNote([]chat.ToolCall{partly}, reg))
}
