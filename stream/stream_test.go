package stream_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"hub/chat"
	"hub/dbtest"
	"hub/notify"
	"hub/storage"
	"hub/stream"
	"hub/workspace"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// wait bounds how long a test waits for something that should happen at
// once; it is a failure deadline, never a sleep.
const wait = 10 * time.Second

type fixture struct {
	url   string
	db    *storage.DB
	bus   *stream.Bus
	chat  *chat.Store
	conv  chat.Conversation
	actor string
}

func each(t *testing.T, fn func(t *testing.T, f *fixture)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		fn(t, newFixture(t, url))
	})
}

func open(t testing.TB, url string) *storage.DB {
	t.Helper()
	db, err := storage.Open(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newBus returns a Bus closed when the test ends, before its database.
func newBus(t testing.TB, db *storage.DB) *stream.Bus {
	t.Helper()
	n := notify.New(db)
	b := stream.NewBus(db, n)
	t.Cleanup(func() {
		b.Close()
		n.Close()
	})
	return b
}

func newFixture(t testing.TB, url string) *fixture {
	t.Helper()
	ctx := t.Context()
	db := open(t, url)
	require.NoError(t, db.Migrate(ctx))
	bus := newBus(t, db)
	f := &fixture{url: url, db: db, bus: bus, chat: chat.NewStore(db, bus)}
	space, person, err := workspace.NewService(db).EnsureMember(ctx, "Acme", "Ann Archer", workspace.RoleOwner)
	require.NoError(t, err)
	f.actor = person
	f.conv, err = f.chat.CreateConversation(ctx, person, space, "", "")
	require.NoError(t, err)
	return f
}

// turn starts a turn in a conversation of its own, so tests may run several.
func (f *fixture) turn(t testing.TB) chat.Turn {
	t.Helper()
	conv, err := f.chat.CreateConversation(t.Context(), f.actor, f.conv.SpaceID, "", "")
	require.NoError(t, err)
	turn, err := f.chat.StartTurn(t.Context(), chat.NewTurn{ConversationID: conv.ID, PersonID: f.actor, Text: "hi"})
	require.NoError(t, err)
	return turn
}

func (f *fixture) publish(t testing.TB, turnID, typ string, data any) int64 {
	t.Helper()
	seq, err := f.bus.Publish(t.Context(), turnID, typ, data)
	require.NoError(t, err)
	return seq
}

// publishN publishes n text frames and then the done frame; it returns the
// number of the done frame.
func (f *fixture) publishN(t *testing.T, turnID string, n int) int64 {
	t.Helper()
	for i := range n {
		f.publish(t, turnID, stream.TypeText, map[string]string{"delta": fmt.Sprint(i)})
	}
	return f.publish(t, turnID, stream.TypeDone, map[string]string{"status": "done"})
}

// follow runs Follow to its end and returns the sequence numbers delivered.
func follow(t *testing.T, bus *stream.Bus, turnID string, after int64) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	var seqs []int64
	err := bus.Follow(ctx, turnID, after, func(f stream.Frame) error {
		seqs = append(seqs, f.Seq)
		return nil
	})
	require.NoError(t, err)
	return seqs
}

func seqRange(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestPublishNumbersFramesPerTurn(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		a, b := f.turn(t), f.turn(t)
		require.EqualValues(t, 1, f.publish(t, a.ID, stream.TypeRefs, map[string]any{"refs": []any{}}))
		require.EqualValues(t, 2, f.publish(t, a.ID, stream.TypeStatus, map[string]any{"status": "working", "step": 1}))
		require.EqualValues(t, 1, f.publish(t, b.ID, stream.TypeText, map[string]any{"delta": "x"}), "each turn counts from 1")
		require.EqualValues(t, 3, f.publish(t, a.ID, stream.TypeText, map[string]any{"delta": "Hel"}))

		frames, err := f.bus.Frames(t.Context(), a.ID, 0)
		require.NoError(t, err)
		require.Len(t, frames, 3)
		require.Equal(t, stream.TypeRefs, frames[0].Type)
		require.JSONEq(t, `{"status":"working","step":1}`, string(frames[1].Data))
		require.Equal(t, stream.TypeText, frames[2].Type)
		require.JSONEq(t, `{"delta":"Hel"}`, string(frames[2].Data))
		require.False(t, frames[2].CreatedAt.IsZero())

		after, err := f.bus.Frames(t.Context(), a.ID, 2)
		require.NoError(t, err)
		require.Len(t, after, 1)
		require.EqualValues(t, 3, after[0].Seq)

		var row storage.Turn
		require.NoError(t, f.db.Take(&row, "id = ?", a.ID).Error)
		require.EqualValues(t, 3, row.FrameSeq, "the turn keeps its last number")

		_, err = f.bus.Publish(t.Context(), "turn_missing", stream.TypeText, map[string]any{})
		require.ErrorContains(t, err, "turn_missing")
		_, err = f.bus.Publish(t.Context(), a.ID, stream.TypeText, make(chan int))
		require.Error(t, err, "data that cannot be JSON")
		require.EqualValues(t, 4, f.publish(t, a.ID, stream.TypeText, nil), "a failed publish used no number")
	})
}

// Tool calls of one step run side by side, each publishing frames: the
// numbers stay distinct and gapless.
func TestConcurrentPublishers(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		const publishers, each = 8, 150
		got := make([][]int64, publishers)
		var wg sync.WaitGroup
		errs := make(chan error, publishers)
		for p := range publishers {
			wg.Go(func() {
				for i := range each {
					seq, err := f.bus.Publish(t.Context(), turn.ID, stream.TypeTool, map[string]any{"publisher": p, "i": i})
					if err != nil {
						errs <- err
						return
					}
					got[p] = append(got[p], seq)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		var all []int64
		for _, seqs := range got {
			require.True(t, slices.IsSorted(seqs), "one publisher's frames are numbered in its order")
			all = append(all, seqs...)
		}
		slices.Sort(all)
		require.Equal(t, seqRange(1, publishers*each), all, "distinct and gapless")

		// More than one read's worth (1,000) of frames: Follow delivers them all.
		done := f.publish(t, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
		require.Equal(t, seqRange(1, done), follow(t, f.bus, turn.ID, 0))
		require.Equal(t, seqRange(1001, done), follow(t, f.bus, turn.ID, 1000))
	})
}

func TestFollowResumesFromAnyLastEventID(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		done := f.publishN(t, turn.ID, 6)
		require.EqualValues(t, 7, done)
		for after := int64(0); after <= done; after++ {
			var want []int64
			if after < done {
				want = seqRange(after+1, done)
			}
			if after == done {
				// Nothing after the done frame: Follow waits, as for a turn
				// still running, until its context ends.
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				err := f.bus.Follow(ctx, turn.ID, after, func(stream.Frame) error { return errors.New("no frame expected") })
				require.ErrorIs(t, err, context.Canceled)
				continue
			}
			require.Equal(t, want, follow(t, f.bus, turn.ID, after), "after %d", after)
		}

		// Each frame arrives with its type and data, in order.
		var frames []stream.Frame
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		require.NoError(t, f.bus.Follow(ctx, turn.ID, 5, func(fr stream.Frame) error {
			frames = append(frames, fr)
			return nil
		}))
		require.Len(t, frames, 2)
		require.Equal(t, stream.TypeText, frames[0].Type)
		require.JSONEq(t, `{"delta":"5"}`, string(frames[0].Data))
		require.Equal(t, stream.TypeDone, frames[1].Type)
	})
}

// Follow returns once the done frame is delivered, even when more frames
// were published after it.
func TestFollowStopsAtDone(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		done := f.publishN(t, turn.ID, 2)
		f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": "late"})
		require.Equal(t, seqRange(1, done), follow(t, f.bus, turn.ID, 0))
	})
}

func TestFollowReturnsTheCallbackError(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		f.publishN(t, turn.ID, 3)
		boom := errors.New("client went away")
		var seen []int64
		err := f.bus.Follow(t.Context(), turn.ID, 0, func(fr stream.Frame) error {
			seen = append(seen, fr.Seq)
			if fr.Seq == 2 {
				return boom
			}
			return nil
		})
		require.ErrorIs(t, err, boom)
		require.Equal(t, []int64{1, 2}, seen, "nothing after the failed frame")
	})
}

// A follower in the same process wakes the moment a frame is published: the
// poll is set to an hour, so only the wake-up can deliver in time.
func TestFollowWakesForInProcessPublish(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		stream.SetPollInterval(f.bus, time.Hour)
		frames := make(chan stream.Frame)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			errc <- f.bus.Follow(ctx, turn.ID, 0, func(fr stream.Frame) error {
				select {
				case frames <- fr:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
		receive := func() stream.Frame {
			t.Helper()
			select {
			case fr := <-frames:
				return fr
			case err := <-errc:
				t.Fatalf("Follow returned early: %v", err)
			case <-time.After(wait):
				t.Fatal("the follower was not woken")
			}
			return stream.Frame{}
		}
		for i := range 5 {
			seq := f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": i})
			require.Equal(t, seq, receive().Seq)
		}
		done := f.publish(t, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
		require.Equal(t, done, receive().Seq)
		select {
		case err := <-errc:
			require.NoError(t, err, "Follow returns after the done frame")
		case <-time.After(wait):
			t.Fatal("Follow did not return after the done frame")
		}
	})
}

// Several followers of one turn each get every frame.
func TestManyFollowers(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		stream.SetPollInterval(f.bus, time.Hour)
		const followers = 4
		got := make([][]int64, followers)
		started := make(chan struct{}, followers)
		var wg sync.WaitGroup
		for i := range followers {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(t.Context(), wait)
				defer cancel()
				_ = f.bus.Follow(ctx, turn.ID, 0, func(fr stream.Frame) error {
					if fr.Seq == 1 {
						started <- struct{}{}
					}
					got[i] = append(got[i], fr.Seq)
					return nil
				})
			})
		}
		f.publish(t, turn.ID, stream.TypeStatus, map[string]any{"status": "working"})
		for range followers {
			<-started
		}
		done := f.publishN(t, turn.ID, 10)
		wg.Wait()
		for i := range followers {
			require.Equal(t, seqRange(1, done), got[i], "follower %d", i)
		}
	})
}

// The followers of one turn share its reads: a frame costs one query
// however many clients watch, and a follower that joins late, from an
// earlier Last-Event-ID, still gets every frame.
func TestFollowersOfATurnShareReads(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		var reads atomic.Int64
		stream.SetReadHook(bus, func(string) { reads.Add(1) })
		var pids <-chan uint32
		if dbtest.IsPostgres(f.url) {
			pids = listenerPIDs(bus, nil)
		}

		const followers, frames = 50, 10
		got := make([][]int64, followers)
		received := make(chan struct{}, followers)
		var wg sync.WaitGroup
		for i := range followers {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(t.Context(), wait)
				defer cancel()
				_ = bus.Follow(ctx, turn.ID, 0, func(fr stream.Frame) error {
					got[i] = append(got[i], fr.Seq)
					received <- struct{}{}
					return nil
				})
			})
		}
		everyone := func() {
			t.Helper()
			for range followers {
				receive(t, received, "frame at every follower")
			}
		}
		publish := func(typ string) int64 {
			t.Helper()
			seq, err := bus.Publish(t.Context(), turn.ID, typ, map[string]any{})
			require.NoError(t, err)
			return seq
		}
		publish(stream.TypeStatus)
		everyone()
		if pids != nil {
			// The listener's first connection wakes every follower once;
			// that read is not one of the frames'.
			receive(t, pids, "the listener")
		}
		before := reads.Load()
		for range frames {
			publish(stream.TypeText)
			everyone()
		}
		// One read per frame; one more if the listener (Postgres) had to
		// reconnect meanwhile and woke everyone.
		require.LessOrEqual(t, reads.Load()-before, int64(frames+1), "not one read per follower")

		type result struct {
			seqs []int64
			err  error
		}
		late := make(chan result, 1)
		go func() {
			var r result
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			r.err = bus.Follow(ctx, turn.ID, 0, func(fr stream.Frame) error {
				r.seqs = append(r.seqs, fr.Seq)
				return nil
			})
			late <- r
		}()
		done := publish(stream.TypeDone)
		everyone()
		wg.Wait()
		for i := range followers {
			require.Equal(t, seqRange(1, done), got[i], "follower %d", i)
		}
		r := receive(t, late, "the late follower's end")
		require.NoError(t, r.err)
		require.Equal(t, seqRange(1, done), r.seqs, "the late follower")
	})
}

// A follower on another api process (another Bus on the same database) sees
// frames: on Postgres by notification, on SQLite by polling (hub dev is one
// process; two processes on one SQLite file are not a setup Hub offers, but
// the poll keeps them correct).
func TestFollowAcrossProcesses(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		reader := newBus(t, open(t, f.url))
		stream.SetPollInterval(reader, 10*time.Millisecond)

		frames := make(chan stream.Frame)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			errc <- reader.Follow(ctx, turn.ID, 0, func(fr stream.Frame) error {
				select {
				case frames <- fr:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
		for i := range 3 {
			seq := f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": i})
			select {
			case fr := <-frames:
				require.Equal(t, seq, fr.Seq)
			case <-time.After(wait):
				t.Fatal("the other process's follower did not see the frame")
			}
		}
		done := f.publish(t, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
		select {
		case fr := <-frames:
			require.Equal(t, done, fr.Seq)
		case <-time.After(wait):
			t.Fatal("no done frame")
		}
		require.NoError(t, <-errc)

		// And it resumes from a Last-Event-ID of its own.
		require.Equal(t, seqRange(3, done), follow(t, reader, turn.ID, 2))
	})
}

// A turn whose conversation is deleted while it is followed: its followers
// get every frame it had, then Follow ends with ErrTurnGone. Nothing is
// published after the deletion here, so the poll is what finds it gone.
func TestFollowEndsWhenTheTurnIsGone(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, 20*time.Millisecond)
		fl := startFollow(t, bus, turn.ID, 0)
		f.publish(t, turn.ID, stream.TypeStatus, map[string]any{"status": "working"})
		require.EqualValues(t, 1, fl.next(t).Seq)
		// Published before the deletion, delivered after it.
		f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": "a"})
		f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": "b"})
		_, err := f.chat.DeleteConversation(t.Context(), f.actor, turn.ConversationID)
		require.NoError(t, err)
		require.EqualValues(t, 2, fl.next(t).Seq)
		require.EqualValues(t, 3, fl.next(t).Seq)
		require.ErrorIs(t, fl.end(t), stream.ErrTurnGone)

		// A follower that comes later (a client resuming) ends the same way,
		// at once, after the frames it has not seen.
		fl = startFollow(t, bus, turn.ID, 2)
		require.EqualValues(t, 3, fl.next(t).Seq)
		require.ErrorIs(t, fl.end(t), stream.ErrTurnGone)

		// A turn that ended before it was deleted ends with its own done
		// frame.
		ended := f.turn(t)
		done := f.publishN(t, ended.ID, 1)
		_, err = f.chat.DeleteConversation(t.Context(), f.actor, ended.ConversationID)
		require.NoError(t, err)
		require.Equal(t, seqRange(1, done), follow(t, bus, ended.ID, 0))
	})
}

// followEverywhere follows a turn from this process and, on Postgres, from
// another one, with their polls set to an hour (so only wake-ups move
// them), and has both deliver a first frame.
func followEverywhere(t *testing.T, f *fixture, turnID string) []*following {
	t.Helper()
	stream.SetPollInterval(f.bus, time.Hour)
	followers := []*following{startFollow(t, f.bus, turnID, 0)}
	if dbtest.IsPostgres(f.url) {
		other := newBus(t, open(t, f.url))
		stream.SetPollInterval(other, time.Hour)
		pids := listenerPIDs(other, nil)
		followers = append(followers, startFollow(t, other, turnID, 0))
		receive(t, pids, "the other process's listener")
	}
	f.publish(t, turnID, stream.TypeStatus, map[string]any{"status": "working"})
	for _, fl := range followers {
		require.EqualValues(t, 1, fl.next(t).Seq)
	}
	return followers
}

// The worker whose model call is still streaming publishes to the deleted
// turn: that fails, and wakes the turn's followers in its process and, on
// Postgres, in every other one, which then find the turn gone. The polls
// are set to an hour, so only those wake-ups can end the followers.
func TestPublishToADeletedTurnEndsItsFollowers(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		followers := followEverywhere(t, f, turn.ID)
		_, err := f.chat.DeleteConversation(t.Context(), f.actor, turn.ConversationID)
		require.NoError(t, err)
		_, err = f.bus.Publish(t.Context(), turn.ID, stream.TypeText, map[string]any{"delta": "late"})
		require.ErrorContains(t, err, "no turn")
		for _, fl := range followers {
			require.ErrorIs(t, fl.end(t), stream.ErrTurnGone)
		}
	})
}

// The api that deletes a conversation ends its running turns' followers
// at once, in its process and in every other one, though nothing is
// published to the turn any more (the polls are set to an hour).
func TestEndedEndsTheFollowersOfADeletedTurn(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn := f.turn(t)
		followers := followEverywhere(t, f, turn.ID)
		_, err := f.chat.DeleteConversation(t.Context(), f.actor, turn.ConversationID)
		require.NoError(t, err)
		require.NoError(t, f.bus.Ended(t.Context(), turn.ID))
		for _, fl := range followers {
			require.ErrorIs(t, fl.end(t), stream.ErrTurnGone)
		}
	})
}

// Ended wakes every deleted turn's followers in this process even when
// telling the other processes fails (here: its context is already done,
// so the first notify fails on Postgres): none waits for its poll.
func TestEndedWakesEveryLocalFollowerFirst(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, time.Hour)
		a, b := f.turn(t), f.turn(t)
		fa, fb := startFollow(t, bus, a.ID, 0), startFollow(t, bus, b.ID, 0)
		for _, fl := range []struct {
			id string
			f  *following
		}{{a.ID, fa}, {b.ID, fb}} {
			_, err := bus.Publish(t.Context(), fl.id, stream.TypeStatus, map[string]any{"status": "working"})
			require.NoError(t, err)
			require.EqualValues(t, 1, fl.f.next(t).Seq, "following")
		}
		for _, turn := range []chat.Turn{a, b} {
			_, err := f.chat.DeleteConversation(t.Context(), f.actor, turn.ConversationID)
			require.NoError(t, err)
		}
		gone, cancel := context.WithCancel(t.Context())
		cancel()
		err := bus.Ended(gone, a.ID, b.ID)
		if f.db.Dialect == storage.Postgres {
			require.Error(t, err, "the notify could not go out")
		}
		require.ErrorIs(t, fa.end(t), stream.ErrTurnGone)
		require.ErrorIs(t, fb.end(t), stream.ErrTurnGone)
	})
}

// A follower of a turn that ended long ago, whose frames the sweep removed
// (before it came, or while it waited), ends with ErrFramesSwept instead of
// waiting for a done frame that is gone. A turn that ended a moment ago and
// has no done frame yet is still waited for: FinishTurn publishes it next.
func TestFollowEndsWhenTheFramesWereSwept(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		end := func(turnID string, at time.Time) {
			require.NoError(t, f.db.Model(&storage.Turn{}).Where("id = ?", turnID).
				Updates(map[string]any{"status": "done", "finished_at": at.UTC()}).Error)
		}
		bus := newBus(t, f.db)
		stream.SetPollInterval(bus, 20*time.Millisecond)

		// Swept before the follower came.
		early := f.turn(t)
		done := f.publishN(t, early.ID, 2)
		end(early.ID, time.Now().Add(-stream.Retention-time.Minute))
		_, err := bus.Sweep(ctx, time.Now().Add(-stream.Retention))
		require.NoError(t, err)
		require.ErrorIs(t, startFollow(t, bus, early.ID, done).end(t), stream.ErrFramesSwept)

		// Swept while it waited: it had every frame (a client that resumed
		// after done), then the sweep ran.
		late := f.turn(t)
		done = f.publishN(t, late.ID, 2)
		end(late.ID, time.Now().Add(-stream.Retention-time.Minute))
		fl := startFollow(t, bus, late.ID, done)
		select {
		case <-fl.done:
			t.Fatalf("a follower past the done frame of a turn whose frames are kept ended: %v", fl.err)
		case <-time.After(100 * time.Millisecond): // five polls
		}
		_, err = bus.Sweep(ctx, time.Now().Add(-stream.Retention))
		require.NoError(t, err)
		require.ErrorIs(t, fl.end(t), stream.ErrFramesSwept)

		// Ended a moment ago, its done frame not yet published: waited for.
		fresh := f.turn(t)
		f.publish(t, fresh.ID, stream.TypeStatus, map[string]any{"status": "working"})
		end(fresh.ID, time.Now())
		fl = startFollow(t, bus, fresh.ID, 1)
		f.publish(t, fresh.ID, stream.TypeDone, map[string]any{"status": "done"})
		require.EqualValues(t, 2, fl.next(t).Seq)
		require.NoError(t, fl.end(t))
	})
}

func TestHas(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		turn, other := f.turn(t), f.turn(t)
		has, err := f.bus.Has(t.Context(), turn.ID, stream.TypeDone)
		require.NoError(t, err)
		require.False(t, has)
		f.publish(t, turn.ID, stream.TypeText, map[string]any{"delta": "x"})
		has, err = f.bus.Has(t.Context(), turn.ID, stream.TypeDone)
		require.NoError(t, err)
		require.False(t, has)
		f.publish(t, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
		has, err = f.bus.Has(t.Context(), turn.ID, stream.TypeDone)
		require.NoError(t, err)
		require.True(t, has)
		has, err = f.bus.Has(t.Context(), other.ID, stream.TypeDone)
		require.NoError(t, err)
		require.False(t, has, "per turn")
	})
}

func TestSweep(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		now := time.Now().UTC()
		old, recent, running, gone := f.turn(t), f.turn(t), f.turn(t), f.turn(t)
		for _, turn := range []chat.Turn{old, recent, running, gone} {
			f.publishN(t, turn.ID, 2)
		}
		end := func(turn chat.Turn, at time.Time) {
			require.NoError(t, f.db.Model(&storage.Turn{}).Where("id = ?", turn.ID).
				Updates(map[string]any{"status": "done", "finished_at": at}).Error)
		}
		end(old, now.Add(-time.Hour))
		end(recent, now.Add(-time.Minute))
		// A turn whose conversation was deleted leaves its frames behind.
		_, err := f.chat.DeleteConversation(ctx, f.actor, gone.ConversationID)
		require.NoError(t, err)

		count := func(turn chat.Turn) int {
			frames, err := f.bus.Frames(ctx, turn.ID, 0)
			require.NoError(t, err)
			return len(frames)
		}

		// Ten minutes ago, as a clock in another time zone reads it: the
		// same instant.
		cutoff := now.Add(-10 * time.Minute).In(time.FixedZone("UTC+5", 5*3600))
		n, err := f.bus.Sweep(ctx, cutoff)
		require.NoError(t, err)
		require.EqualValues(t, 3, n, "only the turn that ended before the cutoff")
		require.Zero(t, count(old))
		require.Equal(t, 3, count(recent), "ended after the cutoff")
		require.Equal(t, 3, count(running), "still running")
		require.Equal(t, 3, count(gone), "frames newer than the cutoff, though their turn is gone")

		n, err = f.bus.Sweep(ctx, cutoff)
		require.NoError(t, err)
		require.Zero(t, n, "nothing more to sweep")

		n, err = f.bus.Sweep(ctx, now.Add(time.Second).In(time.FixedZone("UTC-8", -8*3600)))
		require.NoError(t, err)
		require.EqualValues(t, 6, n, "the turn that has now ended long enough, and the deleted turn's frames")
		require.Zero(t, count(recent))
		require.Zero(t, count(gone))
		require.Equal(t, 3, count(running), "a running turn keeps its frames")
	})
}
