package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
	"hub/workspace"
)

func TestToolCallID(t *testing.T) {
	t.Parallel()
	require.Equal(t, "turn_x.2.0", chat.ToolCallID("turn_x", 2, 0))
	require.NotEqual(t, chat.ToolCallID("turn_x", 1, 12), chat.ToolCallID("turn_x", 11, 2))
}

func TestSaveStepAndCompleteToolCalls(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "Add two tasks")
		step := chat.Step{Step: 1, Attempt: 1, Text: "Let me look.", FinishReason: "tool_calls",
			Usage: chat.Usage{InputTokens: 100, OutputTokens: 20},
			ToolCalls: []chat.ToolCall{
				{ProviderCallID: "call_a", Tool: "hub_list_tasks", Arguments: `{"query":"brief"}`},
				{ProviderCallID: "call_b", Tool: "hub_list_people", Arguments: `{}`},
			}}
		calls, err := f.store.SaveStep(ctx, turn.ID, step)
		require.NoError(t, err)
		require.Len(t, calls, 2)
		for i, c := range calls {
			require.Equal(t, chat.ToolCallID(turn.ID, 1, i), c.ID, "a stable id from turn, step and position")
			require.Equal(t, chat.CallPending, c.Status)
			require.False(t, c.Final())
			require.Equal(t, step.ToolCalls[i].Tool, c.Tool)
			require.Equal(t, step.ToolCalls[i].Arguments, c.Arguments)
			require.Equal(t, step.ToolCalls[i].ProviderCallID, c.ProviderCallID)
		}

		refs := []workspace.Ref{{Kind: "task", ID: "task_1", Label: "Draft brief"}}
		first := chat.Outcome{Status: chat.CallDone, Result: `{"summary":"Found 1 task"}`, Summary: "Found 1 task: “Draft brief”.", Refs: refs}
		ok, err := f.store.CompleteToolCall(ctx, calls[0].ID, first)
		require.NoError(t, err)
		require.True(t, ok)

		// A second completion (a retried activity) reports false and keeps
		// the first outcome.
		ok, err = f.store.CompleteToolCall(ctx, calls[0].ID, chat.Outcome{Status: chat.CallFailed, ErrorCode: "failed", ErrorMessage: "again"})
		require.NoError(t, err)
		require.False(t, ok)
		got, err := f.store.GetToolCall(ctx, calls[0].ID)
		require.NoError(t, err)
		require.Equal(t, chat.CallDone, got.Status)
		require.True(t, got.Final())
		require.Equal(t, first.Result, got.Result)
		require.Equal(t, first.Summary, got.Summary)
		require.Equal(t, refs, got.Refs)
		require.Empty(t, got.ErrorCode)

		ok, err = f.store.CompleteToolCall(ctx, "turn_missing.1.0", first)
		require.NoError(t, err)
		require.False(t, ok, "no such call")
		_, err = f.store.GetToolCall(ctx, "turn_missing.1.0")
		requireNotFound(t, err, "tool call")

		steps, err := f.store.Steps(ctx, turn.ID, 2)
		require.NoError(t, err)
		require.Len(t, steps, 1)
		s := steps[0]
		require.Equal(t, 1, s.Step)
		require.Equal(t, 1, s.Attempt)
		require.Equal(t, "Let me look.", s.Text)
		require.Equal(t, "tool_calls", s.FinishReason)
		require.Equal(t, chat.Usage{InputTokens: 100, OutputTokens: 20}, s.Usage)
		require.Len(t, s.ToolCalls, 2)
		require.Equal(t, chat.CallDone, s.ToolCalls[0].Status, "with each call's current outcome")
		require.Equal(t, first.Result, s.ToolCalls[0].Result)
		require.Equal(t, chat.CallPending, s.ToolCalls[1].Status)

		none, err := f.store.Steps(ctx, turn.ID, 1)
		require.NoError(t, err)
		require.Empty(t, none, "only steps before the one asked for")
	})
}

// A step saved again with the same answer (an activity retried, or replayed
// after an operator's reset) keeps the calls that already ran.
func TestSaveStepAgainKeepsCompletedCalls(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "Add two tasks")
		step := chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{
			{ProviderCallID: "call_a", Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"A"}]}`},
			{ProviderCallID: "call_b", Tool: "hub_list_tasks", Arguments: `{}`},
		}}
		calls, err := f.store.SaveStep(ctx, turn.ID, step)
		require.NoError(t, err)
		ok, err := f.store.CompleteToolCall(ctx, calls[0].ID, chat.Outcome{Status: chat.CallDone, Result: "created", Summary: "Added 1 task: “A”."})
		require.NoError(t, err)
		require.True(t, ok)

		step.Attempt = 2
		again, err := f.store.SaveStep(ctx, turn.ID, step)
		require.NoError(t, err)
		require.Len(t, again, 2)
		require.Equal(t, chat.CallDone, again[0].Status, "the write that ran is not pending again")
		require.Equal(t, "created", again[0].Result)
		require.Equal(t, chat.CallPending, again[1].Status)

		ok, err = f.store.CompleteToolCall(ctx, again[0].ID, chat.Outcome{Status: chat.CallDone, Result: "twice"})
		require.NoError(t, err)
		require.False(t, ok, "so it is not completed, or run, twice")

		steps, err := f.store.Steps(ctx, turn.ID, 9)
		require.NoError(t, err)
		require.Len(t, steps, 1, "one row per step")
		require.Equal(t, 2, steps[0].Attempt)
		require.Equal(t, "created", steps[0].ToolCalls[0].Result)
		require.EqualValues(t, 2, f.count(t, &storage.ToolCall{}, "turn_id = ?", turn.ID))
	})
}

// A step answered differently on its next attempt replaces the calls of the
// earlier attempt.
func TestSaveStepWithADifferentAnswer(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "Add tasks")
		calls, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 1, Attempt: 1, Text: "first", ToolCalls: []chat.ToolCall{
			{ProviderCallID: "a", Tool: "hub_list_tasks", Arguments: `{}`},
			{ProviderCallID: "b", Tool: "hub_list_people", Arguments: `{}`},
			{ProviderCallID: "c", Tool: "hub_list_projects", Arguments: `{}`},
		}})
		require.NoError(t, err)
		ok, err := f.store.CompleteToolCall(ctx, calls[0].ID, chat.Outcome{Status: chat.CallDone, Result: "tasks"})
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = f.store.CompleteToolCall(ctx, calls[1].ID, chat.Outcome{Status: chat.CallDone, Result: "people"})
		require.NoError(t, err)
		require.True(t, ok)

		second, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 1, Attempt: 2, Text: "second", ToolCalls: []chat.ToolCall{
			{ProviderCallID: "a2", Tool: "hub_list_tasks", Arguments: `{}`},                // same as before: keeps its outcome
			{ProviderCallID: "b2", Tool: "hub_list_people", Arguments: `{"query":"mira"}`}, // other arguments: pending again
		}})
		require.NoError(t, err)
		require.Len(t, second, 2)
		require.Equal(t, chat.CallDone, second[0].Status)
		require.Equal(t, "tasks", second[0].Result)
		require.Equal(t, chat.CallPending, second[1].Status)
		require.Empty(t, second[1].Result)
		require.Equal(t, `{"query":"mira"}`, second[1].Arguments)
		require.Equal(t, "b2", second[1].ProviderCallID)

		steps, err := f.store.Steps(ctx, turn.ID, 2)
		require.NoError(t, err)
		require.Len(t, steps, 1)
		require.Equal(t, "second", steps[0].Text)
		require.Len(t, steps[0].ToolCalls, 2, "the third call of the first attempt is gone")
		require.Equal(t, `{"query":"mira"}`, steps[0].ToolCalls[1].Arguments)

		// A step without calls removes the earlier attempt's calls.
		_, err = f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 1, Attempt: 3, Text: "just text"})
		require.NoError(t, err)
		steps, err = f.store.Steps(ctx, turn.ID, 2)
		require.NoError(t, err)
		require.Empty(t, steps[0].ToolCalls)
		require.Zero(t, f.count(t, &storage.ToolCall{}, "turn_id = ?", turn.ID))
	})
}

func TestStepsInOrder(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "x")
		for _, n := range []int{3, 1, 2} {
			var calls []chat.ToolCall
			for range n {
				calls = append(calls, chat.ToolCall{Tool: "hub_list_tasks", Arguments: "{}"})
			}
			_, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: n, Attempt: 1, ToolCalls: calls})
			require.NoError(t, err)
		}
		// A step without calls is listed too.
		_, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 4, Attempt: 1, Text: "done"})
		require.NoError(t, err)
		steps, err := f.store.Steps(ctx, turn.ID, 100)
		require.NoError(t, err)
		require.Len(t, steps, 4)
		require.Equal(t, "done", steps[3].Text)
		require.Empty(t, steps[3].ToolCalls)
		steps = steps[:3]
		for i, s := range steps {
			require.Equal(t, i+1, s.Step)
			require.Len(t, s.ToolCalls, s.Step)
			for j, c := range s.ToolCalls {
				require.Equal(t, chat.ToolCallID(turn.ID, s.Step, j), c.ID)
			}
		}
	})
}

// A step's nudge keeps its kind, so the next model call counts verify
// rounds by it.
func TestStepKeepsItsNudgeKind(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "x")
		for i, kind := range []chat.NudgeKind{chat.NudgeAnswer, chat.NudgeVerify, ""} {
			note := map[chat.NudgeKind]string{chat.NudgeAnswer: "Call the tool now.", chat.NudgeVerify: "Still missing: dates."}[kind]
			_, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: i + 1, Attempt: 1, Text: "t", Nudge: note, NudgeKind: kind})
			require.NoError(t, err)
		}
		// A step without calls is listed too.
		_, err := f.store.SaveStep(ctx, turn.ID, chat.Step{Step: 4, Attempt: 1, Text: "done"})
		require.NoError(t, err)
		steps, err := f.store.Steps(ctx, turn.ID, 100)
		require.NoError(t, err)
		require.Len(t, steps, 4)
		require.Equal(t, "done", steps[3].Text)
		require.Empty(t, steps[3].ToolCalls)
		steps = steps[:3]
		require.Equal(t, []chat.NudgeKind{chat.NudgeAnswer, chat.NudgeVerify, ""},
			[]chat.NudgeKind{steps[0].NudgeKind, steps[1].NudgeKind, steps[2].NudgeKind})
	})
}
