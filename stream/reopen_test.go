package stream_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
	"hub/dbtest"
	"hub/storage"
	"hub/stream"
)

// A reset run reopens an ended turn's stream: the old done frame becomes a
// status frame, a reset frame opens the new attempt, frames sent once per
// attempt are sent again, and a follower waiting after the old done (in
// this process or another) reads on to the one done of the new attempt.
func TestReopenStartsANewAttemptWithOneDone(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.turn(t)
		f.publish(t, turn.ID, stream.TypeRefs, map[string]any{"refs": []any{}})
		f.publish(t, turn.ID, stream.TypeError, map[string]string{"code": "model_error"})
		oldDone := f.publish(t, turn.ID, stream.TypeDone, map[string]string{"status": "error"})
		for _, typ := range []string{stream.TypeRefs, stream.TypeError, stream.TypeDone} {
			has, err := f.bus.HasInAttempt(ctx, turn.ID, typ)
			require.NoError(t, err)
			require.True(t, has, typ)
		}

		// Followers that resumed after the old done, here and in another
		// process, wait.
		other := newBus(t, open(t, f.url))
		read := make(chan string, 16)
		for _, b := range []*stream.Bus{f.bus, other} {
			stream.SetReadHook(b, func(string) {
				select {
				case read <- "":
				default:
				}
			})
		}
		listening := make(chan struct{}, 1)
		stream.SetListenerHooks(other, nil, func(uint32) {
			select {
			case listening <- struct{}{}:
			default:
			}
		})
		got := make(chan []stream.Frame, 2)
		for _, b := range []*stream.Bus{f.bus, other} {
			go func() {
				var fs []stream.Frame
				err := b.Follow(ctx, turn.ID, oldDone, func(fr stream.Frame) error { fs = append(fs, fr); return nil })
				if err != nil && ctx.Err() == nil {
					fs = nil
				}
				got <- fs
			}()
		}
		for range 2 {
			<-read // each follower has joined and read: it waits
		}
		if f.db.Dialect == storage.Postgres {
			<-listening // the other process hears of the reopening
		}

		_, err := f.chat.ClaimTurn(ctx, turn.ID, "run-2", 0, nil) // the first run's claim: nothing reopens
		require.NoError(t, err)
		_, err = f.chat.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError})
		require.NoError(t, err)
		reopened, err := f.chat.ClaimTurn(ctx, turn.ID, "run-3", 0, func(ctx context.Context) error {
			return f.bus.Reopen(ctx, turn.ID, 1, []stream.Draft{{Type: stream.TypeText, Data: map[string]string{"delta": "kept"}}})
		})
		require.NoError(t, err)
		require.True(t, reopened)
		f.bus.Wake(turn.ID)

		frames, err := f.bus.Frames(ctx, turn.ID, 0)
		require.NoError(t, err)
		require.Len(t, frames, 5)
		require.Equal(t, stream.TypeStatus, frames[2].Type, "the old done is a status frame now")
		require.Equal(t, oldDone, frames[2].Seq)
		require.Equal(t, stream.TypeStatus, frames[3].Type)
		require.JSONEq(t, `{"status":"working","step":1,"discard":true,"reset":true,"text":"This turn runs again…"}`, string(frames[3].Data))
		require.Equal(t, stream.TypeText, frames[4].Type)
		for _, typ := range []string{stream.TypeRefs, stream.TypeError, stream.TypeDone} {
			has, err := f.bus.HasInAttempt(ctx, turn.ID, typ)
			require.NoError(t, err)
			require.False(t, has, "%s is sent again in the new attempt", typ)
		}
		done := f.publish(t, turn.ID, stream.TypeDone, map[string]string{"status": "done"})
		for range 2 {
			fs := <-got
			require.Len(t, fs, 3, "reset, kept text, done")
			require.Equal(t, oldDone+1, fs[0].Seq)
			require.Equal(t, done, fs[2].Seq)
		}
	})
}

// PublishFirst publishes a frame of its type once per attempt: again after
// a reopen, never twice in one; a missing turn is an error.
func TestPublishFirstSendsOnePerAttempt(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx := t.Context()
		turn := f.turn(t)
		fl := startFollow(t, f.bus, turn.ID, 0)
		sent, err := f.bus.PublishFirst(ctx, turn.ID, stream.TypeRefs, map[string]any{"refs": []any{}})
		require.NoError(t, err)
		require.True(t, sent)
		require.Equal(t, stream.TypeRefs, fl.next(t).Type)
		sent, err = f.bus.PublishFirst(ctx, turn.ID, stream.TypeRefs, map[string]any{"refs": []any{"again"}})
		require.NoError(t, err)
		require.False(t, sent, "one refs frame an attempt")
		text := f.publish(t, turn.ID, stream.TypeText, map[string]string{"delta": "hi"})
		got := fl.next(t)
		require.Equal(t, text, got.Seq, "no number was used by the frame not sent")
		require.Equal(t, int64(2), got.Seq)

		_, err = f.chat.ClaimTurn(ctx, turn.ID, "run-2", 0, nil)
		require.NoError(t, err)
		_, err = f.chat.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError})
		require.NoError(t, err)
		reopened, err := f.chat.ClaimTurn(ctx, turn.ID, "run-3", 0, func(ctx context.Context) error {
			return f.bus.Reopen(ctx, turn.ID, 1, nil)
		})
		require.NoError(t, err)
		require.True(t, reopened)
		f.bus.Wake(turn.ID)
		require.Equal(t, stream.TypeStatus, fl.next(t).Type, "the reset")
		sent, err = f.bus.PublishFirst(ctx, turn.ID, stream.TypeRefs, map[string]any{"refs": []any{}})
		require.NoError(t, err)
		require.True(t, sent, "a new attempt sends its own")
		require.Equal(t, stream.TypeRefs, fl.next(t).Type)
		sent, err = f.bus.PublishFirst(ctx, turn.ID, stream.TypeDone, map[string]any{"status": "done"})
		require.NoError(t, err)
		require.True(t, sent)
		require.Equal(t, stream.TypeDone, fl.next(t).Type)
		require.NoError(t, fl.end(t))

		_, err = f.bus.PublishFirst(ctx, "turn_missing", stream.TypeDone, map[string]any{})
		require.Error(t, err)
	})
}

// Two publishers racing for one attempt's done frame (a retried FinishTurn
// whose first attempt still runs) store one: both checked before either
// stored, and the unique index refuses the second, which answers false
// and uses no number. Without the index both stored one (the check and
// the publish are one statement, but not a lock).
func TestPublishFirstRacingStoresOne(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t) // SQLite has one connection: no race to run
	f := newFixture(t, url)
	for _, in := range []bool{false, true} {
		turn := f.turn(t)
		lock := dbtest.LockRow(t, f.db, "turns", turn.ID)
		type result struct {
			sent bool
			err  error
		}
		results := make(chan result, 2)
		for i := range 2 {
			go func() {
				data := map[string]any{"status": "done", "racer": i}
				if !in {
					sent, err := f.bus.PublishFirst(t.Context(), turn.ID, stream.TypeDone, data)
					results <- result{sent, err}
					return
				}
				// In the caller's transaction, as FinishTurn publishes it.
				var sent bool
				err := f.db.InTx(t.Context(), func(ctx context.Context) error {
					var err error
					sent, err = f.bus.PublishFirst(ctx, turn.ID, stream.TypeDone, data)
					return err
				})
				results <- result{sent, err}
			}()
		}
		lock.AwaitWaiters(2)
		lock.Release()
		sent := 0
		for range 2 {
			r := <-results
			if in && errors.Is(r.err, stream.ErrFirstTaken) {
				continue // its transaction was aborted; a retry finds the frame
			}
			require.NoError(t, r.err)
			if r.sent {
				sent++
			}
		}
		require.Equal(t, 1, sent, "one publisher stored the done frame (in a transaction: %v)", in)
		frames, err := f.bus.Frames(t.Context(), turn.ID, 0)
		require.NoError(t, err)
		require.Len(t, frames, 1, "one done frame")
		require.Equal(t, stream.TypeDone, frames[0].Type)
		require.EqualValues(t, 1, frames[0].Seq)
		var row storage.Turn
		require.NoError(t, f.db.Take(&row, "id = ?", turn.ID).Error)
		require.EqualValues(t, 1, row.FrameSeq, "the refused frame used no number")
		sentAgain, err := f.bus.PublishFirst(t.Context(), turn.ID, stream.TypeDone, map[string]any{"status": "done"})
		require.NoError(t, err)
		require.False(t, sentAgain)
	}
}
