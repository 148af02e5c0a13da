package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"hub/config"
	"hub/temporal"
	"hub/wiring"
	"hub/workflows"
	"hub/workspace"
)

func apiCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "api",
		Short: "Serve the HTTP api (REST and SSE) against Temporal and the database",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd, func(ctx context.Context, h *wiring.Hub, c client.Client) error {
				ln, err := net.Listen("tcp", h.Config.HTTPAddr)
				if err != nil {
					return fmt.Errorf("listen on %s (HUB_HTTP_ADDR): %w", h.Config.HTTPAddr, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "hub api listening on %s\n", ln.Addr())
				return h.ServeAPI(ctx, ln, c)
			})
		},
	}
}

func workerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the Temporal worker: turns, model calls and tool calls",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd, func(ctx context.Context, h *wiring.Hub, c client.Client) error {
				if !h.Models.Configured() {
					fmt.Fprintln(cmd.ErrOrStderr(), "hub worker: no model configured (OPENAI_API_KEY / OPENAI_BASE_URL, or HUB_MODELS): turns will end with an unavailable error")
				}
				fmt.Fprintf(cmd.OutOrStdout(), "hub worker polling task queue %q on %s\n", workflows.TaskQueue, h.Config.TemporalAddress)
				return h.RunWorker(ctx, c)
			})
		},
	}
}

func migrateCommand() *cobra.Command {
	var skipTemporal bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring the database schema up to date and register Hub's search attributes in Temporal",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, func(ctx context.Context, h *wiring.Hub) error {
				cur, _, err := h.DB.SchemaVersion(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "database schema at version %d\n", cur)
				if skipTemporal {
					return nil
				}
				c, err := dialTemporal(ctx, h.Config.TemporalAddress, h.Config.TemporalNamespace)
				if err != nil {
					return err
				}
				defer c.Close()
				if err := temporal.EnsureSearchAttributes(ctx, c, h.Config.TemporalNamespace, workflows.SearchAttributes()); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "search attributes registered in namespace %q\n", h.Config.TemporalNamespace)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&skipTemporal, "skip-temporal", false, "only migrate the database")
	return cmd
}

func tokenCommand() *cobra.Command {
	var space, person, role, dataDir string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a bearer token (and the space, person and membership if missing); prints the token",
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := workspace.ParseRole(role)
			if err != nil {
				return err
			}
			return withDBIn(cmd, dataDir, func(ctx context.Context, h *wiring.Hub) error {
				_, personID, err := h.Workspace.EnsureMember(ctx, space, person, r)
				if err != nil {
					return err
				}
				token, err := h.Workspace.CreateToken(ctx, personID, "", 0)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), token)
				return nil
			})
		},
	}
	create.Flags().StringVar(&space, "space", "", "space name (created if missing)")
	create.Flags().StringVar(&person, "person", "", "person name (created if missing)")
	create.Flags().StringVar(&role, "role", "owner", "owner, editor, viewer or guest")
	create.Flags().StringVar(&dataDir, "data-dir", ".hub", "without DATABASE_URL: the `hub dev` data dir whose hub.db to use")
	_ = create.MarkFlagRequired("space")
	_ = create.MarkFlagRequired("person")
	cmd := &cobra.Command{Use: "token", Short: "Manage bearer tokens"}
	cmd.AddCommand(create)
	return cmd
}

// withDB loads the configuration, builds the Hub (opening and migrating
// the database) and runs fn, closing it after.
func withDB(cmd *cobra.Command, fn func(ctx context.Context, h *wiring.Hub) error) error {
	return withDBIn(cmd, "", fn)
}

// withDBIn is withDB that, without DATABASE_URL, uses the SQLite database
// `hub dev` keeps in devDataDir when there is one (`hub token create` run
// where `hub dev` runs). It says so on stderr; stdout stays the command's.
func withDBIn(cmd *cobra.Command, devDataDir string, fn func(ctx context.Context, h *wiring.Hub) error) error {
	ctx := cmd.Context()
	cfg, err := config.FromEnv(nil)
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" && devDataDir != "" {
		path := filepath.Join(devDataDir, devDatabase)
		if _, err := os.Stat(path); err == nil {
			cfg.DatabaseURL = path
			fmt.Fprintf(cmd.ErrOrStderr(), "hub: DATABASE_URL is not set: using %s, the `hub dev` database\n", path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the hub dev database: %w", err)
		} else {
			return fmt.Errorf("DATABASE_URL is not set and there is no %s here from `hub dev`: give a postgres:// URL or a SQLite file path, or run where `hub dev` runs (or --data-dir)", path)
		}
	}
	h, err := wiring.New(ctx, cfg, wiring.Options{})
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(ctx, h)
}

// withApp is withDB that also connects to Temporal.
func withApp(cmd *cobra.Command, fn func(ctx context.Context, h *wiring.Hub, c client.Client) error) error {
	return withDB(cmd, func(ctx context.Context, h *wiring.Hub) error {
		if err := servePprof(cmd, ctx, h); err != nil {
			return err
		}
		c, err := dialTemporal(ctx, h.Config.TemporalAddress, h.Config.TemporalNamespace)
		if err != nil {
			return err
		}
		defer c.Close()
		return fn(ctx, h, c)
	})
}

// servePprof starts the opt-in profile listener (HUB_PPROF_ADDR) and says
// where it listens.
func servePprof(cmd *cobra.Command, ctx context.Context, h *wiring.Hub) error {
	addr, err := h.ServePprof(ctx)
	if err != nil || addr == "" {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "hub: profiles (pprof) on http://%s/debug/pprof/\n", addr)
	return nil
}
