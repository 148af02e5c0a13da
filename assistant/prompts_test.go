package assistant_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/tools"
)

// Every prompt Hub sends stays within its budget.
func TestCatalogWithinBudgets(t *testing.T) {
	t.Parallel()
	catalog := assistant.Catalog()
	seen := map[string]bool{}
	for _, p := range catalog {
		t.Run(p.Name, func(t *testing.T) {
			require.False(t, seen[p.Name], "names are unique")
			seen[p.Name] = true
			require.NotEmpty(t, p.Description)
			require.NotEmpty(t, strings.TrimSpace(p.Text))
			require.Positive(t, p.Budget)
			require.LessOrEqual(t, p.Tokens(), p.Budget, "over budget:\n%s", p.Text)
		})
	}
}

// The catalog holds what the builders send, not copies of it.
func TestCatalogIsBuiltByTheBuilders(t *testing.T) {
	t.Parallel()
	byName := map[string]assistant.Prompt{}
	for _, p := range assistant.Catalog() {
		byName[p.Name] = p
	}
	for _, policy := range []string{"immediate", "preview", "needs-me"} {
		p, ok := byName["instructions."+policy]
		require.True(t, ok, policy)
		require.Contains(t, p.Text, assistant.WriteModeNote(policy))
		require.Contains(t, p.Text, "Only tool calls do anything")
	}
	require.True(t, strings.HasPrefix(byName["context"].Text, "<context>\nToday: Monday, 2026-03-02"))
	require.Contains(t, byName["context"].Text, "- [Draft brief](hub://task/task_1)")
	require.Contains(t, byName["context"].Text, `On screen: {"view":"board"`)
	require.Equal(t, assistant.FinalStepNote, byName["final-step"].Text)
	require.Equal(t, assistant.HeldWriteNote, byName["held-write"].Text)
	require.Contains(t, byName["tool-unfinished"].Text, "did not finish")
	require.Contains(t, byName["history-writes"].Text, "Records: [Draft brief](hub://task/task_1)")
	require.Contains(t, byName["history-writes"].Text, "Proposed (waiting for Apply)")
	for name, text := range map[string]string{
		"nudge.lookup": assistant.NudgeLookup, "nudge.tool-call-as-text": assistant.NudgeToolCallAsText,
		"nudge.announced-write": assistant.NudgeAnnouncedWrite, "nudge.held-done": assistant.NudgeHeldDone,
	} {
		require.Equal(t, text, byName[name].Text, name)
	}
	require.Contains(t, byName["verify"].Text, "still missing")

	// Every tool Hub can offer is listed with the schema it is sent with.
	reg := tools.Hub(nil)
	for _, name := range []string{"hub_list_tasks", "hub_create_tasks", "hub_update_tasks", "hub_delete_tasks"} {
		p, ok := byName["tool."+name]
		require.True(t, ok, name)
		d, _ := reg.Get(name)
		require.Contains(t, p.Text, string(d.Schema))
	}
	_, ok := byName["playbook.tasks"]
	require.True(t, ok, "playbooks are prompts too")
}

// The held-write note says what the instructions say: proposed, not done.
func TestHeldWriteNote(t *testing.T) {
	t.Parallel()
	require.Contains(t, assistant.HeldWriteNote, "Proposed, not done")
	require.False(t, assistant.ClaimsDone(assistant.HeldWriteNote), "the note itself is no claim")
}

// Scripts of the scripted model answer a resumed call by these words of
// ContinueNote (fakemodel/default_script.json, the e2e and console tests):
// a change to the note must keep them, or change those scripts with it.
func TestContinueNoteKeepsTheWordsScriptsMatch(t *testing.T) {
	require.Contains(t, assistant.ContinueNote, "cut off by a pause")
}
