package assistant_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
)

// Replies a turn must send back, and replies that must stand, before any
// tool ran (with a step with tools left).
func TestCheckAnswerBeforeAnyTool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		nudge string // "" when the reply stands
	}{
		// Lookups promised, none made.
		{"Let me check your tasks…", assistant.NudgeLookup},
		{"Let me check your tasks.", assistant.NudgeLookup},
		{"I'll look that up", assistant.NudgeLookup},
		{"I’ll look that up for you.", assistant.NudgeLookup},
		{"Sure! Let me quickly search for tasks assigned to Mira.", assistant.NudgeLookup},
		{"I will check what is due this week.", assistant.NudgeLookup},
		{"I'm going to pull up your projects first.", assistant.NudgeLookup},
		{"Let me see what's on your list.", assistant.NudgeLookup},
		{"Checking your tasks now…", assistant.NudgeLookup},
		{"Looking up the Launch project...", assistant.NudgeLookup},
		{"One moment while I find that.", assistant.NudgeLookup},
		{"Good question. Give me a second to go through your tasks.", assistant.NudgeLookup},
		{"I'm checking the people in this space.", assistant.NudgeLookup},
		{"To answer that, I need to look at your tasks. Let me do that now.", assistant.NudgeLookup},
		{"Sure, I can do that. Let me get started.", assistant.NudgeAnnouncedWrite},
		// Changes announced, none made.
		{"I'll create the task “Buy milk” now.", assistant.NudgeAnnouncedWrite},
		{"Proceeding to create the task.", assistant.NudgeAnnouncedWrite},
		{"I will now add the three tasks to Launch.", assistant.NudgeAnnouncedWrite},
		{"Creating the task for you now.", assistant.NudgeAnnouncedWrite},
		{"Got it. I'm going to move these to Friday.", assistant.NudgeAnnouncedWrite},
		{"Sure — let me add that.", assistant.NudgeAnnouncedWrite},
		// Calls written as text.
		{`hub_list_tasks({"status": "todo"})`, assistant.NudgeToolCallAsText},
		{"I'll call hub_create_tasks(tasks=[{\"title\": \"Buy milk\"}])", assistant.NudgeToolCallAsText},
		{"```json\n{\"name\": \"hub_create_tasks\", \"arguments\": {\"tasks\": [{\"title\": \"Buy milk\"}]}}\n```", assistant.NudgeToolCallAsText},
		{"<tool_call>{\"name\": \"hub_list_tasks\", \"arguments\": {}}</tool_call>", assistant.NudgeToolCallAsText},
		// Normal answers stand.
		{"Hello! What would you like to do with your tasks?", ""},
		{"Which project should I add it to: Launch or Hiring?", ""},
		{"Choices: “Draft brief” (due Friday) or “Draft brief” (due Monday) — which one?", ""},
		{"I can't do that: Hub has no tool to send email.", ""},
		{"Let me know if you want me to add anything else.", ""},
		{"If you'd like, I'll create a follow-up task.", ""},
		{"I'll need the project's name to do that. Which project?", ""},
		{"Would you like me to check your calendar?", ""},
		{"I can look that up if you tell me the project.", ""},
		{"Added “Let me check the boiler” to your list.", ""},
		{"Looking at your request, you want a weekly review. I can help with that once you pick a day.", ""},
		{"Let's see: you want three tasks, but I need their titles first. What should they be called?", ""},
		{"Adding a due date helps you keep track of it.", ""},
		{"I will not delete anything without your say.", ""},
		{"I use hub_list_tasks to read tasks; tell me which ones you mean.", ""},
		{"I'm not able to send email: Hub has no tool for that.", ""},
		{"Let me explain: a task is todo, doing or done.", ""},
		{"Let me be clear: nothing was deleted.", ""},
		{"No tasks match “invoices”.", ""},
		// The scripted model's own greeting (fakemodel/default_script.json).
		{`I am fakemodel, a scripted stand-in for a real model (Hub's offline demo and test double), so I understand only a few requests: "add a task called …" and "list my tasks". To talk to a real model, set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible endpoint).`, ""},
		{"I'm going to look into this for you.", assistant.NudgeLookup},
		{"Let me pull up the Launch project and then add the task.", assistant.NudgeLookup},
	} {
		t.Run(tc.text, func(t *testing.T) {
			nudge, ok := assistant.CheckAnswer(assistant.Answer{Text: tc.text, StepsLeft: 7})
			require.Equal(t, tc.nudge, nudge)
			require.Equal(t, tc.nudge == "", ok)
		})
	}
}

// After tools ran, a reply that writes a call as text or announces the next
// write goes back; a report of what the tools did stands.
func TestCheckAnswerAfterTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		nudge string
	}{
		{"I found the Launch project. Now I'll create the task in it.", assistant.NudgeAnnouncedWrite},
		{"Found 2 tasks due Friday. Proceeding to move them to Monday.", assistant.NudgeAnnouncedWrite},
		{"Got the ids. I will now add the subtasks.", assistant.NudgeAnnouncedWrite},
		{"Next, I'll assign both to Mira.", assistant.NudgeAnnouncedWrite},
		{"Mira is in the space. Assigning the task to her now…", assistant.NudgeAnnouncedWrite},
		{"Found it. Let me update the due date.", assistant.NudgeAnnouncedWrite},
		{"I'm now updating the three tasks.", assistant.NudgeAnnouncedWrite},
		{"Here is the call:\n```\nhub_update_tasks({\"updates\": [{\"id\": \"task_1\", \"status\": \"done\"}]})\n```", assistant.NudgeToolCallAsText},
		{"```hub_create_tasks\n{\"tasks\": [{\"title\": \"Buy milk\"}]}\n```", assistant.NudgeToolCallAsText},
		{`{"tool": "hub_delete_tasks", "args": {"ids": ["task_1"]}}`, assistant.NudgeToolCallAsText},
		{`[TOOL_CALLS] [{"name": "hub_list_people", "arguments": {}}]`, assistant.NudgeToolCallAsText},
		{`<function=hub_list_tasks>{"status": "todo"}</function>`, assistant.NudgeToolCallAsText},
		// What the spec sends back before tools ran, a lookup promise,
		// stands after: the model has looked.
		{"You have 3 open tasks. Let me check the projects too.", ""},
		// Answers that report the work stand.
		{"I checked: you have 3 tasks.", ""},
		{"Done — added “Buy milk”.", ""},
		{"Added 2 tasks: “Draft brief” and “Call Mira”.", ""},
		{"I moved “Draft brief” to Monday and assigned it to Mira.", ""},
		{"You have no tasks due this week. 🎉", ""},
		{"Here are your tasks:\n- Draft brief (due Friday)\n- Call Mira (due Monday)", ""},
		{"I couldn't find a project called Launch. Should I create it?", ""},
		{"“Buy milk” was added. Let me know if you need anything else!", ""},
		{"I've updated the task. I'll be here if you need more.", ""},
		{"Done. I've created the task and will update it once you send the date.", ""},
		{"Mira has 2 open tasks: “Draft brief” and “Call legal”.", ""},
		{"There are 4 people in this space: Mira, Ken, Ana and Li.", ""},
		{"I deleted the 3 finished tasks; you can undo that from the list.", ""},
		{"Two steps failed: the project is archived, so I did not add the tasks.", ""},
		{"Here is the result: Added 1 task: “Buy milk”.", ""},
		{"Done.", ""},
		{"Sure thing! You have 2 tasks due today: “Draft brief” and “Call Ken”.", ""},
	} {
		t.Run(tc.text, func(t *testing.T) {
			nudge, ok := assistant.CheckAnswer(assistant.Answer{Text: tc.text, ToolsRan: true, StepsLeft: 5})
			require.Equal(t, tc.nudge, nudge)
			require.Equal(t, tc.nudge == "", ok)
		})
	}
}

func TestCheckAnswerGoesBackOnceAndOnlyWithAStepLeft(t *testing.T) {
	t.Parallel()
	promise := assistant.Answer{Text: "Let me check your tasks…", StepsLeft: 2}
	_, ok := assistant.CheckAnswer(promise)
	require.False(t, ok, "the step before the last can still call a tool")

	promise.Nudged = true
	nudge, ok := assistant.CheckAnswer(promise)
	require.True(t, ok, "once nudged, the answer stands")
	require.Empty(t, nudge)

	promise.Nudged, promise.StepsLeft = false, 1
	_, ok = assistant.CheckAnswer(promise)
	require.True(t, ok, "only the tools-off step is left: no call can be made")

	promise.StepsLeft = 0
	_, ok = assistant.CheckAnswer(promise)
	require.True(t, ok, "the last step's answer stands")

	_, ok = assistant.CheckAnswer(assistant.Answer{Text: "  ", StepsLeft: 7})
	require.True(t, ok, "an empty reply is not for this check")
}

func TestCheckAnswerHeldWriteReportedAsDone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		done bool
	}{
		{"Done — added “Buy milk”.", true},
		{"I've added “Buy milk” to your list.", true},
		{"I added the task.", true},
		{"The task has been created.", true},
		{"“Buy milk” was added to Launch.", true},
		{"Both tasks are now marked done.", true},
		{"Created “Draft brief”, due Friday.", true},
		{"All set! Your tasks were moved to Monday.", true},
		{"Successfully deleted 3 tasks.", true},
		{"✅ Buy milk", true},
		{"It's been assigned to Mira.", true},
		{"I've proposed adding “Buy milk”; it waits for your Apply.", false},
		{"I prepared the task — click Apply to add it.", false},
		{"Proposed: “Buy milk”, due Friday. Nothing changes until you apply it.", false},
		{"“Buy milk” will be added once you apply.", false},
		{"The change is on your Needs me list.", false},
		{"I haven't added anything yet.", false},
		{"I have not created the task.", false},
		{"Nothing was deleted.", false},
		{"I checked: you have 3 tasks.", false},
		{"Your task “Done deal” is due Friday.", false},
	} {
		t.Run(tc.text, func(t *testing.T) {
			require.Equal(t, tc.done, assistant.ClaimsDone(tc.text))
			nudge, ok := assistant.CheckAnswer(assistant.Answer{Text: tc.text, ToolsRan: true, HeldWrites: true, StepsLeft: 1})
			require.Equal(t, !tc.done, ok)
			if tc.done {
				require.Equal(t, assistant.NudgeHeldDone, nudge, "the tools-off step can still answer again")
			}
		})
	}
	// Without a held write, a claim is what it should be.
	_, ok := assistant.CheckAnswer(assistant.Answer{Text: "Done — added “Buy milk”.", ToolsRan: true, StepsLeft: 5})
	require.True(t, ok)
	_, ok = assistant.CheckAnswer(assistant.Answer{Text: "Done — added “Buy milk”.", ToolsRan: true, HeldWrites: true, StepsLeft: 5, Nudged: true})
	require.True(t, ok, "once nudged, the answer stands")
}

func TestPromiseKinds(t *testing.T) {
	t.Parallel()
	require.Equal(t, assistant.PromiseLookup, assistant.Promise("Let me check your tasks…"))
	require.Equal(t, assistant.PromiseWrite, assistant.Promise("Proceeding to create the task"))
	require.Equal(t, assistant.NoPromise, assistant.Promise("I checked: you have 3 tasks."))
	require.Equal(t, assistant.NoPromise, assistant.Promise(""))
	require.Equal(t, assistant.NoPromise, assistant.Promise("I'll check your tasks. Here they are:\n\nYou have 3 tasks.\nThe first is due Friday."),
		"only the last two sentences are read")
}

func TestVerifyPolicy(t *testing.T) {
	t.Parallel()
	var p assistant.VerifyPolicy
	require.True(t, p.Allow(0, 7))
	require.True(t, p.Allow(1, 2))
	require.False(t, p.Allow(2, 7), "at most two rounds")
	require.False(t, p.Allow(0, 1), "only the tools-off step is left")
	require.False(t, p.Allow(0, 0))
	require.False(t, assistant.VerifyPolicy{MaxRounds: 1}.Allow(1, 7))
	require.Equal(t, 2, assistant.MaxVerifyRounds)

	var v assistant.Verifier = assistant.VerifierFunc(func(_ context.Context, in assistant.VerifyInput) (string, error) {
		if in.Round == 1 {
			return "the due date of “Buy milk”", nil
		}
		return "", nil
	})
	missing, err := v.Verify(context.Background(), assistant.VerifyInput{Request: "add buy milk due friday", Answer: "Added “Buy milk”.", Round: 1})
	require.NoError(t, err)
	note := assistant.VerifyNote(missing)
	require.Contains(t, note, "still missing from the request: the due date of “Buy milk”")
	missing, err = v.Verify(context.Background(), assistant.VerifyInput{Round: 2})
	require.NoError(t, err)
	require.Empty(t, missing)
}
