package chat_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
	"hub/workspace"
)

// TestReadsCheckCurrentAccess: every getter that reads a person's records
// checks, in its own query, that they can open the space now: once Ann's
// membership is gone her conversation, its messages, turns, running turns,
// held calls and work frames are not found, as if they never existed;
// the worker's own reads (GetTurn) still find them.
func TestReadsCheckCurrentAccess(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		done := f.exchange(t, "first", "an answer")
		running := f.start(t, "second")
		_, err := f.store.SaveStep(ctx, running.ID, chat.Step{Step: 1, ToolCalls: []chat.ToolCall{{Tool: "hub_create_tasks", Arguments: "{}"}}})
		require.NoError(t, err)
		won, err := f.store.CompleteToolCall(ctx, chat.ToolCallID(running.ID, 1, 0), chat.Outcome{Status: chat.CallHeld, HeldFor: chat.HeldForNeedsMe, Summary: "Create a task"})
		require.NoError(t, err)
		require.True(t, won)

		reads := func() []error {
			_, e1 := f.store.GetConversation(ctx, f.ann, f.conv.ID)
			_, e2 := f.store.Messages(ctx, f.ann, f.conv.ID)
			_, e3 := f.store.GetTurnFor(ctx, f.ann, done.ID)
			_, e4 := f.store.GetTurnFor(ctx, f.ann, running.ID)
			_, e5 := f.store.Proposal(ctx, f.ann, f.conv.ID, running.ReplyMessageID)
			return []error{e1, e2, e3, e4, e5}
		}
		for _, err := range reads() {
			require.NoError(t, err)
		}
		turns, err := f.store.RunningTurns(ctx, f.ann)
		require.NoError(t, err)
		require.Len(t, turns, 1)
		held, err := f.store.HeldCalls(ctx, f.ann, chat.HeldForNeedsMe)
		require.NoError(t, err)
		require.Len(t, held, 1)

		require.NoError(t, f.db.Where("space_id = ? AND person_id = ?", f.space, f.ann).Delete(&storage.Membership{}).Error)

		for i, err := range reads() {
			require.ErrorIs(t, err, workspace.ErrNotFound, "read %d", i)
		}
		turns, err = f.store.RunningTurns(ctx, f.ann)
		require.NoError(t, err)
		require.Empty(t, turns)
		held, err = f.store.HeldCalls(ctx, f.ann, chat.HeldForNeedsMe)
		require.NoError(t, err)
		require.Empty(t, held)
		convs, err := f.store.ListConversations(ctx, f.ann, f.space)
		require.NoError(t, err)
		require.Empty(t, convs)
		_, err = f.store.RetryTurn(ctx, f.ann, done.ID)
		require.ErrorIs(t, err, workspace.ErrNotFound)
		_, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: f.conv.ID, PersonID: f.ann, Text: "third"})
		require.ErrorIs(t, err, workspace.ErrNotFound)
		_, err = f.store.DeleteConversation(ctx, f.ann, f.conv.ID)
		require.ErrorIs(t, err, workspace.ErrNotFound)
		left, err := f.store.UnfinishedTurnsIn(ctx, f.ann, f.space)
		require.NoError(t, err)
		require.Len(t, left, 1, "the removal can still find what to end")
		_, _, err = f.store.GetTurn(ctx, running.ID)
		require.NoError(t, err, "the worker reads the turn to end it")

		// Her work frames of the conversation say only that the work
		// left her top bar; a later frame of a space she can open is
		// delivered as written.
		elsewhere, _, err := workspace.NewService(f.db).EnsureMember(ctx, "Elsewhere", "Ann Archer", workspace.RoleEditor)
		require.NoError(t, err)
		there, err := f.store.CreateConversation(ctx, f.ann, elsewhere, "There", "")
		require.NoError(t, err)
		_, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: there.ID, PersonID: f.ann, Text: "hello"})
		require.NoError(t, err)
		var got []chat.WorkFrame
		err = f.store.FollowWork(ctx, f.ann, 0, func(fr chat.WorkFrame) error {
			got = append(got, fr)
			if fr.Work.ConversationID == there.ID {
				return errFirst
			}
			return nil
		})
		require.ErrorIs(t, err, errFirst)
		require.Greater(t, len(got), 1)
		for _, fr := range got[:len(got)-1] {
			require.Equal(t, chat.Work{Kind: fr.Work.Kind, ID: fr.Work.ID, ConversationID: f.conv.ID,
				Status: chat.StatusStopped, Ended: true}, fr.Work)
		}
		require.Equal(t, "There", got[len(got)-1].Work.Title)
	})
}

var errFirst = errors.New("first frame")
