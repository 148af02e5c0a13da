package temporal

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const benchTaskQueue = "temporal-bench"

// noop is the activity the benchmark workflows run: all of its cost is
// Temporal's.
func noop(context.Context) error { return nil }

// sequentialNoops runs n no-op activities one after another, each its own
// workflow-task round trip, like a turn's model steps.
func sequentialNoops(ctx workflow.Context, n int) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	for range n {
		if err := workflow.ExecuteActivity(ctx, noop).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkWorkflow measures what the embedded server costs a workflow:
// an empty one (start, one workflow task, result) and one of 5 sequential
// no-op activities, on Temporal's stock dynamic config and on Hub's
// (dynamicconfig/hub.yaml), in memory and on a SQLite file. One op is one
// workflow, started eagerly and awaited with run.Get, as Hub's callers do.
//
// Metrics: ns/op per workflow; ns/activity (5-activity workflows: ns/op / 5);
// p50-ms and max-ms over the run's workflows, because a rare long wait (see
// history.longPollExpirationInterval in hub.yaml) moves the mean but not the
// median.
//
// Run: go test ./temporal -run '^$' -bench Workflow -count 5 -benchtime 40x
func BenchmarkWorkflow(b *testing.B) {
	for _, cfg := range []struct {
		name string
		opts Options
		file bool
	}{
		{name: "stock/memory", opts: Options{StockDynamicConfig: true}},
		{name: "hub/memory", opts: Options{}},
		{name: "hub/file", opts: Options{}, file: true},
	} {
		b.Run(cfg.name, func(b *testing.B) {
			opts := cfg.opts
			if cfg.file {
				opts.DatabaseFile = filepath.Join(b.TempDir(), "temporal.db")
			}
			s := startServer(b, opts)
			c := dial(b, s)
			w := worker.New(c, benchTaskQueue, worker.Options{})
			w.RegisterWorkflow(sequentialNoops)
			w.RegisterActivity(noop)
			require.NoError(b, w.Start())
			b.Cleanup(w.Stop)
			// Warm up: first task queue load, sticky queue, caches.
			for range 3 {
				runSequentialNoops(b, c, 1)
			}
			for _, activities := range []int{0, 5} {
				name := "empty"
				if activities > 0 {
					name = "5-activities"
				}
				b.Run(name, func(b *testing.B) {
					durations := make([]time.Duration, 0, b.N)
					b.ResetTimer()
					for range b.N {
						t0 := time.Now()
						runSequentialNoops(b, c, activities)
						durations = append(durations, time.Since(t0))
					}
					b.StopTimer()
					if activities > 0 {
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(activities), "ns/activity")
					}
					slices.Sort(durations)
					b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(durations[len(durations)-1].Microseconds())/1000, "max-ms")
				})
			}
		})
	}
}

func runSequentialNoops(b *testing.B, c client.Client, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		TaskQueue:        benchTaskQueue,
		EnableEagerStart: true,
	}, sequentialNoops, n)
	if err != nil {
		b.Fatal(err)
	}
	if err := run.Get(ctx, nil); err != nil {
		b.Fatal(err)
	}
}
