package stream_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/storage"
	"hub/stream"
)

// A turn's frames and a log with a head share the one frames table, each
// numbered on its own; a follower of either sees only its log's frames,
// and the sweep of turns' frames leaves the other log alone.
func TestLogsShareTheTableNotTheirFrames(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		turn := f.turn(t)
		const log = "work:someone"
		type got struct {
			log string
			seq int64
			typ string
		}
		frames := make(chan got, 16)
		followTo := func(log string, last int64, follow func(context.Context, string, int64, func(stream.Frame) error) error) {
			go func() {
				_ = follow(ctx, log, 0, func(fr stream.Frame) error {
					frames <- got{log, fr.Seq, fr.Type}
					if fr.Seq == last {
						return context.Canceled
					}
					return nil
				})
			}()
		}
		followTo(turn.ID, 2, f.bus.Follow)
		followTo(log, 2, f.bus.FollowLog)

		f.publish(t, turn.ID, stream.TypeText, map[string]string{"delta": "a"})
		for i := range 2 {
			seq, err := f.bus.Append(ctx, log, "work", func() (any, error) { return map[string]int{"n": i}, nil })
			require.NoError(t, err)
			require.EqualValues(t, i+1, seq, "numbered by the log's head, not by the turn")
		}
		f.publish(t, turn.ID, stream.TypeDone, map[string]string{"status": "done"})

		byLog := map[string][]got{}
		for range 4 {
			select {
			case g := <-frames:
				byLog[g.log] = append(byLog[g.log], g)
			case <-ctx.Done():
				t.Fatalf("frames so far: %v", byLog)
			}
		}
		require.Equal(t, []got{{turn.ID, 1, stream.TypeText}, {turn.ID, 2, stream.TypeDone}}, byLog[turn.ID])
		require.Equal(t, []got{{log, 1, "work"}, {log, 2, "work"}}, byLog[log])

		var logs []string
		require.NoError(t, f.db.Model(&storage.Frame{}).Distinct("log").Order("log").Pluck("log", &logs).Error)
		// With the work log chat wrote when the turn started.
		require.ElementsMatch(t, []string{turn.ID, log, "work:" + f.actor}, logs, "one table")

		_, err := f.bus.Sweep(ctx, time.Now().Add(time.Hour))
		require.NoError(t, err)
		head, err := f.bus.Head(ctx, log)
		require.NoError(t, err)
		require.EqualValues(t, 2, head)
		resumes, err := f.bus.Resumes(ctx, log, 0)
		require.NoError(t, err)
		require.True(t, resumes, "a log with a head is no turn's orphan: the sweep leaves it")
	})
}
