package chat_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
	"hub/workspace"
)

func TestStartTurn(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		mentions := []workspace.Ref{{Kind: "task", ID: "task_1", Label: "Draft brief"}}
		turn, err := f.store.StartTurn(ctx, chat.NewTurn{ConversationID: f.conv.ID, PersonID: f.ann, Text: "Plan the launch",
			Mentions: mentions, PageContext: `{"view":"board"}`})
		require.NoError(t, err)
		require.Equal(t, chat.StatusQueued, turn.Status)
		require.False(t, turn.Status.Final())
		require.Equal(t, f.conv.ID, turn.ConversationID)
		require.Equal(t, f.space, turn.SpaceID)
		require.Equal(t, f.ann, turn.PersonID)
		require.Nil(t, turn.FinishedAt)
		require.Empty(t, turn.RetryOf)

		msgs, err := f.store.Messages(ctx, f.ann, f.conv.ID)
		require.NoError(t, err)
		require.Len(t, msgs, 2)
		user, reply := msgs[0], msgs[1]
		require.Equal(t, turn.UserMessageID, user.ID)
		require.Equal(t, "user", user.Role)
		require.Equal(t, "Plan the launch", user.Text)
		require.Equal(t, "done", user.Status)
		require.Equal(t, mentions, user.Mentions)
		require.Equal(t, `{"view":"board"}`, user.PageContext)
		require.Equal(t, turn.ID, user.TurnID)

		require.Equal(t, turn.ReplyMessageID, reply.ID)
		require.Equal(t, "assistant", reply.Role)
		require.Equal(t, "running", reply.Status)
		require.Empty(t, reply.Text)
		require.Equal(t, turn.ID, reply.TurnID)

		got, err := f.store.GetTurnFor(ctx, f.ann, turn.ID)
		require.NoError(t, err)
		require.Equal(t, turn.ID, got.ID)
		_, err = f.store.GetTurnFor(ctx, f.bob, turn.ID)
		requireNotFound(t, err, "turn")
		_, _, err = f.store.GetTurn(ctx, "turn_missing")
		requireNotFound(t, err, "turn")

		m, err := f.store.GetMessage(ctx, user.ID)
		require.NoError(t, err)
		require.Equal(t, "Plan the launch", m.Text)
	})
}

func TestSecondTurnWhileOneRunsIsAConflict(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		first := f.start(t, "one")
		for _, status := range []chat.Status{chat.StatusQueued, chat.StatusWorking, chat.StatusPaused, chat.StatusStopping} {
			require.NoError(t, f.store.SetTurnStatus(ctx, first.ID, status, 1))
			_, err := f.store.StartTurn(ctx, chat.NewTurn{ConversationID: f.conv.ID, PersonID: f.ann, Text: "two"})
			require.ErrorIs(t, err, workspace.ErrConflict, "while the first is %s", status)
		}
		require.EqualValues(t, 2, f.count(t, &storage.Message{}, "conversation_id = ?", f.conv.ID), "a refused start writes nothing")
		require.EqualValues(t, 1, f.count(t, &storage.Turn{}, "conversation_id = ?", f.conv.ID))

		// Another conversation is not affected.
		other, err := f.store.CreateConversation(ctx, f.ann, f.space, "", "")
		require.NoError(t, err)
		_, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: other.ID, PersonID: f.ann, Text: "elsewhere"})
		require.NoError(t, err)

		// Once it has ended, the next turn starts.
		f.finish(t, first, chat.StatusStopped, "")
		f.start(t, "two")
	})
}

// Two requests racing: the database decides, exactly one wins.
func TestConcurrentStartTurn(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		for round := range 3 {
			const n = 8
			errs := make([]error, n)
			turns := make([]chat.Turn, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					<-start
					turns[i], errs[i] = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: f.conv.ID, PersonID: f.ann, Text: fmt.Sprint("racer ", i)})
				})
			}
			close(start)
			wg.Wait()
			var winner chat.Turn
			for i, err := range errs {
				if err == nil {
					require.Empty(t, winner.ID, "two turns started")
					winner = turns[i]
					continue
				}
				require.ErrorIs(t, err, workspace.ErrConflict)
			}
			require.NotEmpty(t, winner.ID, "round %d: one turn started", round)
			require.EqualValues(t, 2*(round+1), f.count(t, &storage.Message{}, "conversation_id = ?", f.conv.ID),
				"only the winner's message and reply were saved")
			f.finish(t, winner, chat.StatusDone, "ok")
		}
	})
}

func TestFinishTurnKeepsTheFirstEnding(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "hello")
		refs := []workspace.Ref{{Kind: "task", ID: "task_1", Label: "Draft"}}
		done, err := f.store.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusDone, Text: "Hi!", Refs: refs,
			Usage: chat.Usage{InputTokens: 10, OutputTokens: 3}})
		require.NoError(t, err)
		require.Equal(t, chat.StatusDone, done.Status)
		require.True(t, done.Status.Final())
		require.NotNil(t, done.FinishedAt)
		require.Equal(t, chat.Usage{InputTokens: 10, OutputTokens: 3}, done.Usage)

		again, err := f.store.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError, ErrorCode: "timeout", ErrorMessage: "late", Text: "other"})
		require.NoError(t, err)
		require.Equal(t, chat.StatusDone, again.Status, "the first ending is returned")
		require.Empty(t, again.ErrorCode)

		// A late status update does not reopen it.
		require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, 3))
		got, _, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusDone, got.Status)
		require.Equal(t, 0, got.Step)
		require.Equal(t, chat.Usage{InputTokens: 10, OutputTokens: 3}, got.Usage)
		require.WithinDuration(t, *done.FinishedAt, *got.FinishedAt, time.Microsecond, "Postgres keeps microseconds")

		reply, err := f.store.GetMessage(ctx, turn.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, "Hi!", reply.Text)
		require.Equal(t, "done", reply.Status)
		require.Equal(t, refs, reply.Refs)
		require.Equal(t, chat.Usage{InputTokens: 10, OutputTokens: 3}, reply.Usage)

		_, err = f.store.FinishTurn(ctx, "turn_missing", chat.Ending{Status: chat.StatusDone})
		require.Error(t, err)
	})
}

func TestFinishTurnWithError(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "hello")
		require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, 2))
		got, _, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusWorking, got.Status)
		require.Equal(t, 2, got.Step)

		ended, err := f.store.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError, ErrorCode: "timeout",
			ErrorMessage: "gpt did not answer within 15 minutes", Text: "partial"})
		require.NoError(t, err)
		require.Equal(t, chat.StatusError, ended.Status)
		require.Equal(t, "timeout", ended.ErrorCode)
		reply, err := f.store.GetMessage(ctx, turn.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, "error", reply.Status)
		require.Equal(t, "partial", reply.Text, "text already streamed stays")
		require.Equal(t, "timeout", reply.ErrorCode)
		require.Equal(t, "gpt did not answer within 15 minutes", reply.ErrorMessage)
	})
}

func TestRetryTurn(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		failed := f.finish(t, f.start(t, "Plan the launch"), chat.StatusError, "")

		retry, err := f.store.RetryTurn(ctx, f.ann, failed.ID)
		require.NoError(t, err)
		require.NotEqual(t, failed.ID, retry.ID)
		require.Equal(t, failed.ID, retry.RetryOf)
		require.Equal(t, failed.UserMessageID, retry.UserMessageID, "the same message of the person")
		require.NotEqual(t, failed.ReplyMessageID, retry.ReplyMessageID, "a new reply")
		require.Equal(t, chat.StatusQueued, retry.Status)

		user, err := f.store.GetMessage(ctx, failed.UserMessageID)
		require.NoError(t, err)
		require.Equal(t, retry.ID, user.TurnID, "the message moved to the new turn")
		reply, err := f.store.GetMessage(ctx, retry.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, "running", reply.Status)
		require.Equal(t, retry.ID, reply.TurnID)

		// While the retry runs, neither a new turn nor another retry starts.
		_, err = f.store.RetryTurn(ctx, f.ann, failed.ID)
		require.ErrorIs(t, err, workspace.ErrConflict)
		_, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: f.conv.ID, PersonID: f.ann, Text: "x"})
		require.ErrorIs(t, err, workspace.ErrConflict)

		// Only a turn that ended in error can be retried.
		_, err = f.store.RetryTurn(ctx, f.ann, retry.ID)
		require.ErrorIs(t, err, workspace.ErrConflict, "a running turn")
		f.finish(t, retry, chat.StatusDone, "Here is the plan.")
		_, err = f.store.RetryTurn(ctx, f.ann, retry.ID)
		require.ErrorIs(t, err, workspace.ErrConflict, "a done turn")

		// The failed turn was retried already: retrying it again would take
		// the message away from the retry's answer.
		_, err = f.store.RetryTurn(ctx, f.ann, failed.ID)
		require.ErrorIs(t, err, workspace.ErrConflict, "a turn already retried")
		user, err = f.store.GetMessage(ctx, failed.UserMessageID)
		require.NoError(t, err)
		require.Equal(t, retry.ID, user.TurnID)

		// Another person's turn is not found.
		failed2 := f.finish(t, f.start(t, "again"), chat.StatusError, "")
		_, err = f.store.RetryTurn(ctx, f.bob, failed2.ID)
		requireNotFound(t, err, "turn")

		// A retry that fails can itself be retried.
		retry2, err := f.store.RetryTurn(ctx, f.ann, failed2.ID)
		require.NoError(t, err)
		f.finish(t, retry2, chat.StatusError, "")
		retry3, err := f.store.RetryTurn(ctx, f.ann, retry2.ID)
		require.NoError(t, err)
		require.Equal(t, failed2.UserMessageID, retry3.UserMessageID)
		require.Equal(t, retry2.ID, retry3.RetryOf)
	})
}

func TestRunRecord(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "hi")
		_, empty, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Empty(t, empty.OfferedTools)
		rec := chat.RunRecord{Model: "gpt-test", Instructions: "You are Hub's assistant", Context: "<context>…</context>",
			OfferedTools: []string{"hub_list_tasks", "hub_create_tasks"}, AddedTools: []string{"hub_update_tasks"},
			HistoryIDs: []string{"msg_1", "msg_2"}}
		require.NoError(t, f.store.SaveRunRecord(ctx, turn.ID, rec))
		_, got, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.Equal(t, rec, got)
		_, _, err = f.store.GetTurn(ctx, "turn_missing")
		require.Error(t, err)
	})
}

// A stop recorded by the api is never replaced by a running state, and a
// model call starting after a pause does not hide the pause; only Resume
// (or the turn's ending) takes a pause back.
func TestStopAndPauseAreNotOverwrittenByWork(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		status := func(id string) chat.Status {
			got, _, err := f.store.GetTurn(ctx, id)
			require.NoError(t, err)
			return got.Status
		}

		stopped := f.start(t, "plan the week")
		require.NoError(t, f.store.MarkWorking(ctx, stopped.ID, 1))
		require.Equal(t, chat.StatusWorking, status(stopped.ID))
		require.NoError(t, f.store.SetTurnStatus(ctx, stopped.ID, chat.StatusStopping, 1))
		require.NoError(t, f.store.MarkWorking(ctx, stopped.ID, 2))
		require.Equal(t, chat.StatusStopping, status(stopped.ID), "a model call starting late")
		require.NoError(t, f.store.SetTurnStatus(ctx, stopped.ID, chat.StatusPaused, 2))
		require.NoError(t, f.store.SetTurnStatus(ctx, stopped.ID, chat.StatusWorking, 2))
		require.Equal(t, chat.StatusStopping, status(stopped.ID), "neither a pause nor a resume takes a stop back")
		f.finish(t, stopped, chat.StatusStopped, "")
		require.Equal(t, chat.StatusStopped, status(stopped.ID), "the ending replaces it")

		paused := f.start(t, "plan the month")
		require.NoError(t, f.store.SetTurnStatus(ctx, paused.ID, chat.StatusPaused, 1))
		require.NoError(t, f.store.MarkWorking(ctx, paused.ID, 1))
		require.Equal(t, chat.StatusPaused, status(paused.ID))
		require.NoError(t, f.store.SetTurnStatus(ctx, paused.ID, chat.StatusWorking, 1))
		require.Equal(t, chat.StatusWorking, status(paused.ID), "Resume")
		require.NoError(t, f.store.SetTurnStatus(ctx, paused.ID, chat.StatusStopping, 1))
		require.Equal(t, chat.StatusStopping, status(paused.ID))
	})
}

// The calls of one model step run at once; tools each of them adds all stay
// in the run record, and the offer saved last is computed from all of them.
func TestAddToolsFromConcurrentCallsKeepsEveryTool(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "plan the week")
		offer := func(added []string) ([]string, error) {
			return append([]string{"hub_list_tasks"}, added...), nil
		}
		names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
		errs := make(chan error, len(names))
		for _, n := range names {
			go func() { errs <- f.store.AddTools(ctx, turn.ID, []string{n, "shared"}, offer) }()
		}
		for range names {
			require.NoError(t, <-errs)
		}
		_, rec, err := f.store.GetTurn(ctx, turn.ID)
		require.NoError(t, err)
		require.ElementsMatch(t, append([]string{"shared"}, names...), rec.AddedTools)
		require.ElementsMatch(t, append([]string{"hub_list_tasks", "shared"}, names...), rec.OfferedTools)

		err = f.store.AddTools(ctx, "turn_missing", []string{"a"}, offer)
		var nf *workspace.NotFoundError
		require.ErrorAs(t, err, &nf)
	})
}

// Every Stop and Pause the api records is counted, also one the status
// keeps out (a pause after a stop); a Resume and the worker's own status
// changes are not, and an ended turn counts no more.
func TestRecordInterruptCountsStopsAndPauses(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		read := func(id string) chat.Turn {
			got, _, err := f.store.GetTurn(ctx, id)
			require.NoError(t, err)
			return got
		}
		turn := f.start(t, "plan the week")
		require.Zero(t, read(turn.ID).Interrupts)
		require.NoError(t, f.store.RecordInterrupt(ctx, turn.ID, chat.StatusPaused, 1))
		require.Equal(t, chat.StatusPaused, read(turn.ID).Status)
		require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, 1))
		require.NoError(t, f.store.MarkWorking(ctx, turn.ID, 2))
		require.Equal(t, 1, read(turn.ID).Interrupts, "a resume and a step are not interrupts")
		require.NoError(t, f.store.RecordInterrupt(ctx, turn.ID, chat.StatusStopping, 2))
		require.NoError(t, f.store.RecordInterrupt(ctx, turn.ID, chat.StatusPaused, 2))
		got := read(turn.ID)
		require.Equal(t, chat.StatusStopping, got.Status)
		require.Equal(t, 3, got.Interrupts, "the pause after the stop was signalled too")
		f.finish(t, turn, chat.StatusStopped, "")
		require.NoError(t, f.store.RecordInterrupt(ctx, turn.ID, chat.StatusPaused, 2))
		require.Equal(t, 3, read(turn.ID).Interrupts)
	})
}
