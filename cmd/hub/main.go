// Command hub runs Workspace: `hub dev` (everything embedded, one process),
// `hub api` and `hub worker` (production processes against Temporal and
// Postgres), `hub migrate`, `hub token create`, `hub fakemodel`, `hub bench`
// and `hub version`.
//
// The commands read flags and the environment and hand them to package
// wiring, which builds the parts (hubtest builds a test's Hub with it too).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

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
	b, _ := debug.ReadBuildInfo()
	root := &cobra.Command{
		Use:           "hub",
		Short:         "Hub: a workspace assistant on durable execution",
		Version:       readBuild(b).short(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// One handler for every log line of the process (Hub's, the
		// Temporal SDK's, the embedded server's), set before any command
		// runs: HUB_LOG_FORMAT and HUB_LOG_LEVEL.
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
