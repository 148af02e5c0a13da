package chat_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
	"hub/workspace"
)

func TestConversationsBelongToTheirPerson(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		require.True(t, strings.HasPrefix(f.conv.ID, "conv_"))
		require.Equal(t, f.space, f.conv.SpaceID)
		require.Equal(t, f.ann, f.conv.PersonID)
		require.Equal(t, "Planning", f.conv.Title)

		got, err := f.store.GetConversation(ctx, f.ann, f.conv.ID)
		require.NoError(t, err)
		require.Equal(t, f.conv.ID, got.ID)

		// Bob shares the space but not Ann's conversation: not found, as a
		// conversation that does not exist.
		for _, id := range []string{f.conv.ID, "conv_missing"} {
			_, err = f.store.GetConversation(ctx, f.bob, id)
			requireNotFound(t, err, "conversation")
			_, err = f.store.Messages(ctx, f.bob, id)
			requireNotFound(t, err, "conversation")
			_, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: id, PersonID: f.bob, Text: "hi"})
			requireNotFound(t, err, "conversation")
			_, err = f.store.DeleteConversation(ctx, f.bob, id)
			requireNotFound(t, err, "conversation")
		}
		_, err = f.store.GetConversation(ctx, f.ann, f.conv.ID)
		require.NoError(t, err, "Bob's delete did nothing")

		bobs, err := f.store.CreateConversation(ctx, f.bob, f.space, "", "")
		require.NoError(t, err)
		second, err := f.store.CreateConversation(ctx, f.ann, f.space, "Second", "")
		require.NoError(t, err)

		list, err := f.store.ListConversations(ctx, f.ann, f.space)
		require.NoError(t, err)
		require.Equal(t, []string{second.ID, f.conv.ID}, convIDs(list), "newest first, only Ann's")

		// A turn makes its conversation the most recently active.
		f.start(t, "hello")
		list, err = f.store.ListConversations(ctx, f.ann, f.space)
		require.NoError(t, err)
		require.Equal(t, []string{f.conv.ID, second.ID}, convIDs(list))

		list, err = f.store.ListConversations(ctx, f.bob, f.space)
		require.NoError(t, err)
		require.Equal(t, []string{bobs.ID}, convIDs(list))
		list, err = f.store.ListConversations(ctx, f.ann, "space_other")
		require.NoError(t, err)
		require.Empty(t, list)
	})
}

func convIDs(cs []chat.Conversation) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func requireNotFound(t *testing.T, err error, kind string) {
	t.Helper()
	require.ErrorIs(t, err, workspace.ErrNotFound)
	var nf *workspace.NotFoundError
	require.ErrorAs(t, err, &nf)
	require.Equal(t, kind, nf.Kind)
}

func TestDeleteConversation(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		done := f.exchange(t, "first", "answer")
		_, err := f.store.SaveStep(ctx, done.ID, chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{{Tool: "hub_list_tasks", Arguments: "{}"}}})
		require.NoError(t, err)
		running := f.start(t, "second")
		_, err = f.store.SaveStep(ctx, running.ID, chat.Step{Step: 1, Attempt: 1, ToolCalls: []chat.ToolCall{{Tool: "hub_list_tasks", Arguments: "{}"}}})
		require.NoError(t, err)

		other, err := f.store.CreateConversation(ctx, f.ann, f.space, "Other", "agent_brief")
		require.NoError(t, err)
		kept, err := f.store.StartTurn(ctx, chat.NewTurn{ConversationID: other.ID, PersonID: f.ann, Text: "keep me"})
		require.NoError(t, err)

		d, err := f.store.DeleteConversation(ctx, f.ann, f.conv.ID)
		require.NoError(t, err)
		require.Equal(t, []string{running.ID}, d.RunningTurns, "the turns still running, for the caller to end")

		_, err = f.store.GetConversation(ctx, f.ann, f.conv.ID)
		requireNotFound(t, err, "conversation")
		require.Zero(t, f.count(t, &storage.Message{}, "conversation_id = ?", f.conv.ID))
		require.Zero(t, f.count(t, &storage.Turn{}, "conversation_id = ?", f.conv.ID))
		require.Zero(t, f.count(t, &storage.TurnStep{}, "turn_id IN ?", []string{done.ID, running.ID}))
		require.Zero(t, f.count(t, &storage.ToolCall{}, "turn_id IN ?", []string{done.ID, running.ID}))
		_, _, err = f.store.GetTurn(ctx, running.ID)
		requireNotFound(t, err, "turn")

		// The other conversation is untouched.
		msgs, err := f.store.Messages(ctx, f.ann, other.ID)
		require.NoError(t, err)
		require.Len(t, msgs, 2)
		_, _, err = f.store.GetTurn(ctx, kept.ID)
		require.NoError(t, err)

		d, err = f.store.DeleteConversation(ctx, f.ann, other.ID)
		require.NoError(t, err)
		require.Equal(t, []string{kept.ID}, d.RunningTurns)
		// An agent's running turn leaves the top bar as the agent's work.
		require.NoError(t, f.store.AnnounceDeleted(ctx, f.ann, other.ID, d))
		frames, err := f.store.WorkFrames(ctx, f.ann, 0)
		require.NoError(t, err)
		last := frames[len(frames)-1].Work
		require.Equal(t, chat.Work{Kind: chat.WorkAgent, ID: kept.ID, ConversationID: other.ID, Status: chat.StatusStopped, Ended: true}, last)
		d, err = f.store.DeleteConversation(ctx, f.ann, other.ID)
		requireNotFound(t, err, "conversation")
		require.Empty(t, d.RunningTurns)
	})
}
