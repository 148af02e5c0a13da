package chat_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/dbtest"
	"hub/notify"
	"hub/storage"
	"hub/stream"
)

// frames reads every work frame of the person.
func frames(t *testing.T, s *chat.Store, personID string) []chat.WorkFrame {
	t.Helper()
	out, err := s.WorkFrames(t.Context(), personID, 0)
	require.NoError(t, err)
	return out
}

func statuses(fs []chat.WorkFrame) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f.Work.Status)
		if f.Work.Ended {
			out[i] += " (ended)"
		}
	}
	return out
}

func TestStatusChangesAreAnnouncedToTheirPersonOnly(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "plan the week")
		require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, 1))
		require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusPaused, 1))
		f.finish(t, turn, chat.StatusStopped, "")
		require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, 2), "a late change to a finished turn is ignored")
		f.finish(t, turn, chat.StatusDone, "") // already finished: no second ending

		got := frames(t, f.store, f.ann)
		require.Equal(t, []string{"queued", "working", "paused", "stopped (ended)"}, statuses(got))
		for i, fr := range got {
			require.Equal(t, int64(i+1), fr.Seq)
			require.WithinDuration(t, turn.CreatedAt, fr.Work.StartedAt, time.Millisecond) // Postgres keeps microseconds
			a := fr.Work
			a.StartedAt = time.Time{}
			require.Equal(t, chat.Work{Kind: chat.WorkTurn, ID: turn.ID, ConversationID: f.conv.ID, Status: a.Status,
				Title: "Planning", Step: a.Step, Ended: a.Ended}, a)
		}
		require.Equal(t, 1, got[2].Work.Step)
		require.Empty(t, frames(t, f.store, f.bob), "never another person's work")
		head, err := f.store.WorkHead(ctx, f.ann)
		require.NoError(t, err)
		require.EqualValues(t, 4, head)
	})
}

// Changes of one person's work made at once (the api and several workers)
// get distinct, gapless numbers, and the last frame of each turn tells
// its last state.
func TestConcurrentChangesAreNumberedWithoutGaps(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		var turns []chat.Turn
		for i := range 4 {
			conv, err := f.store.CreateConversation(ctx, f.ann, f.space, fmt.Sprintf("c%d", i), "")
			require.NoError(t, err)
			turn, err := f.store.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: f.ann, Text: "go"})
			require.NoError(t, err)
			turns = append(turns, turn)
		}
		var wg sync.WaitGroup
		for _, turn := range turns {
			wg.Go(func() {
				for step := 1; step <= 5; step++ {
					require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, step))
				}
			})
		}
		wg.Wait()
		got := frames(t, f.store, f.ann)
		require.Len(t, got, 24, "4 queued (StartTurn), 20 working")
		last := map[string]int{}
		for i, fr := range got {
			require.Equal(t, int64(i+1), fr.Seq)
			last[fr.Work.ID] = fr.Work.Step
		}
		for _, turn := range turns {
			require.Equal(t, 5, last[turn.ID])
		}
	})
}

func TestFollowDeliversFramesWrittenByAnotherProcess(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		f := newFixture(t, url)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		turn := f.start(t, "plan")
		require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, 1))

		// Another api process: its own pool, so nothing written here wakes it
		// but its poll of the heads. The frame below is written as another
		// process would, with no in-process wake-up at all.
		otherDB := dbtest.Open(t, url)
		otherNotifier := notify.New(otherDB)
		t.Cleanup(otherNotifier.Close)
		other := chat.NewStore(otherDB, stream.NewBus(otherDB, otherNotifier))
		got := make(chan chat.WorkFrame)
		done := make(chan error, 1)
		go func() {
			done <- other.FollowWork(ctx, f.ann, 0, func(fr chat.WorkFrame) error {
				select {
				case got <- fr:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
		require.EqualValues(t, 1, (<-got).Seq, "what was there already: queued")
		require.EqualValues(t, 2, (<-got).Seq, "and working")
		require.NoError(t, f.db.Exec("UPDATE frame_heads SET seq = 3 WHERE log = ?", "work:"+f.ann).Error)
		require.NoError(t, f.db.Create(&storage.Frame{Log: "work:" + f.ann, Seq: 3, Type: "work", Data: `{"kind":"turn","id":"x","status":"paused"}`,
			CreatedAt: time.Now().UTC()}).Error)
		start := time.Now()
		fr := <-got
		require.EqualValues(t, 3, fr.Seq)
		require.Equal(t, chat.StatusPaused, fr.Work.Status)
		require.Less(t, time.Since(start), 10*notify.DefaultPollInterval, "the poll found it")
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
}

func TestResumeNeedsEveryLaterFrame(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "plan")
		for step := 1; step <= 4; step++ {
			require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, step))
		}
		resumes := func(after int64) bool {
			ok, err := f.store.WorkResumes(ctx, f.ann, after)
			require.NoError(t, err)
			return ok
		}
		require.True(t, resumes(0))
		require.True(t, resumes(2))
		require.True(t, resumes(5), "up to date (queued, then 4 steps)")
		require.False(t, resumes(6), "a number never given out")
		require.NoError(t, f.db.Where("log = ? AND seq <= 2", "work:"+f.ann).Delete(&storage.Frame{}).Error)
		require.False(t, resumes(1), "frame 2 is gone")
		require.True(t, resumes(2))
	})
}

// Old frames go (pruning runs every 32nd frame of a person), the numbers
// go on.
func TestOldFramesArePrunedNumbersGoOn(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "plan")
		for step := 1; step <= 20; step++ {
			require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, step))
		}
		require.NoError(t, f.db.Model(&storage.Frame{}).Where("log = ?", "work:"+f.ann).
			Update("created_at", time.Now().UTC().Add(-time.Hour)).Error)
		for step := 21; step <= 31; step++ { // frames 22 to 32 (1 is the queued one)
			require.NoError(t, f.store.SetTurnStatus(ctx, turn.ID, chat.StatusWorking, step))
		}
		got := frames(t, f.store, f.ann)
		require.Len(t, got, 11)
		require.EqualValues(t, 22, got[0].Seq)
		require.EqualValues(t, 32, got[len(got)-1].Seq)
	})
}

// A status change is announced on the top bar with its step and title.
func TestAStatusChangeIsAnnounced(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.start(t, "plan the week")
		require.NoError(t, f.store.MarkWorking(ctx, turn.ID, 0))
		require.NoError(t, f.store.MarkWorking(ctx, turn.ID, 1))
		got := frames(t, f.store, f.ann)
		require.Equal(t, []string{"queued", "working", "working"}, statuses(got))
		require.Equal(t, 1, got[2].Work.Step)
		require.Equal(t, "Planning", got[2].Work.Title)
	})
}
