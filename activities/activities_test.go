package activities_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/chat"
	"hub/dbtest"
	"hub/notify"
	"hub/storage"
	"hub/stream"
	"hub/tools"
	"hub/workspace"
)

type fixture struct {
	db    *storage.DB
	acts  *activities.Activities
	chat  *chat.Store
	hub   *workspace.Service
	space string
	actor workspace.Actor
	turn  chat.Turn
}

func newFixture(t *testing.T, url string) *fixture {
	db := dbtest.Open(t, url)
	n := notify.New(db)
	t.Cleanup(n.Close)
	frames := stream.NewBus(db, n)
	f := &fixture{db: db, hub: workspace.NewService(db), chat: chat.NewStore(db, frames)}
	f.acts = &activities.Activities{Workspace: f.hub, Chat: f.chat, Tools: tools.Hub(nil), Frames: frames}
	ctx := context.Background()
	space, person, err := f.hub.EnsureMember(ctx, "Acme", "Ann Archer", workspace.RoleOwner)
	require.NoError(t, err)
	f.space, f.actor = space, workspace.Actor{PersonID: person, Via: workspace.ViaREST}
	conv, err := f.chat.CreateConversation(ctx, person, space, "", "")
	require.NoError(t, err)
	f.turn, err = f.chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: person, Text: "add two tasks"})
	require.NoError(t, err)
	_, err = f.acts.PrepareTurn(ctx, activities.TurnRef{TurnID: f.turn.ID})
	require.NoError(t, err)
	return f
}

// step saves a model step with the given calls, as CallModel does.
func (f *fixture) step(t *testing.T, n int, calls ...chat.ToolCall) []chat.ToolCall {
	saved, err := f.chat.SaveStep(context.Background(), f.turn.ID, chat.Step{Step: n, Attempt: 1, ToolCalls: calls})
	require.NoError(t, err)
	return saved
}

func (f *fixture) tasks(t *testing.T) []workspace.Task {
	page, err := f.hub.ListTasks(context.Background(), f.actor, f.space, workspace.TaskFilter{})
	require.NoError(t, err)
	return page.Tasks
}

// TestRunToolWritesOnce: a write commits together with its outcome, so a
// retried activity (the worker died after the commit, before it reported)
// and racing duplicates return the saved outcome and write nothing more.
func TestRunToolWritesOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		calls := f.step(t, 1, chat.ToolCall{Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"Draft brief"},{"title":"Call Mira"}]}`})
		in := activities.RunToolInput{TurnID: f.turn.ID, CallID: calls[0].ID}

		var wg sync.WaitGroup
		outs := make([]activities.ToolOutcome, 6)
		errs := make([]error, 6)
		for i := range outs {
			wg.Go(func() { outs[i], errs[i] = f.acts.RunTool(context.Background(), in) })
		}
		wg.Wait()
		for i := range outs {
			require.NoError(t, errs[i])
			require.Equal(t, chat.CallDone, outs[i].Status)
		}
		require.Len(t, f.tasks(t), 2, "six attempts, one write")

		saved, err := f.chat.GetToolCall(context.Background(), calls[0].ID)
		require.NoError(t, err)
		require.Equal(t, "Added 2 tasks: “Draft brief” and “Call Mira”.", saved.Summary)
		require.Len(t, saved.Refs, 2)
	})
}

// TestFailedWriteLeavesNothing: a write that fails part-way rolls back; its
// error is the call's outcome.
func TestFailedWriteLeavesNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		calls := f.step(t, 1, chat.ToolCall{Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"Fine"},{"title":"Bad","projectId":"proj_nope"}]}`})
		out, err := f.acts.RunTool(context.Background(), activities.RunToolInput{TurnID: f.turn.ID, CallID: calls[0].ID})
		require.NoError(t, err)
		require.Equal(t, chat.CallFailed, out.Status)
		require.Equal(t, tools.CodeNotFound, out.ErrorCode)
		require.Empty(t, f.tasks(t))
	})
}

// TestAccessIsCheckedWhenTheCallRuns: a person demoted to viewer after the
// turn started cannot write through it.
func TestAccessIsCheckedWhenTheCallRuns(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		calls := f.step(t, 1, chat.ToolCall{Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"x"}]}`})
		_, _, err := f.hub.EnsureMember(context.Background(), "Acme", "Ann Archer", workspace.RoleViewer)
		require.NoError(t, err)
		out, err := f.acts.RunTool(context.Background(), activities.RunToolInput{TurnID: f.turn.ID, CallID: calls[0].ID})
		require.NoError(t, err)
		require.Equal(t, tools.CodeForbidden, out.ErrorCode)
		require.Empty(t, f.tasks(t))
	})
}

// TestFinishTurnIsIdempotent: finishing twice keeps the first ending and
// sends one done frame.
func TestFinishTurnIsIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ctx := context.Background()
		require.NoError(t, f.acts.FinishTurn(ctx, activities.FinishInput{TurnID: f.turn.ID, Status: "done"}))
		require.NoError(t, f.acts.FinishTurn(ctx, activities.FinishInput{TurnID: f.turn.ID, Status: "error", ErrorCode: "x"}))
		got, _, err := f.chat.GetTurn(ctx, f.turn.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusDone, got.Status)
		frames, err := f.acts.Frames.Frames(ctx, f.turn.ID, 0)
		require.NoError(t, err)
		done := 0
		for _, fr := range frames {
			if fr.Type == stream.TypeDone {
				done++
			}
		}
		require.Equal(t, 1, done)
	})
}

// TestFinishTurnSavesTheReply: the reply is the text of the turn's steps.
func TestFinishTurnSavesTheReply(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		ctx := context.Background()
		_, err := f.chat.SaveStep(ctx, f.turn.ID, chat.Step{Step: 1, Attempt: 1, Text: "Done.", FinishReason: "stop"})
		require.NoError(t, err)
		require.NoError(t, f.acts.FinishTurn(ctx, activities.FinishInput{TurnID: f.turn.ID, Status: "done"}))
		reply, err := f.chat.GetMessage(ctx, f.turn.ReplyMessageID)
		require.NoError(t, err)
		require.Equal(t, "Done.", reply.Text)
	})
}

// TestRunToolFramesEachCall: a read and a write of one step each end
// done, the write made once, and each call's frames are one started and
// one done, in that order (a Hub tool's started frame commits with its
// outcome).
func TestRunToolFramesEachCall(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		calls := f.step(t, 1, chat.ToolCall{Tool: "hub_list_tasks", Arguments: `{}`},
			chat.ToolCall{Tool: "hub_create_tasks", Arguments: `{"tasks":[{"title":"Draft brief"}]}`})
		for _, c := range calls {
			out, err := f.acts.RunTool(context.Background(), activities.RunToolInput{TurnID: f.turn.ID, CallID: c.ID})
			require.NoError(t, err)
			require.Equal(t, chat.CallDone, out.Status, c.Tool)
		}
		require.Len(t, f.tasks(t), 1)
		frames, err := f.acts.Frames.Frames(context.Background(), f.turn.ID, 0)
		require.NoError(t, err)
		for _, c := range calls {
			var phases []string
			for _, fr := range frames {
				var d struct{ CallID, Phase string }
				require.NoError(t, json.Unmarshal(fr.Data, &d))
				if fr.Type == stream.TypeTool && d.CallID == c.ID {
					phases = append(phases, d.Phase)
				}
			}
			require.Equal(t, []string{stream.PhaseStarted, stream.PhaseDone}, phases, c.Tool)
		}
	})
}

// A read tool whose statement fails is recorded as the call's failure,
// not the activity's. (The tasks table is renamed away for the call: the
// list's query fails on both engines.)
func TestAReadToolsFailedStatementIsRecordedAsItsFailure(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, url string) {
		f := newFixture(t, url)
		calls := f.step(t, 1, chat.ToolCall{Tool: "hub_list_tasks", Arguments: `{}`})
		require.NoError(t, f.db.Exec("ALTER TABLE tasks RENAME TO tasks_away").Error)
		out, err := f.acts.RunTool(context.Background(), activities.RunToolInput{TurnID: f.turn.ID, CallID: calls[0].ID})
		require.NoError(t, f.db.Exec("ALTER TABLE tasks_away RENAME TO tasks").Error)
		require.NoError(t, err, "the failure is the call's, not the activity's")
		require.Equal(t, chat.CallFailed, out.Status)
		stored, err := f.acts.Chat.GetToolCall(context.Background(), calls[0].ID)
		require.NoError(t, err)
		require.Equal(t, chat.CallFailed, stored.Status)
	})
}
