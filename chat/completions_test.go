package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/storage"
	"hub/workspace"
)

// A completion is in its person's top bar from its creation to its
// ending, each status change a work frame of that person; a stop is not
// undone by a later working, an ending is kept, and nobody else reads it.
func TestCompletionsLiveInTheTopBarUntilTheyEnd(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		c, err := f.store.CreateCompletion(ctx, chat.NewCompletion{PersonID: f.ann, SpaceID: f.space, Kind: chat.CompletionTestSkill,
			Title: "Try skill Report", Model: "m", Purpose: chat.CompletionPurpose(chat.CompletionTestSkill),
			Input: chat.CompletionInput{SkillID: "skill_1", Sample: "my notes"}})
		require.NoError(t, err)
		require.Equal(t, chat.StatusQueued, c.Status)
		require.Equal(t, "test_skill", c.Purpose)

		bar, err := f.store.TopBar(ctx, f.ann)
		require.NoError(t, err)
		require.Len(t, bar, 1)
		require.True(t, c.CreatedAt.Equal(bar[0].StartedAt), "%v, %v", c.CreatedAt, bar[0].StartedAt)
		bar[0].StartedAt = c.CreatedAt
		require.Equal(t, []chat.Work{{Kind: chat.WorkCompletion, ID: c.ID, SpaceID: f.space, Status: chat.StatusQueued,
			Title: "Try skill Report", StartedAt: c.CreatedAt}}, bar)
		bar, err = f.store.TopBar(ctx, f.bob)
		require.NoError(t, err)
		require.Empty(t, bar, "Bob's top bar leaves Ann's completion out")
		_, err = f.store.GetCompletionFor(ctx, f.bob, c.ID)
		require.ErrorIs(t, err, workspace.ErrNotFound)

		for _, st := range []chat.Status{chat.StatusWorking, chat.StatusWorking, chat.StatusStopping, chat.StatusWorking} {
			_, err := f.store.SetCompletionStatus(ctx, c.ID, st)
			require.NoError(t, err)
		}
		got, err := f.store.GetCompletionFor(ctx, f.ann, c.ID)
		require.NoError(t, err)
		require.Equal(t, chat.StatusStopping, got.Status, "a stop is not undone by the workflow's working")
		require.Equal(t, chat.CompletionInput{SkillID: "skill_1", Sample: "my notes"}, got.Input)

		ended, err := f.store.FinishCompletion(ctx, c.ID, chat.CompletionEnding{Status: chat.StatusStopped})
		require.NoError(t, err)
		require.Equal(t, chat.StatusStopped, ended.Status)
		require.NotNil(t, ended.EndedAt)
		again, err := f.store.FinishCompletion(ctx, c.ID, chat.CompletionEnding{Status: chat.StatusDone, Result: chat.CompletionResult{Text: "late"}})
		require.NoError(t, err)
		require.Equal(t, chat.StatusStopped, again.Status, "the first ending is kept")
		require.Empty(t, again.Result.Text)
		changed, err := f.store.SetCompletionStatus(ctx, c.ID, chat.StatusWorking)
		require.NoError(t, err)
		require.False(t, changed, "an ended completion keeps its status")

		require.Equal(t, []string{"queued", "working", "stopping", "stopped (ended)"}, statuses(frames(t, f.store, f.ann)))
		require.Empty(t, frames(t, f.store, f.bob))
		bar, err = f.store.TopBar(ctx, f.ann)
		require.NoError(t, err)
		require.Empty(t, bar)

		done, err := f.store.CreateCompletion(ctx, chat.NewCompletion{PersonID: f.ann, SpaceID: f.space, Kind: chat.CompletionSummarizeFile,
			Title: "Summarize a.md", Purpose: "summarize"})
		require.NoError(t, err)
		_, err = f.store.FinishCompletion(ctx, done.ID, chat.CompletionEnding{Status: chat.StatusDone,
			Result: chat.CompletionResult{Text: "A plan.", Keywords: []string{"plan"}}})
		require.NoError(t, err)
		got, err = f.store.GetCompletion(ctx, done.ID)
		require.NoError(t, err)
		require.Equal(t, chat.CompletionResult{Text: "A plan.", Keywords: []string{"plan"}}, got.Result)

		// Removed from the space: the running completion leaves her top bar.
		left, err := f.store.CreateCompletion(ctx, chat.NewCompletion{PersonID: f.bob, SpaceID: f.space, Kind: chat.CompletionTestModel,
			Title: "Check model m", Purpose: "test_model"})
		require.NoError(t, err)
		require.NoError(t, f.db.Where("person_id = ? AND space_id = ?", f.bob, f.space).Delete(&storage.Membership{}).Error)
		require.NoError(t, f.store.AnnounceLeft(ctx, f.bob, f.space))
		bar, err = f.store.TopBar(ctx, f.bob)
		require.NoError(t, err)
		require.Empty(t, bar)
		last := frames(t, f.store, f.bob)
		require.Equal(t, chat.Work{Kind: chat.WorkCompletion, ID: left.ID, SpaceID: f.space, Status: chat.StatusStopped, Ended: true},
			last[len(last)-1].Work)
	})
}
