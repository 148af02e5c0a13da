package stream_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/stream"
)

// fanOutFollowers: issue 6 asks how many frames per second one api process
// fans out to 500 connected clients.
const fanOutFollowers = 500

// BenchmarkFanOut publishes b.N text frames from one Bus (the worker) to
// 500 followers on another Bus with its own connection pool (one api
// process), over Postgres NOTIFY. It reports frames/s (published and
// delivered to every follower), deliveries/s (frame × follower), and the
// latency from the Publish call to a follower's callback (p50, p99).
//
//   - one-turn: all 500 followers watch one turn (every frame wakes 500
//     followers; they share one read of the table).
//   - 500-turns: one follower per turn, frames spread over the turns by 8
//     publishers (500 people each watching their own turn).
//
// "max" publishes as fast as the publishers go (throughput; latency is then
// mostly queueing); "paced" publishes at a fixed rate below that, so its
// latency is the delivery path itself.
//
// scripts/test.sh -run '^$' -bench BenchmarkFanOut -benchtime 2000x ./stream
func BenchmarkFanOut(b *testing.B) {
	b.Run("one-turn/max", func(b *testing.B) { fanOut(b, 1, 1, 0) })
	b.Run("one-turn/paced-50", func(b *testing.B) { fanOut(b, 1, 1, 50) })
	b.Run("500-turns/max", func(b *testing.B) { fanOut(b, fanOutFollowers, 8, 0) })
	b.Run("500-turns/paced-250", func(b *testing.B) { fanOut(b, fanOutFollowers, 8, 250) })
}

// sent is a text frame's data in the benchmark: when Publish was called.
type sent struct {
	At int64 `json:"at"`
}

// fanOut runs one case: followers spread over turns, publishers sharing
// b.N frames, at rate frames per second in all (0: as fast as they go).
func fanOut(b *testing.B, turns, publishers int, rate float64) {
	ctx := context.Background()
	f := newFixture(b, dbtest.Postgres(b))
	api := newBus(b, open(b, f.url))
	turnIDs := make([]string, turns)
	for i := range turns {
		turnIDs[i] = f.turn(b).ID
	}

	// Followers, spread over the turns, each recording its latencies.
	lat := make([][]time.Duration, fanOutFollowers)
	last := make([]time.Time, fanOutFollowers) // each follower's last text frame
	ready := make(chan struct{}, fanOutFollowers)
	errs := make(chan error, fanOutFollowers)
	var followers sync.WaitGroup
	for i := range fanOutFollowers {
		turnID := turnIDs[i%turns]
		followers.Go(func() {
			errs <- api.Follow(ctx, turnID, 0, func(fr stream.Frame) error {
				switch fr.Type {
				case stream.TypeStatus: // the warm-up frame
					ready <- struct{}{}
				case stream.TypeText:
					var s sent
					if err := json.Unmarshal(fr.Data, &s); err != nil {
						return err
					}
					last[i] = time.Now()
					lat[i] = append(lat[i], last[i].Sub(time.Unix(0, s.At)))
				}
				return nil
			})
		})
	}
	// Every follower has read once and waits, and the listener is up (the
	// warm-up frames came through it).
	for _, id := range turnIDs {
		f.publish(b, id, stream.TypeStatus, map[string]any{"status": "working"})
	}
	for range fanOutFollowers {
		<-ready
	}

	b.ResetTimer()
	start := time.Now()
	var pubs sync.WaitGroup
	pubErrs := make(chan error, publishers)
	for p := range publishers {
		pubs.Go(func() {
			var pace <-chan time.Time
			if rate > 0 {
				t := time.NewTicker(time.Duration(float64(publishers) / rate * float64(time.Second)))
				defer t.Stop()
				pace = t.C
			}
			for n := p; n < b.N; n += publishers {
				if pace != nil {
					<-pace
				}
				if _, err := f.bus.Publish(ctx, turnIDs[n%turns], stream.TypeText, sent{At: time.Now().UnixNano()}); err != nil {
					pubErrs <- err
					return
				}
			}
		})
	}
	pubs.Wait()
	close(pubErrs)
	for err := range pubErrs {
		require.NoError(b, err)
	}
	for _, id := range turnIDs {
		f.publish(b, id, stream.TypeDone, map[string]any{"status": "done"})
	}
	followers.Wait()
	b.StopTimer()
	// Until the last text frame reached its follower; the done frames
	// that end the followers are not part of the measure.
	elapsed := slices.MaxFunc(last, time.Time.Compare).Sub(start)
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	perFollower := b.N / turns // frames each follower should see (turns divide b.N or nearly)
	require.GreaterOrEqual(b, len(all), perFollower*fanOutFollowers, "every follower got its frames")
	slices.Sort(all)
	q := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "frames/s")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.Logf("%d frames to %d followers over %d turns in %v", b.N, fanOutFollowers, turns, elapsed)
}

// BenchmarkPublish measures Publish alone on Postgres, with no followers:
// the latency of one call (p50, p99) and frames/s. one-turn is a turn
// streaming its text; 8-turns is eight turns streaming at once, one
// publisher each; one-turn/8 is eight publishers on one turn (tool calls
// of a step), which queue on the turn's row lock.
//
// scripts/test.sh -run '^$' -bench BenchmarkPublish -benchtime 5000x ./stream
func BenchmarkPublish(b *testing.B) {
	b.Run("one-turn", func(b *testing.B) { publishing(b, 1, 1) })
	b.Run("8-turns", func(b *testing.B) { publishing(b, 8, 8) })
	b.Run("one-turn/8", func(b *testing.B) { publishing(b, 1, 8) })
}

// publishing runs one case: publishers sharing b.N text frames, spread
// over turns.
func publishing(b *testing.B, turns, publishers int) {
	ctx := context.Background()
	f := newFixture(b, dbtest.Postgres(b))
	turnIDs := make([]string, turns)
	for i := range turns {
		turnIDs[i] = f.turn(b).ID
		f.publish(b, turnIDs[i], stream.TypeStatus, map[string]any{"status": "working"}) // warm the pool
	}
	lat := make([][]time.Duration, publishers)
	errs := make(chan error, publishers)
	b.ResetTimer()
	start := time.Now()
	var pubs sync.WaitGroup
	for p := range publishers {
		pubs.Go(func() {
			for n := p; n < b.N; n += publishers {
				t0 := time.Now()
				if _, err := f.bus.Publish(ctx, turnIDs[p%turns], stream.TypeText, map[string]any{"delta": "Hello, "}); err != nil {
					errs <- err
					return
				}
				lat[p] = append(lat[p], time.Since(t0))
			}
		})
	}
	pubs.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
	all := slices.Concat(lat...)
	require.Len(b, all, b.N)
	slices.Sort(all)
	q := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "frames/s")
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
