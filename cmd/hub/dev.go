package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"hub/apps"
	"hub/config"
	"hub/fakemodel"
	"hub/temporal"
	"hub/wiring"
	"hub/workflows"
	"hub/workspace"
)

// The space and person `hub dev` seeds.
const (
	devSpace = "Demo"
	devOwner = workspace.DevOwnerName
	// devDatabase is the SQLite file `hub dev` keeps in its data dir when
	// DATABASE_URL is not set; `hub token create` finds it there too.
	devDatabase = "hub.db"
	// devHTTPAddr is this machine only, since a dev owner's token opens
	// everything it serves.
	devHTTPAddr = "127.0.0.1:8080"
)

func devCommand() *cobra.Command {
	var o devOptions
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run everything in one process: embedded Temporal (with its UI), SQLite, the worker and the api",
		RunE:  func(cmd *cobra.Command, _ []string) error { return runDev(cmd, o) },
	}
	cmd.Flags().StringVar(&o.dataDir, "data-dir", ".hub", "where the databases and the dev token are kept")
	cmd.Flags().StringVar(&o.httpAddr, "http-addr", "", "Hub api address (default: HUB_HTTP_ADDR, else "+devHTTPAddr+"; 0.0.0.0:8080 serves other machines too)")
	cmd.Flags().StringVar(&o.temporalAddr, "temporal-addr", "127.0.0.1:7233", "embedded Temporal frontend address")
	cmd.Flags().StringVar(&o.uiAddr, "ui-addr", "127.0.0.1:8233", "Temporal UI address (empty: no UI)")
	cmd.Flags().BoolVar(&o.fakeModel, "fake-model", false, "also start the scripted stand-in model and use it (offline try-out)")
	return cmd
}

type devOptions struct {
	dataDir, httpAddr, temporalAddr, uiAddr string
	fakeModel                               bool
}

func runDev(cmd *cobra.Command, o devOptions) error {
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	cfg, err := config.FromEnv(nil)
	if err != nil {
		return err
	}
	cfg.HTTPAddr = devAPIAddr(o.httpAddr, os.Getenv("HUB_HTTP_ADDR"))
	// The ports first: a taken one stops `hub dev` before it writes anything.
	ln, err := claimDevPorts(cfg.HTTPAddr, o.temporalAddr, o.uiAddr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	cfg.DatabaseURL = cmp.Or(cfg.DatabaseURL, filepath.Join(o.dataDir, devDatabase))
	if cfg.Files.Dir == "" && !cfg.Files.S3.Configured() {
		cfg.Files.Dir = filepath.Join(o.dataDir, "files")
	}
	if cfg.SecretKey == nil {
		if cfg.SecretKey, err = devSecretKey(o.dataDir); err != nil {
			return err
		}
	}
	if o.fakeModel {
		fm := fakemodel.New(fakemodel.DefaultScript())
		base, err := fm.Start("127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("start the scripted model: %w", err)
		}
		defer fm.Close()
		cfg.Model.BaseURL, cfg.Model.APIKey, cfg.Model.Model = base, "fake", "hub-fakemodel"
		fmt.Fprintf(out, "Scripted stand-in model (not a real model) at %s\n", base)
	}

	// The embedded server's warnings only at HUB_LOG_LEVEL=debug: it warns
	// on every start and stop, which says nothing about Hub.
	serverLevel := slog.LevelError
	if cfg.Log.Level <= slog.LevelDebug {
		serverLevel = slog.LevelWarn
	}
	ts, err := temporal.Start(ctx, temporal.Options{
		DatabaseFile:     filepath.Join(o.dataDir, "temporal.db"),
		Namespace:        cfg.TemporalNamespace,
		FrontendAddr:     o.temporalAddr,
		UIAddr:           o.uiAddr,
		SearchAttributes: workflows.SearchAttributes(),
		Logger:           slog.Default().With("component", "temporal-server"),
		LogLevel:         &serverLevel,
	})
	if err != nil {
		return fmt.Errorf("start embedded Temporal: %w", err)
	}
	defer ts.Stop()

	cfg.TemporalUIURL = cmp.Or(cfg.TemporalUIURL, ts.UIURL())
	h, err := wiring.New(ctx, cfg, wiring.Options{Schema: wiring.SchemaMigrate})
	if err != nil {
		return err
	}
	defer h.Close()
	if err := servePprof(cmd, ctx, h); err != nil {
		return err
	}
	tokenFile := filepath.Join(o.dataDir, "dev-token")
	token, made, err := devToken(ctx, h.Workspace, tokenFile)
	if err != nil {
		return err
	}
	c, err := h.DialTemporal(ctx, config.TemporalClient{Options: client.Options{HostPort: ts.FrontendHostPort(), Namespace: ts.Namespace()}})
	if err != nil {
		return err
	}
	defer c.Close()
	printDevBanner(out, devBanner{api: displayAddr(ln.Addr()), tokenFile: tokenFile, token: token, newToken: made,
		temporal: ts.FrontendHostPort(), ui: ts.UIURL(), noModel: !cfg.Model.Configured() && len(cfg.Models.Models) == 0})

	return runAll(
		func() error { return h.RunWorker(ctx, c) },
		func() error { return h.ServeAPI(ctx, ln, c) },
	)
}

func devAPIAddr(flag, env string) string { return cmp.Or(flag, env, devHTTPAddr) }

// devBanner is what `hub dev` prints once it serves.
type devBanner struct {
	api, tokenFile, token string
	newToken              bool // made by this start: the only time the console link carries it
	temporal, ui          string
	noModel               bool
}

// printDevBanner says where everything is. The owner's token is printed in
// the console link only when this start made it, so scrollback or a shared
// screen shows it once; the curl line reads it from the token file.
func printDevBanner(out io.Writer, b devBanner) {
	fmt.Fprintf(out, "Hub API     http://%s  (token in %s)\n", b.api, b.tokenFile)
	if b.newToken {
		// The fragment is never sent; the console trades it for a session.
		fmt.Fprintf(out, "Console     http://%s/#token=%s  (opens signed in as %s; this link is printed once)\n", b.api, b.token, devOwner)
	} else {
		fmt.Fprintf(out, "Console     http://%s/  (sign in with the token in %s)\n", b.api, b.tokenFile)
	}
	fmt.Fprintf(out, "Temporal    %s  (frontend for the temporal CLI and SDKs: temporal workflow list --address %s)\n", b.temporal, b.temporal)
	if b.ui != "" {
		fmt.Fprintf(out, "Temporal UI %s\n", b.ui)
	} else {
		fmt.Fprintln(out, "Temporal UI off (--ui-addr is empty)")
	}
	if b.noModel {
		fmt.Fprintln(out, "No model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL) or run `hub dev --fake-model`; until then turns end with an unavailable error.")
	}
	fmt.Fprintf(out, "Try: curl -H \"Authorization: Bearer $(cat %s)\" http://%s/api/spaces\n", b.tokenFile, b.api)
}

// devTokenName names the token `hub dev` makes for the Demo space's owner.
const devTokenName = "hub dev"

// devToken seeds the Demo space and its owner and returns the owner's token,
// reusing the token file's while it works; made says it made a new one.
func devToken(ctx context.Context, svc *workspace.Service, path string) (token string, made bool, err error) {
	_, ownerID, err := svc.EnsureMember(ctx, devSpace, devOwner, workspace.RoleOwner)
	if err != nil {
		return "", false, fmt.Errorf("seed the Demo space: %w", err)
	}
	if b, err := os.ReadFile(path); err == nil {
		token := strings.TrimSpace(string(b))
		if p, err := svc.Authenticate(ctx, token, ""); err == nil && p.ID == ownerID {
			return token, false, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("read %s: %w", path, err)
	}
	token, _, err = svc.CreateNamedToken(ctx, cliActor, ownerID, devTokenName, 0)
	if err != nil {
		return "", false, err
	}
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", false, fmt.Errorf("write %s: %w", path, err)
	}
	return token, true, nil
}

// displayAddr shows a wildcard listener as localhost.
func displayAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil || host == "::" || host == "0.0.0.0" || host == "" {
		return "localhost:" + port
	}
	return net.JoinHostPort(host, port)
}

// devSecretKeyFile keeps the key `hub dev` seals connection secrets with
// when HUB_SECRET_KEY is not set, so they open in the next run.
const devSecretKeyFile = "secret.key"

func devSecretKey(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, devSecretKeyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw = []byte(apps.NewSecretKey())
		err = os.WriteFile(path, raw, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	key, err := apps.ParseSecretKey(string(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}
