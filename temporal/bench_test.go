package temporal

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
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
// cpu-ms/op is the process's user + system time per workflow (server, worker
// and client are all in the test process), which a loaded machine inflates
// far less than the wall time.
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
					cpu0 := processCPU(b)
					b.ResetTimer()
					for range b.N {
						t0 := time.Now()
						runSequentialNoops(b, c, activities)
						durations = append(durations, time.Since(t0))
					}
					b.StopTimer()
					b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
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
	if err := execSequentialNoops(c, n); err != nil {
		b.Fatal(err)
	}
}

func execSequentialNoops(c client.Client, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		TaskQueue:        benchTaskQueue,
		EnableEagerStart: true,
	}, sequentialNoops, n)
	if err != nil {
		return err
	}
	return run.Get(ctx, nil)
}

// processCPU is the user + system time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPollers runs workflows of 3 sequential no-op activities (a turn's
// three model steps) at 20 in flight against an in-memory server with Hub's
// tuning, for several workflow- and activity-task poller settings of the
// worker. One op is one workflow; cpu-ms/op is the whole process's
// (server, worker and client). Activities run eagerly and the first workflow
// task starts eagerly, so the pollers carry the workflow tasks that follow
// each activity (on the worker's sticky queue) and any activity the server
// does not hand out eagerly.
//
// Run: go test ./temporal -run '^$' -bench Pollers -count 3 -benchtime 200x
func BenchmarkPollers(b *testing.B) {
	for _, cfg := range []struct {
		name string
		opts worker.Options
	}{
		{name: "default-2", opts: worker.Options{}},
		{name: "4", opts: worker.Options{MaxConcurrentWorkflowTaskPollers: 4, MaxConcurrentActivityTaskPollers: 4}},
		{name: "8", opts: worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8}},
		{name: "autoscaling", opts: worker.Options{
			WorkflowTaskPollerBehavior: worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{}),
			ActivityTaskPollerBehavior: worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{}),
		}},
	} {
		b.Run(cfg.name, func(b *testing.B) {
			s := startServer(b, Options{})
			c := dial(b, s)
			w := worker.New(c, benchTaskQueue, cfg.opts)
			w.RegisterWorkflow(sequentialNoops)
			w.RegisterActivity(noop)
			require.NoError(b, w.Start())
			b.Cleanup(w.Stop)
			for range 3 {
				runSequentialNoops(b, c, 1)
			}
			runInFlight(b, 20, func() error { return execSequentialNoops(c, 3) })
		})
	}
}

// BenchmarkSQLitePragmas runs BenchmarkWorkflow's 5-activity workflow on a
// SQLite file with Hub's settings (WAL, synchronous=normal) and with one more
// PRAGMA each that the server's SQLite plugin would pass on: a 32 MB page
// cache instead of 2 MB, memory-mapped reads, temporary tables in memory.
// Compare cpu-ms/op, run alternately (docs/temporal.md, "SQLite").
//
// Run: for i in 1 2 3; do go test ./temporal -run '^$' -bench SQLitePragmas -benchtime 20x; done
func BenchmarkSQLitePragmas(b *testing.B) {
	for _, cfg := range []struct {
		name   string
		pragma map[string]string
	}{
		{name: "hub"},
		{name: "cache_size=-32000", pragma: map[string]string{"cache_size": "-32000"}},
		{name: "mmap_size=256MiB", pragma: map[string]string{"mmap_size": "268435456"}},
		{name: "temp_store=memory", pragma: map[string]string{"temp_store": "memory"}},
	} {
		b.Run(cfg.name, func(b *testing.B) {
			s := startServer(b, Options{DatabaseFile: filepath.Join(b.TempDir(), "temporal.db"), sqliteAttributes: cfg.pragma})
			c := dial(b, s)
			w := worker.New(c, benchTaskQueue, worker.Options{})
			w.RegisterWorkflow(sequentialNoops)
			w.RegisterActivity(noop)
			require.NoError(b, w.Start())
			b.Cleanup(w.Stop)
			for range 3 {
				runSequentialNoops(b, c, 1)
			}
			cpu0 := processCPU(b)
			b.ResetTimer()
			for range b.N {
				runSequentialNoops(b, c, 5)
			}
			b.StopTimer()
			b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// benchStatus is the keyword the turn-shaped workflow upserts, as a turn
// upserts TurnStatus.
const benchStatus = "BenchTurnStatus"

// turnShaped records what a Hub turn of BenchmarkTurn's workload records
// (3 model calls, 2 task writes; docs/benchmarks.md) with every activity a
// no-op: one version marker, the working and ending status upserts, the
// wall-clock timer started and cancelled, the local PrepareTurn, three
// CallModel activities, two local RunTools after the first two and the
// local FinishTurn. Its cost is what Temporal alone charges a turn.
// With localModel the model calls are local activities too: what a turn
// would save by giving up the model call's own activity task (its
// heartbeats, its timeout and cancellation as the server sees them).
func turnShaped(ctx workflow.Context, localModel bool) error {
	status := sdktemporal.NewSearchAttributeKeyKeyword(benchStatus)
	workflow.GetVersion(ctx, "turn-shape", workflow.DefaultVersion, 1)
	if err := workflow.UpsertTypedSearchAttributes(ctx, status.ValueSet("working")); err != nil {
		return err
	}
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	wall := workflow.NewTimer(timerCtx, time.Hour)
	local := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
	remote := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	if err := workflow.ExecuteLocalActivity(local, noop).Get(ctx, nil); err != nil {
		return err
	}
	for step := range 3 {
		call := workflow.ExecuteActivity(remote, noop)
		if localModel {
			call = workflow.ExecuteLocalActivity(local, noop)
		}
		if err := call.Get(ctx, nil); err != nil {
			return err
		}
		if step < 2 {
			if err := workflow.ExecuteLocalActivity(local, noop).Get(ctx, nil); err != nil {
				return err
			}
		}
	}
	if err := workflow.ExecuteLocalActivity(local, noop).Get(ctx, nil); err != nil {
		return err
	}
	cancelTimer()
	_ = wall.Get(ctx, nil)
	return workflow.UpsertTypedSearchAttributes(ctx, status.ValueSet("done"))
}

// BenchmarkTurnShape is the floor under a Hub turn's CPU and latency: a
// workflow that records what a turn records (turnShaped) with no-op
// activities, against the embedded server with Hub's tuning on a SQLite
// file (as `hub dev`), the worker polling as Hub's does (autoscaling), all
// in this process. "sequential" runs one workflow at a time (p50-ms is the
// floor of a sequential turn's median), "20-in-flight" twenty at once,
// "local-model-calls" sequentially with the model calls as local activities.
// cpu-ms/op is the whole process's user + system time per workflow:
// Temporal's own share of a turn, before Hub does any work
// (docs/benchmarks.md, "What Temporal alone costs a turn").
//
// Run: go test ./temporal -run '^$' -bench TurnShape -count 3 -benchtime 100x
func BenchmarkTurnShape(b *testing.B) {
	s := startServer(b, Options{DatabaseFile: filepath.Join(b.TempDir(), "temporal.db")})
	c := dial(b, s)
	ctx := context.Background()
	require.NoError(b, EnsureSearchAttributes(ctx, c, s.Namespace(), map[string]enumspb.IndexedValueType{
		benchStatus: enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}))
	w := worker.New(c, benchTaskQueue, worker.Options{
		WorkflowTaskPollerBehavior: worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{}),
		ActivityTaskPollerBehavior: worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{}),
	})
	w.RegisterWorkflow(turnShaped)
	w.RegisterActivity(noop)
	require.NoError(b, w.Start())
	b.Cleanup(w.Stop)
	run := func(localModel bool) error {
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		r, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: benchTaskQueue, EnableEagerStart: true}, turnShaped, localModel)
		if err != nil {
			return err
		}
		return r.Get(ctx, nil)
	}
	for range 5 {
		require.NoError(b, run(false))
	}
	for _, cfg := range []struct {
		name       string
		inFlight   int
		localModel bool
	}{
		{"sequential", 1, false},
		{"20-in-flight", 20, false},
		{"sequential/local-model-calls", 1, true},
	} {
		b.Run(cfg.name, func(b *testing.B) {
			runInFlight(b, cfg.inFlight, func() error { return run(cfg.localModel) })
		})
	}
}

// runInFlight runs b.N workflows with run, at most inFlight at once, and
// reports the process's CPU per workflow, workflows/s and the median
// workflow's time.
func runInFlight(b *testing.B, inFlight int, run func() error) {
	durations := make([]time.Duration, b.N)
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	cpu0 := processCPU(b)
	b.ResetTimer()
	for i := range b.N {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			t0 := time.Now()
			if err := run(); err != nil {
				b.Error(err)
			}
			durations[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "workflows/s")
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
}
