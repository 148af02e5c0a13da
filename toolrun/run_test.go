package toolrun_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/dbtest"
	"hub/notify"
	"hub/storage"
	"hub/stream"
	"hub/toolrun"
	"hub/tools"
	"hub/workspace"
)

// fixture is a migrated database with a space Acme where Ann is the owner
// and Bob an editor, a space Other where Bob is an editor, a turn of Ann's with
// pending calls, and a registry of test tools: a read, a Hub write that
// makes one task, one that makes a task and then fails, and an outside
// write whose answer the test decides.
type fixture struct {
	db     *storage.DB
	svc    *workspace.Service
	store  *chat.Store
	runner *toolrun.Runner

	acme, other, ann, bob string
	turn                  chat.Turn

	sent    atomic.Int32 // outside writes that went out
	outside func() error // the outside write's answer
}

type taskIn struct {
	Title string `json:"title"`
}

func each(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		fn(t, newFixture(t, url))
	})
}

func newFixture(t *testing.T, url string) *fixture {
	t.Helper()
	ctx := t.Context()
	db := dbtest.Open(t, url)
	f := &fixture{db: db, svc: workspace.NewService(db), store: chat.NewStore(db, stream.NewBus(db, notify.New(db))), outside: func() error { return nil }}
	var err error
	f.acme, f.ann, err = f.svc.EnsureMember(ctx, "Acme", "Ann Archer", workspace.RoleOwner)
	require.NoError(t, err)
	_, f.bob, err = f.svc.EnsureMember(ctx, "Acme", "Bob Baker", workspace.RoleEditor)
	require.NoError(t, err)
	f.other, _, err = f.svc.EnsureMember(ctx, "Other", "Otto Other", workspace.RoleOwner)
	require.NoError(t, err)
	require.NoError(t, db.Create(&storage.Membership{SpaceID: f.other, PersonID: f.bob, Role: string(workspace.RoleEditor)}).Error)

	create := func(ctx context.Context, env tools.Env, in taskIn) (tools.Result, error) {
		_, err := env.Workspace.CreateTasks(ctx, env.Actor, env.SpaceID, "/tasks", []workspace.NewTask{{Title: in.Title}})
		return tools.Result{Summary: "Created " + in.Title}, err
	}
	reg := tools.NewRegistry(
		tools.Define(tools.Spec{Name: "t_read", Area: "tasks", Description: "Reads."},
			func(context.Context, tools.Env, taskIn) (tools.Result, error) {
				return tools.Result{Summary: "Read"}, nil
			}),
		tools.Define(tools.Spec{Name: "t_write", Area: "tasks", IsWrite: true, Undoable: true, Description: "Makes a task."}, create),
		tools.Define(tools.Spec{Name: "t_half", Area: "tasks", IsWrite: true, Undoable: true, Description: "Makes a task, then fails."},
			func(ctx context.Context, env tools.Env, in taskIn) (tools.Result, error) {
				if _, err := create(ctx, env, in); err != nil {
					return tools.Result{}, err
				}
				return tools.Result{}, tools.Errorf(tools.CodeFailed, "broke after writing")
			}),
		tools.Define(tools.Spec{Name: "t_post", Area: "tasks", IsWrite: true, OutsideTransaction: true, Description: "Posts outside Hub."},
			func(context.Context, tools.Env, taskIn) (tools.Result, error) {
				f.sent.Add(1)
				if err := f.outside(); err != nil {
					return tools.Result{}, err
				}
				return tools.Result{Summary: "Posted"}, nil
			}),
	)
	f.runner = &toolrun.Runner{Workspace: f.svc, Tools: reg}

	conv, err := f.store.CreateConversation(ctx, f.ann, f.acme, "Plans", "")
	require.NoError(t, err)
	f.turn, err = f.store.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.ann, Text: "make tasks"})
	require.NoError(t, err)
	return f
}

// pending saves a model step with one pending call of the tool and returns
// the call to run (offered every test tool, in Acme, as Ann).
func (f *fixture) pending(t *testing.T, step int, tool, title string) toolrun.Call {
	t.Helper()
	args := `{"title":"` + title + `"}`
	calls, err := f.store.SaveStep(t.Context(), f.turn.ID, chat.Step{Step: step, ToolCalls: []chat.ToolCall{{Tool: tool, Arguments: args}}})
	require.NoError(t, err)
	return toolrun.Call{ID: calls[0].ID, PersonID: f.ann, SpaceID: f.acme, Tool: tool, Arguments: args,
		Offered: []string{"t_read", "t_write", "t_half", "t_post"}}
}

// complete is a Commit that records the outcome as the call's row, as a
// turn's RunTool does, and keeps what it was given.
func (f *fixture) complete(seen *[]toolrun.Outcome, id string) toolrun.Commit {
	return func(ctx context.Context, out toolrun.Outcome) error {
		*seen = append(*seen, out)
		status := map[toolrun.Kind]string{toolrun.Succeeded: chat.CallDone, toolrun.Held: chat.CallHeld}[out.Kind]
		if status == "" {
			status = chat.CallFailed
		}
		won, err := f.store.CompleteToolCall(ctx, id, chat.Outcome{Status: status, UndoGroupID: out.UndoGroupID, HeldFor: heldFor(out)})
		if err == nil && !won {
			err = toolrun.ErrRecorded
		}
		return err
	}
}

func heldFor(out toolrun.Outcome) string {
	if out.Kind == toolrun.Held {
		return chat.HeldForApply
	}
	return ""
}

func (f *fixture) tasks(t *testing.T) int64 {
	t.Helper()
	var n int64
	require.NoError(t, f.db.Model(&storage.Task{}).Count(&n).Error)
	return n
}

func (f *fixture) status(t *testing.T, id string) string {
	t.Helper()
	c, err := f.store.GetToolCall(t.Context(), id)
	require.NoError(t, err)
	return c.Status
}

// TestRunOutcomes: each kind of outcome, what it changed and the row it
// left.
func TestRunOutcomes(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		run := func(c toolrun.Call) (toolrun.Outcome, []toolrun.Outcome) {
			t.Helper()
			var seen []toolrun.Outcome
			out, err := f.runner.Run(ctx, c, f.complete(&seen, c.ID))
			require.NoError(t, err)
			require.Len(t, seen, 1, "one commit per call")
			require.Equal(t, out.Kind, seen[0].Kind)
			return out, seen
		}

		// A read.
		read := f.pending(t, 1, "t_read", "x")
		out, _ := run(read)
		require.Equal(t, toolrun.Succeeded, out.Kind)
		require.Equal(t, "Read", out.Result.Summary)
		require.Equal(t, chat.CallDone, f.status(t, read.ID))

		// A Hub write: its task and its row, with an Undo group of its own.
		write := f.pending(t, 2, "t_write", "One")
		out, _ = run(write)
		require.Equal(t, toolrun.Succeeded, out.Kind)
		require.NotEmpty(t, out.UndoGroupID)
		require.Equal(t, workspace.RoleOwner, out.Role)
		require.EqualValues(t, 1, f.tasks(t))
		require.Equal(t, chat.CallDone, f.status(t, write.ID))

		// Run again: the row is there, so nothing is written twice.
		var seen []toolrun.Outcome
		_, err := f.runner.Run(ctx, write, f.complete(&seen, write.ID))
		require.ErrorIs(t, err, toolrun.ErrRecorded)
		require.EqualValues(t, 1, f.tasks(t), "the second run rolled back")

		// A write that fails after writing leaves nothing; its row says failed.
		half := f.pending(t, 3, "t_half", "Half")
		out, _ = run(half)
		require.Equal(t, toolrun.Failed, out.Kind)
		require.Equal(t, "broke after writing", out.Err.Message)
		require.Empty(t, out.UndoGroupID)
		require.EqualValues(t, 1, f.tasks(t))
		require.Equal(t, chat.CallFailed, f.status(t, half.ID))

		// An unknown name fails in dispatch.
		unknown := f.pending(t, 4, "t_nope", "x")
		out, _ = run(unknown)
		require.Equal(t, toolrun.Failed, out.Kind)
		require.Equal(t, tools.CodeUnknownTool, out.Err.Code)

		// Held while the person's policy holds writes: nothing changes.
		_, err = f.svc.UpdateSettings(ctx, f.ann, workspace.SettingsPatch{WritePolicy: new(workspace.PolicyPreview)})
		require.NoError(t, err)
		held := f.pending(t, 5, "t_write", "Held")
		out, _ = run(held)
		require.Equal(t, toolrun.Held, out.Kind)
		require.Equal(t, workspace.PolicyPreview, out.Settings.WritePolicy)
		require.EqualValues(t, 1, f.tasks(t))
		require.Equal(t, chat.CallHeld, f.status(t, held.ID))

		// Applied, the same write runs.
		applied := held
		applied.Applying, applied.Offered = true, nil
		applied.ID = f.pending(t, 6, "t_write", "Held").ID
		out, _ = run(applied)
		require.Equal(t, toolrun.Succeeded, out.Kind)
		require.EqualValues(t, 2, f.tasks(t))

		// Refused: Ann cannot open Other.
		anns := f.pending(t, 7, "t_write", "Ann's")
		anns.SpaceID = f.other
		out, _ = run(anns)
		require.Equal(t, toolrun.Refused, out.Kind)
		require.Equal(t, tools.CodeForbidden, out.Err.Code)
		require.Equal(t, toolrun.LostAccess, out.Err.Message)
		require.EqualValues(t, 2, f.tasks(t))

		// A call in Other from a conversation in Acme runs while Bob can
		// open both, and is refused once he cannot open Acme.
		across := f.pending(t, 8, "t_write", "Across")
		across.PersonID, across.SpaceID, across.HomeSpaceID = f.bob, f.other, f.acme
		out, _ = run(across)
		require.Equal(t, toolrun.Succeeded, out.Kind)
		require.Equal(t, workspace.RoleEditor, out.Role)
		require.EqualValues(t, 3, f.tasks(t))
		require.NoError(t, f.svc.RemoveMember(ctx, f.ann, f.acme, f.bob))
		across.ID = f.pending(t, 9, "t_write", "Across").ID
		out, _ = run(across)
		require.Equal(t, toolrun.Refused, out.Kind)
		require.EqualValues(t, 3, f.tasks(t))
	})
}

// TestRunOutsideWrites: an outside write runs without a transaction, after
// Started; one that went out without an answer is Unknown; one found on its
// way is reported, never sent again.
func TestRunOutsideWrites(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		var order []string
		post := f.pending(t, 1, "t_post", "x")
		post.Applying = true
		post.Started = func(context.Context) error {
			order = append(order, "started")
			return nil
		}
		f.outside = func() error {
			order = append(order, "sent")
			return tools.OutcomeUnknownf("the app did not answer")
		}
		var seen []toolrun.Outcome
		out, err := f.runner.Run(ctx, post, f.complete(&seen, post.ID))
		require.NoError(t, err)
		require.Equal(t, toolrun.Unknown, out.Kind)
		require.True(t, out.Err.OutcomeUnknown)
		require.Equal(t, []string{"started", "sent"}, order)

		// A plain failure of the app is Failed.
		f.outside = func() error { return tools.Errorf(tools.CodeFailed, "502") }
		post.ID = f.pending(t, 2, "t_post", "x").ID
		out, err = f.runner.Run(ctx, post, f.complete(&seen, post.ID))
		require.NoError(t, err)
		require.Equal(t, toolrun.Failed, out.Kind)

		// Found sending: Unknown, and nothing goes out.
		sent := f.sent.Load()
		post.ID, post.Begun = f.pending(t, 3, "t_post", "x").ID, true
		out, err = f.runner.Run(ctx, post, f.complete(&seen, post.ID))
		require.NoError(t, err)
		require.Equal(t, toolrun.Unknown, out.Kind)
		require.Equal(t, sent, f.sent.Load())

		// A Hub write found running: Interrupted, and it does not run.
		write := f.pending(t, 4, "t_write", "Again")
		write.Begun = true
		out, err = f.runner.Run(ctx, write, f.complete(&seen, write.ID))
		require.NoError(t, err)
		require.Equal(t, toolrun.Interrupted, out.Kind)
		require.NotNil(t, out.Err)
		require.Zero(t, f.tasks(t))
	})
}

// TestWriteCommitsWithItsOutcome: the records and the outcome row commit
// together or not at all. A commit that fails after writing the row rolls
// back the task with it; the row stays pending, so a retry runs the call.
func TestWriteCommitsWithItsOutcome(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		write := f.pending(t, 1, "t_write", "One")
		boom := errors.New("the worker died before commit")
		var seen []toolrun.Outcome
		complete := f.complete(&seen, write.ID)
		_, err := f.runner.Run(ctx, write, func(ctx context.Context, out toolrun.Outcome) error {
			if err := complete(ctx, out); err != nil {
				return err
			}
			return boom
		})
		require.ErrorIs(t, err, boom)
		require.Zero(t, f.tasks(t), "the task rolled back with the row")
		require.Equal(t, chat.CallPending, f.status(t, write.ID), "the row rolled back with the task")
		var undo int64
		require.NoError(t, f.db.Model(&storage.UndoGroup{}).Count(&undo).Error)
		require.Zero(t, undo, "the Undo group rolled back too")

		out, err := f.runner.Run(ctx, write, complete)
		require.NoError(t, err)
		require.Equal(t, toolrun.Succeeded, out.Kind)
		require.EqualValues(t, 1, f.tasks(t))
		require.Equal(t, chat.CallDone, f.status(t, write.ID))
	})
}

// TestRunBatch: an Apply's writes in one space share one transaction and
// one Undo group; if one fails none is written.
func TestRunBatch(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		call := func(tool, title string) toolrun.Call {
			return toolrun.Call{ID: storage.NewID("call"), Tool: tool, Arguments: `{"title":"` + title + `"}`}
		}
		batch := toolrun.Batch{PersonID: f.ann, SpaceID: f.acme, Label: "Apply",
			Calls: []toolrun.Call{call("t_write", "A"), call("t_write", "B")}}
		var committed [][]toolrun.Outcome
		commit := func(_ context.Context, outs []toolrun.Outcome) error {
			committed = append(committed, outs)
			return nil
		}
		outs, err := f.runner.RunBatch(ctx, batch, commit)
		require.NoError(t, err)
		require.Len(t, outs, 2)
		require.Equal(t, toolrun.Succeeded, outs[0].Kind)
		require.Equal(t, toolrun.Succeeded, outs[1].Kind)
		require.Equal(t, outs[0].UndoGroupID, outs[1].UndoGroupID, "one Undo group for the batch")
		require.NotEmpty(t, outs[0].UndoGroupID)
		require.EqualValues(t, 2, f.tasks(t))

		batch.Calls = []toolrun.Call{call("t_write", "C"), call("t_half", "D")}
		outs, err = f.runner.RunBatch(ctx, batch, commit)
		require.NoError(t, err)
		require.Equal(t, toolrun.Unattempted, outs[0].Kind)
		require.Equal(t, toolrun.Failed, outs[1].Kind)
		require.EqualValues(t, 2, f.tasks(t), "neither C nor D")

		batch.SpaceID = f.other // Ann cannot open it
		outs, err = f.runner.RunBatch(ctx, batch, commit)
		require.NoError(t, err)
		require.Equal(t, []toolrun.Kind{toolrun.Refused, toolrun.Refused}, []toolrun.Kind{outs[0].Kind, outs[1].Kind})
		require.Len(t, committed, 3, "one commit per batch")
	})
}

// TestAccessIsReadForEachCall: a call runs with the person's access as it
// is when the call runs: the next call, once the person was removed, is
// refused.
func TestAccessIsReadForEachCall(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		write := f.pending(t, 1, "t_write", "One")
		var seen []toolrun.Outcome
		out, err := f.runner.Run(ctx, write, f.complete(&seen, write.ID))
		require.NoError(t, err)
		require.Equal(t, toolrun.Succeeded, out.Kind)

		_, err = f.svc.RemovePerson(ctx, workspace.Actor{PersonID: f.bob, Via: workspace.ViaREST}, f.acme, f.ann)
		require.ErrorIs(t, err, workspace.ErrForbidden, "an editor may not remove the owner")
		role := workspace.RoleOwner
		_, err = f.svc.UpdatePerson(ctx, workspace.Actor{PersonID: f.ann, Via: workspace.ViaREST}, f.acme, f.bob, workspace.PersonPatch{Role: &role})
		require.NoError(t, err)
		_, err = f.svc.RemovePerson(ctx, workspace.Actor{PersonID: f.bob, Via: workspace.ViaREST}, f.acme, f.ann)
		require.NoError(t, err)
		next := f.pending(t, 2, "t_write", "Two")
		out, err = f.runner.Run(ctx, next, f.complete(&seen, next.ID))
		require.NoError(t, err)
		require.Equal(t, toolrun.Refused, out.Kind, "the next call reads again")
		require.EqualValues(t, 1, f.tasks(t))
	})
}
