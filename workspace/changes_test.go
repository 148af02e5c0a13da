package workspace_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/workspace"
)

// recorder is a subscriber that keeps what it saw.
type recorder struct {
	mu      sync.Mutex
	changes []workspace.Change
}

func (r *recorder) add(c workspace.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, c)
}

func (r *recorder) seen() []workspace.Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]workspace.Change(nil), r.changes...)
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = nil
}

func subscribe(t *testing.T, svc *workspace.Service) *recorder {
	t.Helper()
	r := &recorder{}
	t.Cleanup(svc.Subscribe(r.add))
	return r
}

func TestSubscribersSeeRESTChangesWithTheirActor(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		rec := subscribe(t, f.svc)
		p := f.project(t, f.owner, f.acme, "Launch")
		made, err := f.svc.CreateTasks(ctx, f.editor, f.acme, "/tasks", []workspace.NewTask{{Title: "A", ProjectID: p.ID}, {Title: "B"}})
		require.NoError(t, err)
		_, err = f.svc.UpdateTask(ctx, f.editor, f.acme, made[1].ID, workspace.TaskPatch{Title: ptr("B2")})
		require.NoError(t, err)
		_, err = f.svc.UpdateProject(ctx, f.owner, f.acme, p.ID, workspace.ProjectPatch{Status: ptr("paused")})
		require.NoError(t, err)
		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, made[1].ID)
		require.NoError(t, err)
		_, err = f.svc.DeleteProject(ctx, f.owner, f.acme, p.ID)
		require.NoError(t, err)
		// A failed write tells nobody anything.
		_, err = f.svc.UpdateTask(ctx, f.viewer, f.acme, made[0].ID, workspace.TaskPatch{Title: ptr("no")})
		require.ErrorIs(t, err, workspace.ErrForbidden)

		owner, editor := f.owner, f.editor
		require.Equal(t, []workspace.Change{
			{Kind: "project", ID: p.ID, SpaceID: f.acme, Op: workspace.OpCreated, Actor: owner, Title: "Launch"},
			{Kind: "task", ID: made[0].ID, SpaceID: f.acme, Op: workspace.OpCreated, Actor: editor, Title: "A"},
			{Kind: "task", ID: made[1].ID, SpaceID: f.acme, Op: workspace.OpCreated, Actor: editor, Title: "B"},
			{Kind: "task", ID: made[1].ID, SpaceID: f.acme, Op: workspace.OpUpdated, Actor: editor, Title: "B2"},
			{Kind: "project", ID: p.ID, SpaceID: f.acme, Op: workspace.OpUpdated, Actor: owner, Title: "Launch"},
			{Kind: "task", ID: made[1].ID, SpaceID: f.acme, Op: workspace.OpDeleted, Actor: owner, Title: "B2"},
			{Kind: "task", ID: made[0].ID, SpaceID: f.acme, Op: workspace.OpUpdated, Actor: owner, Title: "A"},
			{Kind: "project", ID: p.ID, SpaceID: f.acme, Op: workspace.OpDeleted, Actor: owner, Title: "Launch"},
		}, rec.seen())
	})
}

func TestSubscribersHearOfATxOnlyOnceItCommits(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		rec := subscribe(t, f.svc)
		assistant := workspace.Actor{PersonID: f.owner.PersonID, Via: workspace.ViaAssistant}

		// Rolled back: nothing is heard, ever.
		boom := errors.New("boom")
		err := f.svc.InTx(ctx, func(ctx context.Context) error {
			_, err := f.svc.CreateTasks(ctx, assistant, f.acme, "/tasks", []workspace.NewTask{{Title: "Never"}})
			require.NoError(t, err)
			return boom
		})
		require.ErrorIs(t, err, boom)
		require.Empty(t, rec.seen())

		// Committed: heard after the commit, not at the write. The write runs
		// in a Service the caller made (WithUndo), as the assistant's tool
		// calls do; a nested InTx joins the transaction, and its changes
		// wait for the same commit.
		var kept workspace.Task
		err = f.svc.InTx(ctx, func(ctx context.Context) error {
			group, err := f.svc.NewUndoGroup(ctx, assistant, f.acme, "Two tasks")
			require.NoError(t, err)
			w := f.svc.WithUndo(group)
			made, err := w.CreateTasks(ctx, assistant, f.acme, "/tasks", []workspace.NewTask{{Title: "Kept"}})
			require.NoError(t, err)
			kept = made[0]
			require.NoError(t, w.InTx(ctx, func(ctx context.Context) error {
				_, err := w.UpdateTask(ctx, assistant, f.acme, kept.ID, workspace.TaskPatch{Status: ptr("doing")})
				return err
			}))
			require.Empty(t, rec.seen(), "nothing is delivered before the commit")
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, []workspace.Change{
			{Kind: "task", ID: kept.ID, SpaceID: f.acme, Op: workspace.OpCreated, Actor: assistant, Title: "Kept"},
			{Kind: "task", ID: kept.ID, SpaceID: f.acme, Op: workspace.OpUpdated, Actor: assistant, Title: "Kept"},
		}, rec.seen())
	})
}

func TestSubscribersAreSharedAndSafe(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		// A subscriber that panics breaks neither the write nor the others.
		stopPanicking := f.svc.Subscribe(func(workspace.Change) { panic("subscriber bug") })
		// Subscribed through a derived Service, it hears writes of any copy.
		rec := subscribe(t, f.svc.WithUndo(""))
		tk := f.task(t, workspace.NewTask{Title: "Still written"})
		got, err := f.svc.GetTask(ctx, f.owner, f.acme, tk.ID)
		require.NoError(t, err)
		require.Equal(t, "Still written", got.Title)
		require.Len(t, rec.seen(), 1)
		stopPanicking()
		stopPanicking()

		// Unsubscribed, a subscriber hears nothing more; the rest still do.
		other := &recorder{}
		stop := f.svc.Subscribe(other.add)
		rec.reset()
		_, err = f.svc.UpdateTask(ctx, f.owner, f.acme, tk.ID, workspace.TaskPatch{Status: ptr("done")})
		require.NoError(t, err)
		stop()
		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, tk.ID)
		require.NoError(t, err)
		require.Len(t, other.seen(), 1)
		require.Equal(t, []string{workspace.OpUpdated, workspace.OpDeleted}, ops(rec.seen()))
	})
}

func TestSubscribersSeeUndoAndRedo(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		tk := f.task(t, workspace.NewTask{Title: "Report"})
		assistant := workspace.Actor{PersonID: f.owner.PersonID, Via: workspace.ViaAssistant}
		group := f.inGroup(t, assistant, "Rename", func(ctx context.Context, tx *workspace.Service) {
			_, err := tx.UpdateTask(ctx, assistant, f.acme, tk.ID, workspace.TaskPatch{Title: ptr("Final report")})
			require.NoError(t, err)
		})
		rec := subscribe(t, f.svc)
		_, err := f.svc.Undo(ctx, f.owner.PersonID, group)
		require.NoError(t, err)
		require.Equal(t, []workspace.Change{{Kind: "task", ID: tk.ID, SpaceID: f.acme, Op: workspace.OpUpdated, Actor: f.owner, Title: "Report"}}, rec.seen())

		// A refused Redo changes nothing and says nothing.
		_, err = f.svc.DeleteTask(ctx, f.owner, f.acme, tk.ID)
		require.NoError(t, err)
		rec.reset()
		_, err = f.svc.Redo(ctx, f.owner.PersonID, group)
		require.ErrorIs(t, err, workspace.ErrConflict)
		require.Empty(t, rec.seen())
	})
}

func ops(cs []workspace.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Op
	}
	return out
}
