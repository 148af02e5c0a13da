// Command hub runs Hub: `hub dev` (everything embedded, one process), `hub
// api` and `hub worker` (production processes against Temporal and
// Postgres), and the operator's commands (`hub --help`). They read flags and
// the environment and hand them to package wiring, which builds the parts.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"hub/config"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hub:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           "hub",
		Short:         "Hub: a workspace assistant on durable execution",
		Version:       readBuild().short(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// One handler for every log line of the process, set before any
		// command runs: HUB_LOG_FORMAT and HUB_LOG_LEVEL.
		PersistentPreRunE: func(*cobra.Command, []string) error {
			l, err := config.LogFromEnv(nil)
			if err != nil {
				return err
			}
			slog.SetDefault(slog.New(l.Handler(os.Stderr)))
			return nil
		},
	}
	root.AddCommand(devCommand(), apiCommand(), workerCommand(), migrateCommand(), tokenCommand(), auditCommand(), fakemodelCommand(), benchCommand(), evalCommand(), openapiCommand(), versionCommand())
	return root.ExecuteContext(ctx)
}

// runAll runs functions until the first fails or all end.
func runAll(fns ...func() error) error {
	var g errgroup.Group
	for _, f := range fns {
		g.Go(f)
	}
	return g.Wait()
}
