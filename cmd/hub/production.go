package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"hub/config"
	"hub/storage"
	"hub/temporal"
	"hub/wiring"
	"hub/workflows"
	"hub/workspace"
)

func apiCommand() *cobra.Command {
	short := "Serve the HTTP api (REST and SSE) against Temporal and the database"
	return appCommand("api", short, func(cmd *cobra.Command, ctx context.Context, h *wiring.Hub, c client.Client) error {
		ln, err := net.Listen("tcp", h.Config.HTTPAddr)
		if err != nil {
			return fmt.Errorf("listen on %s (HUB_HTTP_ADDR): %w", h.Config.HTTPAddr, err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "hub api listening on %s\n", ln.Addr())
		return h.ServeAPI(ctx, ln, c)
	})
}

func workerCommand() *cobra.Command {
	short := "Run the Temporal worker: turns, model calls and tool calls"
	return appCommand("worker", short, func(cmd *cobra.Command, ctx context.Context, h *wiring.Hub, c client.Client) error {
		if !h.Models.Configured() {
			fmt.Fprintln(cmd.ErrOrStderr(), "hub worker: no model configured (OPENAI_API_KEY / OPENAI_BASE_URL, or HUB_MODELS): turns will end with an unavailable error")
		}
		// Either ending ends the other: a failed worker leaves no listener answering.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		run := []func() error{func() error { defer cancel(); return h.RunWorker(ctx, c) }}
		if addr := h.Config.WorkerHTTPAddr; addr != "" {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s (HUB_WORKER_HTTP_ADDR): %w", addr, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "hub worker metrics and health on %s\n", ln.Addr())
			run = append(run, func() error { defer cancel(); return h.ServeWorkerHTTP(ctx, ln, c) })
		}
		fmt.Fprintf(cmd.OutOrStdout(), "hub worker polling task queue %q on %s\n", h.Config.TaskQueue, h.Config.TemporalAddress)
		return runAll(run...)
	})
}

// appCommand is `hub api` or `hub worker`: run against the database (checking
// its schema unless --migrate) and Temporal, serving profiles when asked.
func appCommand(use, short string,
	run func(*cobra.Command, context.Context, *wiring.Hub, client.Client) error) *cobra.Command {
	var migrate bool
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, _ []string) error {
			schema := wiring.SchemaCheck
			if migrate {
				schema = wiring.SchemaMigrate
			}
			return withDB(cmd, "", schema, func(ctx context.Context, h *wiring.Hub) error {
				if err := servePprof(cmd, ctx, h); err != nil {
					return err
				}
				c, err := h.DialTemporal(ctx, h.Config.Temporal)
				if err != nil {
					return err
				}
				defer c.Close()
				return run(cmd, ctx, h, c)
			})
		},
	}
	cmd.Flags().BoolVar(&migrate, "migrate", false, "bring the database schema up to date before starting (HUB_MIGRATE=1); without it a schema that is behind stops the process")
	return cmd
}

func migrateCommand() *cobra.Command {
	var skipTemporal, dryRun bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring the database schema up to date and register Hub's search attributes in Temporal",
		Long: "Bring the database schema up to date and register Hub's search attributes in Temporal.\n" +
			"Run it once before starting a new version's `hub api` and `hub worker`, which do not migrate without --migrate.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dryRun {
				return migrateDryRun(cmd, skipTemporal)
			}
			return withDB(cmd, "", wiring.SchemaMigrate, func(ctx context.Context, h *wiring.Hub) error {
				cur, _, err := h.DB.SchemaVersion(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "database schema at version %d\n", cur)
				if skipTemporal {
					return nil
				}
				c, err := h.DialTemporal(ctx, h.Config.Temporal)
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
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say which migrations would run, and change nothing")
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "List the database migrations, each applied (with when) or pending; changes nothing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withSchema(cmd, func(ctx context.Context, db *storage.DB) error {
				all, err := db.Migrations(ctx)
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				pending := 0
				for _, m := range all {
					if m.Applied {
						fmt.Fprintf(out, "applied  %s  %s\n", m.Name, m.AppliedAt.UTC().Format(time.RFC3339))
					} else {
						pending++
						fmt.Fprintf(out, "pending  %s\n", m.Name)
					}
				}
				fmt.Fprintf(out, "%d applied, %d pending\n", len(all)-pending, pending)
				return nil
			})
		},
	})
	return cmd
}

// migrateDryRun prints what `hub migrate` would do, changing nothing: the
// pending migrations, and the search attributes it would make sure of.
func migrateDryRun(cmd *cobra.Command, skipTemporal bool) error {
	return withSchema(cmd, func(ctx context.Context, db *storage.DB) error {
		pending, err := db.Pending(ctx)
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		if len(pending) == 0 {
			fmt.Fprintln(out, "database schema up to date: no migration would run")
		}
		for _, m := range pending {
			fmt.Fprintf(out, "would run  %s\n", m.Name)
		}
		if !skipTemporal {
			cfg, err := config.FromEnv(nil)
			if err != nil {
				return err
			}
			names := slices.Sorted(maps.Keys(workflows.SearchAttributes()))
			fmt.Fprintf(out, "would register search attributes %s in namespace %q (those missing)\n", strings.Join(names, ", "), cfg.TemporalNamespace)
		}
		fmt.Fprintln(out, "dry run: nothing changed")
		return nil
	})
}

func tokenCommand() *cobra.Command {
	var space, person, role, dataDir, name string
	var operator, create bool
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a bearer token for a member of a space, found by names; prints the token",
		Long: "Create a bearer token for the person named --person, a member of the space named --space; prints the token.\n\n" +
			"--space and --person take names, not ids. Without --create both must exist and the person must be a " +
			"member of the space: a mistyped name is an error, nothing is made. With --create the space, the person " +
			"and the membership are made when missing and the membership gets --role (default owner).\n\n" +
			"With --operator: an operator token for --person, a new identity in no space, that reads the run inspector " +
			"(GET /api/assistant/turns/:turnId/inspect) of any turn and nothing else.\n\n" +
			"--name names the token in hub token list and GET /api/me/tokens; --ttl makes it expire (default: never). " +
			"The token is printed once: Hub keeps only its hash and its first characters (the prefix).",
		Example: "  hub token create --space Demo --person \"Dev Owner\" --name laptop --ttl 720h\n" +
			"  hub token create --create --space \"Design team\" --person \"Ada Lovelace\" --role editor\n" +
			"  hub token create --operator --person \"Olga Oncall\"",
		RunE: func(cmd *cobra.Command, _ []string) error {
			var r workspace.Role
			switch {
			case operator && space != "":
				return errors.New("--operator makes a token for no space: leave out --space")
			case operator:
			case space == "":
				return errors.New(`required flag "space" not set (or --operator for an operator token)`)
			case cmd.Flags().Changed("role") && !create:
				return errors.New("--role sets the membership's role, which only --create does: add --create, or leave out --role")
			default:
				var err error
				if r, err = workspace.ParseRole(role); err != nil {
					return err
				}
			}
			return withDB(cmd, dataDir, wiring.SchemaMigrate, func(ctx context.Context, h *wiring.Hub) error {
				var personID, token string
				var err error
				switch {
				case operator:
					_, token, err = h.Workspace.CreateOperatorToken(ctx, cliActor, person, name, ttl)
				case create:
					_, personID, err = h.Workspace.EnsureMember(ctx, space, person, r)
				default:
					if _, personID, err = h.Workspace.FindMember(ctx, space, person); errors.Is(err, workspace.ErrNotFound) {
						err = fmt.Errorf("%w; add --create to make what is missing", err)
					}
				}
				if err == nil && !operator {
					token, _, err = h.Workspace.CreateNamedToken(ctx, cliActor, personID, name, ttl)
				}
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), token)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "the space's name (not its id)")
	cmd.Flags().StringVar(&person, "person", "", "the person's name (not their id): a member of --space")
	cmd.Flags().BoolVar(&create, "create", false, "make the space, the person and the membership when missing")
	cmd.Flags().StringVar(&role, "role", "owner", "with --create: the membership's role: owner, editor, viewer or guest")
	cmd.Flags().StringVar(&dataDir, "data-dir", ".hub", "without DATABASE_URL: the `hub dev` data dir whose hub.db to use")
	cmd.Flags().BoolVar(&operator, "operator", false, "an operator token: reads any turn's run inspector, nothing else (no --space)")
	cmd.Flags().StringVar(&name, "name", "", "a name for the token, shown by hub token list")
	cmd.Flags().DurationVar(&ttl, "ttl", 0, "the token expires this long after now (e.g. 720h; default: never)")
	_ = cmd.MarkFlagRequired("person")
	token := &cobra.Command{Use: "token", Short: "Manage bearer tokens"}
	token.AddCommand(cmd, tokenListCommand(), tokenRevokeCommand())
	return token
}

// cliActor is who a change made by the hub CLI is by: the server's
// operator, no person.
var cliActor = workspace.Actor{Via: workspace.ViaCLI}

func tokenListCommand() *cobra.Command {
	var person, dataDir string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the full and operator tokens: id, name, person, prefix, created, last used, expires (never the token)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, dataDir, wiring.SchemaMigrate, func(ctx context.Context, h *wiring.Hub) error {
				list, err := h.Workspace.ListTokens(ctx, "", person)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tNAME\tPERSON\tPREFIX\tCREATED\tLAST USED\tEXPIRES")
				for _, t := range list {
					who := t.PersonName
					if t.Operator {
						who += " (operator)"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, cmp.Or(t.Name, "-"), who, cmp.Or(t.Prefix, "-"),
						t.CreatedAt.UTC().Format(time.RFC3339), timeOrNever(t.LastUsedAt), timeOrNever(t.ExpiresAt))
				}
				return w.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&person, "person", "", "only the tokens of the people with this name")
	cmd.Flags().StringVar(&dataDir, "data-dir", ".hub", "without DATABASE_URL: the `hub dev` data dir whose hub.db to use")
	return cmd
}

func tokenRevokeCommand() *cobra.Command {
	var person, dataDir string
	cmd := &cobra.Command{
		Use:   "revoke ID | --person NAME",
		Short: "Revoke a token by its id, or every token of the people named --person",
		Long: "Revoke a full or operator token by its id (hub token list), or every one of the people named --person. " +
			"The sessions and stream tokens made from it go with it: the next request with any of them is 401, and their " +
			"open streams end within seconds.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (person != "") {
				return errors.New("give a token id or --person, one of the two")
			}
			return withDB(cmd, dataDir, wiring.SchemaMigrate, func(ctx context.Context, h *wiring.Hub) error {
				if person != "" {
					list, err := h.Workspace.RevokePersonTokens(ctx, cliActor, person)
					if err != nil {
						return err
					}
					for _, t := range list {
						fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", t.ID)
					}
					if len(list) == 0 {
						fmt.Fprintf(cmd.ErrOrStderr(), "hub: no tokens of anyone named %q\n", person)
					}
					return nil
				}
				if err := h.Workspace.RevokeToken(ctx, cliActor, "", args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&person, "person", "", "revoke every token of the people with this name")
	cmd.Flags().StringVar(&dataDir, "data-dir", ".hub", "without DATABASE_URL: the `hub dev` data dir whose hub.db to use")
	return cmd
}

func auditCommand() *cobra.Command {
	var dataDir string
	var limit int
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "List Hub's own audit log (newest first): first sign-ins through the identity provider, tokens of people in no space",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 || limit > workspace.MaxListLimit {
				return fmt.Errorf("--limit is 1 to %d", workspace.MaxListLimit)
			}
			return withDB(cmd, dataDir, wiring.SchemaMigrate, func(ctx context.Context, h *wiring.Hub) error {
				events, err := h.Workspace.HubAudit(ctx, limit)
				if err != nil {
					return err
				}
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "AT\tKIND\tACTION\tBY\tVIA\tSUMMARY")
				for _, e := range events {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format(time.RFC3339), e.Kind, e.Action,
						cmp.Or(e.ActorName, "-"), cmp.Or(e.Via, "-"), e.Summary)
				}
				return w.Flush()
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many events")
	cmd.Flags().StringVar(&dataDir, "data-dir", ".hub", "without DATABASE_URL: the `hub dev` data dir whose hub.db to use")
	return cmd
}

func timeOrNever(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

// withDB loads the configuration, builds the Hub and runs fn, closing it
// after. Without DATABASE_URL and with a devDataDir, it uses the SQLite
// database `hub dev` keeps there, and says so on stderr (stdout stays the
// command's).
func withDB(cmd *cobra.Command, devDataDir string, schema wiring.Schema, fn func(ctx context.Context, h *wiring.Hub) error) error {
	ctx := cmd.Context()
	cfg, err := config.FromEnv(nil)
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" && devDataDir != "" {
		path := filepath.Join(devDataDir, devDatabase)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("DATABASE_URL is not set and there is no %s here from `hub dev`: give a postgres:// URL or a SQLite file path, or run where `hub dev` runs (or --data-dir)", path)
		} else if err != nil {
			return fmt.Errorf("the hub dev database: %w", err)
		}
		cfg.DatabaseURL = path
		fmt.Fprintf(cmd.ErrOrStderr(), "hub: DATABASE_URL is not set: using %s, the `hub dev` database\n", path)
	}
	h, err := wiring.New(ctx, cfg, wiring.Options{Schema: schema})
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(ctx, h)
}

// withSchema opens DATABASE_URL as it is, for the commands that only read
// its schema (`hub migrate status`, `--dry-run`), and closes it after.
func withSchema(cmd *cobra.Command, fn func(ctx context.Context, db *storage.DB) error) error {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return errors.New("DATABASE_URL is not set: give a postgres:// URL or a SQLite file path")
	}
	if storage.DialectOf(url) == storage.SQLite {
		// Opening a SQLite file that is not there would make it.
		path, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "file:"), "?")
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("DATABASE_URL: %w", err)
		}
	}
	db, err := storage.Open(cmd.Context(), url)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(cmd.Context(), db)
}

// servePprof starts the opt-in profile listener and says where it listens.
func servePprof(cmd *cobra.Command, ctx context.Context, h *wiring.Hub) error {
	addr, err := h.ServePprof(ctx)
	if err != nil || addr == "" {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "hub: profiles (pprof) on http://%s/debug/pprof/\n", addr)
	return nil
}
