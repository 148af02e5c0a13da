package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"golang.org/x/sync/errgroup"

	"hub/activities"
	"hub/api"
	"hub/apps"
	"hub/assistant"
	"hub/chat"
	"hub/config"
	"hub/llm"
	"hub/models"
	"hub/playbooks"
	"hub/stream"
	"hub/tools"
	"hub/worker"
	"hub/workspace"
)

// app is one process's wiring: the database and the services over it.
type app struct {
	cfg       config.Config
	db        *models.DB
	hub       *workspace.Service
	chat      *chat.Store
	frames    *stream.Bus
	tools     *tools.Registry
	playbooks []playbooks.Playbook
	apps      *apps.Client
	// interrupts is shared by the api and the worker of one process, so
	// Stop in `hub dev` closes the model call at once.
	interrupts *stream.Interrupts
}

// openApp connects to the database and migrates it.
func openApp(ctx context.Context, cfg config.Config) (*app, error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("DATABASE_URL is not set: give a postgres:// URL or a SQLite file path")
	}
	db, err := models.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	poster, err := apps.New(apps.Options{Allow: cfg.AppsAllow})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	reg, books, err := assistant.NewRegistry(poster)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &app{cfg: cfg, db: db, hub: workspace.NewService(db), chat: chat.NewStore(db), frames: stream.NewBus(db),
		tools: reg, playbooks: books, apps: poster, interrupts: stream.NewInterrupts()}, nil
}

func (a *app) close() {
	a.frames.Close()
	a.apps.Close()
	_ = a.db.Close()
}

// dialTemporal connects to the Temporal frontend, logging through slog.
func dialTemporal(ctx context.Context, address, namespace string) (client.Client, error) {
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  address,
		Namespace: namespace,
		Logger:    sdklog.NewStructuredLogger(slog.Default().With("component", "temporal")),
	})
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w", address, err)
	}
	return c, nil
}

func (a *app) activities() *activities.Activities {
	return &activities.Activities{
		Workspace: a.hub, Chat: a.chat, Tools: a.tools, Frames: a.frames,
		Model: llm.New(a.cfg.Model, nil), ModelConfigured: a.cfg.Model.Configured(),
		ModelTimeout: a.cfg.Model.Timeout, Location: a.cfg.TimeZone, Interrupts: a.interrupts,
		Playbooks: a.playbooks, ContextTokens: a.cfg.ContextTokens,
	}
}

// runWorker runs the Temporal worker and the frame sweeper until ctx ends.
func (a *app) runWorker(ctx context.Context, c client.Client) error {
	// Stop and Pause sent to any api process close this worker's model
	// calls at once.
	acts := a.activities()
	a.frames.OnInterrupt(activities.InterruptWhenStopped(a.chat, a.interrupts))
	w := worker.New(c, acts, worker.Options{})
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	defer w.Stop()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			// Frames stay at least 10 minutes after a turn ends (API.md).
			if _, err := a.frames.Sweep(ctx, time.Now().Add(-stream.Retention)); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "sweep frames", "error", err)
			}
			// Every turn makes a stream token; expired ones go.
			if _, err := a.hub.DeleteExpiredTokens(ctx); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "delete expired tokens", "error", err)
			}
			if _, err := a.chat.ExpireHeld(ctx, time.Now().Add(-a.cfg.ProposalTTL)); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "expire proposals", "error", err)
			}
		}
	}
}

// serveAPI serves the HTTP api on the listener, within the configured
// limits (api.Limits), until ctx ends, then drains requests for up to 10
// seconds.
func (a *app) serveAPI(ctx context.Context, ln net.Listener, c client.Client) error {
	// Activity frames written by any process (the worker, another api) wake
	// this process's activity streams at once.
	a.frames.Subscribe(chat.WorkChannel, chat.WakeWorkFollowers, chat.WakeAllWorkFollowers)
	srv := api.NewHTTPServer(api.New(api.Deps{DB: a.db, Workspace: a.hub, Chat: a.chat, Frames: a.frames, Temporal: c,
		CORSOrigins: a.cfg.CORSOrigins, Interrupts: a.interrupts, TurnTimeout: a.cfg.TurnTimeout}), a.cfg.HTTP)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		// Ending the SSE streams (Follow returns) lets Shutdown drain at
		// once; their clients resume with Last-Event-ID elsewhere.
		a.frames.Close()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	return g.Wait()
}
