package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"hub/bench"
	"hub/temporal"
	"hub/workflows"
)

func benchCommand() *cobra.Command {
	o := bench.Defaults()
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure a turn through the HTTP api: latency, throughput, CPU, commits and memory, next to a plain loop",
		Long: `hub bench drives a Hub through its HTTP api with a fixed workload: a turn is three calls to a
zero-delay scripted model and two task writes. It starts hub dev itself (SQLite, or Postgres with
--database-url) on free loopback ports, or drives --url (a Hub started with OPENAI_BASE_URL at the
bench's model: a fixed --model-addr, or a hub fakemodel given with --model-url). With --apis and
--workers it starts one Temporal server and that many hub api and hub worker processes instead. It reports median/p99, turns/s, CPU per turn of Hub and
Postgres (from /proc), commits and rows per turn (pg_stat_database), memory, first-text and stop
latency, and the ratio to a plain loop at a realistic model latency. docs/benchmarks.md has more.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.URL == "" { // hub dev, or the processes, from this executable
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find the hub executable to start hub dev from: %w", err)
				}
				o.Exe = exe
			} else if o.Token == "" {
				return fmt.Errorf("--url needs --token (a token of a person with a space)")
			}
			o.Log = cmd.ErrOrStderr()
			rep, err := bench.Run(cmd.Context(), o)
			if rep != nil && (err == nil || len(rep.Phases) > 0) {
				write := rep.WriteText
				if asJSON {
					write = rep.WriteJSON
				}
				if werr := write(cmd.OutOrStdout()); werr != nil {
					return werr
				}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.URL, "url", "", "a running Hub's base URL (default: start hub dev)")
	f.StringVar(&o.Token, "token", "", "with --url: a bearer token")
	f.StringVar(&o.SpaceID, "space", "", "space id to run the turns in (default: the person's first)")
	f.StringVar(&o.DatabaseURL, "database-url", "", "Postgres database: hub dev runs on it, and pg_stat_database is read from it (use a throwaway database)")
	f.StringVar(&o.ModelURL, "model-url", "", "a running hub fakemodel (its /v1 URL) to script and use, instead of the bench's own")
	f.StringVar(&o.ModelAddr, "model-addr", o.ModelAddr, "where the bench's own stand-in model listens (loopback)")
	f.IntVar(&o.Warmup, "warmup", o.Warmup, "warm-up turns of each system, not reported")
	f.IntVar(&o.Sequential, "sequential", o.Sequential, "turns one after another")
	f.IntVar(&o.Concurrent, "concurrent", o.Concurrent, "turns at --in-flight at once")
	f.IntVar(&o.InFlight, "in-flight", o.InFlight, "turns in flight in the concurrent phase")
	f.IntVar(&o.Rounds, "rounds", o.Rounds, "concurrent phases one after another (hub RSS after each: memory per turns)")
	f.IntVar(&o.Samples, "samples", o.Samples, "first-text and stop turns")
	f.DurationVar(&o.Delay, "delay", o.Delay, "the model's wait before each reply in the realistic-latency phase")
	f.IntVar(&o.DelayTurns, "delay-turns", o.DelayTurns, "turns of each system in the realistic-latency phase (0: none)")
	f.DurationVar(&o.TurnTimeout, "turn-timeout", o.TurnTimeout, "the longest to wait for one turn's done frame (a turn past it counts as an error)")
	f.DurationVar(&o.StatsSettle, "stats-settle", o.StatsSettle, "wait this long after a phase before reading pg_stat_database (idle backends report up to 10 s late; 0: at once, counts may be short)")
	f.DurationVar(&o.Idle, "idle", 0, "after the phases, wait this long and read memory again (0: don't)")
	f.IntSliceVar(&o.HubPIDs, "hub-pid", nil, "Hub process ids to measure (with --url; repeatable)")
	f.StringVar(&o.HubMatch, "hub-match", "", `measure the processes whose command line matches this regular expression (e.g. "hub (api|worker)")`)
	f.IntVar(&o.PostgresPID, "postgres-pid", 0, "the postmaster's pid (default: found from the database connection)")
	f.IntVar(&o.APIs, "apis", 0, "start this many hub api processes (with --workers, one Temporal server, on --database-url) instead of hub dev")
	f.IntVar(&o.Workers, "workers", 0, "start this many hub worker processes (with --apis)")
	f.BoolVar(&o.Keep, "keep", false, "keep the started processes' data dir and logs")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.AddCommand(benchTemporalCommand())
	return cmd
}

// benchTemporalCommand is the embedded Temporal server as a process of its
// own, for `hub bench --apis N --workers M` to measure apart.
func benchTemporalCommand() *cobra.Command {
	var db, addr string
	cmd := &cobra.Command{
		Use:    "temporal",
		Short:  "Serve the embedded Temporal server alone (for hub bench --apis/--workers)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ts, err := temporal.Start(cmd.Context(), temporal.Options{DatabaseFile: db, FrontendAddr: addr, SearchAttributes: workflows.SearchAttributes()})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Temporal frontend %s namespace %s\n", ts.FrontendHostPort(), ts.Namespace())
			<-cmd.Context().Done()
			return ts.Stop()
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "SQLite file to keep the server's data in (empty: in memory)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "frontend address")
	return cmd
}
