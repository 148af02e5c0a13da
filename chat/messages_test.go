package chat_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
)

func TestMessagesCarryTheirTurnsToolCalls(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		first := f.start(t, "List my tasks")
		calls, err := f.store.SaveStep(ctx, first.ID, chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{
			{Tool: "hub_list_tasks", Arguments: `{}`},
			{Tool: "hub_list_projects", Arguments: `{}`},
		}})
		require.NoError(t, err)
		_, err = f.store.SaveStep(ctx, first.ID, chat.Step{Step: 2, Attempt: 1, ToolCalls: []chat.ToolCall{
			{Tool: "hub_create_tasks", Arguments: `{"tasks":[]}`},
		}})
		require.NoError(t, err)
		_, err = f.store.CompleteToolCall(ctx, calls[0].ID, chat.Outcome{Status: chat.CallDone, Summary: "Found 2 tasks."})
		require.NoError(t, err)
		f.finish(t, first, chat.StatusDone, "You have two tasks.")
		f.exchange(t, "Thanks", "You're welcome.")

		msgs, err := f.store.Messages(ctx, f.ann, f.conv.ID)
		require.NoError(t, err)
		require.Equal(t, []string{
			"user: List my tasks", "assistant: You have two tasks.", "user: Thanks", "assistant: You're welcome.",
		}, texts(msgs), "oldest first")
		require.Empty(t, msgs[0].ToolCalls, "the person's message has none")
		require.Len(t, msgs[1].ToolCalls, 3, "the reply carries every call of its turn")
		var tools []string
		for _, c := range msgs[1].ToolCalls {
			tools = append(tools, c.Tool)
		}
		require.Equal(t, []string{"hub_list_tasks", "hub_list_projects", "hub_create_tasks"}, tools, "by step and position")
		require.Equal(t, "Found 2 tasks.", msgs[1].ToolCalls[0].Summary)
		require.Equal(t, chat.CallDone, msgs[1].ToolCalls[0].Status)
		require.Equal(t, chat.CallPending, msgs[1].ToolCalls[1].Status)
		require.Empty(t, msgs[3].ToolCalls, "another turn's reply has its own (none)")
	})
}

func TestHistory(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		// Eight finished exchanges: sixteen messages, more than the limit.
		for i := range 8 {
			f.exchange(t, fmt.Sprint("q", i), fmt.Sprint("a", i))
		}
		// An error turn: neither its question nor its partial text is history.
		f.finish(t, f.start(t, "failed question"), chat.StatusError, "partial text")
		// A stopped turn keeps what was said.
		f.finish(t, f.start(t, "stop me"), chat.StatusStopped, "stopped answer")
		// A turn whose reply is empty contributes the question only.
		f.exchange(t, "silent", "")
		current := f.start(t, "the new question")

		history, err := f.store.History(ctx, current)
		require.NoError(t, err)
		require.Len(t, history, chat.HistoryLimit)
		require.Equal(t, []string{
			"assistant: a3",
			"user: q4", "assistant: a4",
			"user: q5", "assistant: a5",
			"user: q6", "assistant: a6",
			"user: q7", "assistant: a7",
			"user: stop me", "assistant: stopped answer",
			"user: silent",
		}, texts(history), "the last twelve, oldest first")
		for _, m := range history {
			require.NotEqual(t, "running", m.Status)
			require.NotEqual(t, current.ID, m.TurnID, "never the current turn")
		}
	})
}

func TestHistoryOfAShortConversation(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		first := f.start(t, "first")
		history, err := f.store.History(ctx, first)
		require.NoError(t, err)
		require.Empty(t, history, "the first turn has no history")
		f.finish(t, first, chat.StatusDone, "one")

		failed := f.finish(t, f.start(t, "broken"), chat.StatusError, "")
		retry, err := f.store.RetryTurn(ctx, f.ann, failed.ID)
		require.NoError(t, err)
		history, err = f.store.History(ctx, retry)
		require.NoError(t, err)
		require.Equal(t, []string{"user: first", "assistant: one"}, texts(history),
			"a retry sees what came before its message, not the message itself")

		f.finish(t, retry, chat.StatusDone, "fixed")
		next := f.start(t, "next")
		history, err = f.store.History(ctx, next)
		require.NoError(t, err)
		require.Equal(t, []string{"user: first", "assistant: one", "user: broken", "assistant: fixed"}, texts(history),
			"the retried message is history with the retry's answer")
	})
}
