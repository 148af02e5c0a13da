package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/dbtest"
	"hub/storage"
	"hub/stream"
	"hub/workspace"
)

// finishWithDone ends a turn as activities.FinishTurn does: its done frame
// in the ending's transaction, carrying the ending it found.
func finishWithDone(t *testing.T, f *fixture, bus *stream.Bus, turnID string, e chat.Ending) (chat.Turn, error) {
	t.Helper()
	var ended chat.Turn
	err := f.db.InTx(t.Context(), func(ctx context.Context) error {
		var err error
		if ended, err = f.store.FinishTurn(ctx, turnID, e); err != nil {
			return err
		}
		_, err = bus.PublishFirst(ctx, turnID, stream.TypeDone, map[string]string{"status": string(ended.Status)})
		return err
	})
	return ended, err
}

func doneFrames(t *testing.T, bus *stream.Bus, turnID string) []string {
	t.Helper()
	frames, err := bus.Frames(t.Context(), turnID, 0)
	require.NoError(t, err)
	var out []string
	for _, fr := range frames {
		if fr.Type == stream.TypeDone {
			var d struct{ Status string }
			require.NoError(t, json.Unmarshal(fr.Data, &d))
			out = append(out, d.Status)
		}
	}
	return out
}

// FinishTurn saves the ending and its frames in one transaction: the
// ending is announced on the top bar, and a frame that fails undoes the
// ending; a turn that ended without its frames gets them
// from the next FinishTurn, its ending unchanged.
func TestFinishTurnCommitsItsFramesWithIt(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		bus := stream.NewBus(f.db, f.notifier)
		t.Cleanup(bus.Close)
		turn := f.start(t, "hello")
		ended, err := finishWithDone(t, f, bus, turn.ID, chat.Ending{Status: chat.StatusDone, Text: "Hi!"})
		require.NoError(t, err)
		require.Equal(t, chat.StatusDone, ended.Status)
		require.Equal(t, turn.ReplyMessageID, ended.ReplyMessageID)
		require.NotNil(t, ended.FinishedAt)
		require.Equal(t, []string{"done"}, doneFrames(t, bus, turn.ID))
		reply, err := f.store.GetMessage(ctx, turn.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, "Hi!", reply.Text)
		frames, err := f.store.WorkFrames(ctx, f.ann, 0)
		require.NoError(t, err)
		last := frames[len(frames)-1].Work
		require.Equal(t, turn.ID, last.ID, "the ending is announced")
		require.True(t, last.Ended)
		require.Equal(t, chat.StatusDone, last.Status)
		require.Equal(t, "Planning", last.Title)

		// A frame that fails undoes the ending.
		failing := f.start(t, "again")
		boom := errors.New("boom")
		err = f.db.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.store.FinishTurn(ctx, failing.ID, chat.Ending{Status: chat.StatusDone, Text: "lost"}); err != nil {
				return err
			}
			return boom
		})
		require.ErrorIs(t, err, boom)
		got, _, err := f.store.GetTurn(ctx, failing.ID)
		require.NoError(t, err)
		require.Nil(t, got.FinishedAt, "not ended")
		reply, err = f.store.GetMessage(ctx, failing.ReplyMessageID)
		require.NoError(t, err)
		require.Empty(t, reply.Text)

		// Ended without its frames (the api's failed launch, a worker of
		// before): the next FinishTurn sends them and keeps the ending.
		_, err = f.store.FinishTurn(ctx, failing.ID, chat.Ending{Status: chat.StatusError, ErrorCode: "unavailable"})
		require.NoError(t, err)
		require.Empty(t, doneFrames(t, bus, failing.ID))
		again, err := finishWithDone(t, f, bus, failing.ID, chat.Ending{Status: chat.StatusDone, Text: "late"})
		require.NoError(t, err)
		require.Equal(t, chat.StatusError, again.Status, "the first ending stands")
		require.Equal(t, []string{"error"}, doneFrames(t, bus, failing.ID))
		_, err = finishWithDone(t, f, bus, failing.ID, chat.Ending{Status: chat.StatusDone})
		require.NoError(t, err)
		require.Equal(t, []string{"error"}, doneFrames(t, bus, failing.ID), "one done frame")
	})
}

// Two FinishTurns racing for one turn (a retried activity whose first
// attempt still runs), each with another ending: the first to take the
// turn's row saves its ending and its done frame; the second waits for it,
// finds the turn ended and sends nothing. The turn, its reply and its one
// done frame tell the same ending.
func TestFinishTurnsRacingEndTheTurnOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dbtest.Postgres(t)) // SQLite has one connection: no race to run
	bus := stream.NewBus(f.db, f.notifier)
	t.Cleanup(bus.Close)
	for range 3 {
		turn := f.start(t, "hello")
		lock := dbtest.LockRow(t, f.db, "turns", turn.ID)
		errs := make(chan error, 2)
		for _, st := range []chat.Status{chat.StatusDone, chat.StatusError} {
			go func() {
				_, err := finishWithDone(t, f, bus, turn.ID, chat.Ending{Status: st, Text: string(st)})
				errs <- err
			}()
		}
		lock.AwaitWaiters(2)
		lock.Release()
		for range 2 {
			require.NoError(t, <-errs)
		}
		got, _, err := f.store.GetTurn(t.Context(), turn.ID)
		require.NoError(t, err)
		require.Equal(t, []string{string(got.Status)}, doneFrames(t, bus, turn.ID), "one done frame, of the ending saved")
		reply, err := f.store.GetMessage(t.Context(), turn.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, string(got.Status), reply.Text, "the reply is the same ending's")
		require.Equal(t, string(got.Status), reply.Status)
	}
}

// A turn's start given the conversation its caller read does not read it
// again; its transaction checks the person's access as it marks the
// conversation active (one removed since the caller's read starts
// nothing), and what is written after it in the caller's transaction
// commits with it: a failure there saves nothing.
func TestStartTurnChecksAccessInItsTransaction(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		conv, err := f.store.GetConversation(ctx, f.ann, f.conv.ID)
		require.NoError(t, err)
		turn, err := f.store.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.ann, Text: "hi", Conversation: &conv})
		require.NoError(t, err)
		f.finish(t, turn, chat.StatusDone, "ok")

		// What follows in its transaction fails: nothing is saved.
		boom := errors.New("boom")
		err = f.db.InTx(ctx, func(ctx context.Context) error {
			if _, err := f.store.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.ann, Text: "lost", Conversation: &conv}); err != nil {
				return err
			}
			return boom
		})
		require.ErrorIs(t, err, boom)
		require.EqualValues(t, 2, f.count(t, &storage.Message{}, "conversation_id = ?", conv.ID), "only the first turn's two")

		// Ann leaves the space after the read: the start refuses.
		require.NoError(t, f.db.Exec("DELETE FROM memberships WHERE person_id = ? AND space_id = ?", f.ann, f.space).Error)
		_, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.ann, Text: "late", Conversation: &conv})
		require.ErrorIs(t, err, workspace.ErrNotFound)
		require.EqualValues(t, 2, f.count(t, &storage.Message{}, "conversation_id = ?", conv.ID), "nothing saved")
		// Nor can another person start one with it.
		_, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.bob, Text: "mine", Conversation: &conv})
		require.ErrorIs(t, err, workspace.ErrNotFound)
	})
}
