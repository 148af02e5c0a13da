package wiring

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"golang.org/x/sync/errgroup"

	"hub/activities"
	"hub/api"
	"hub/console"
	"hub/identity"
	"hub/turns"
	"hub/worker"
	"hub/workflows"
)

// API returns the web console and the api's handler over the Temporal client c.
func (h *Hub) API(c client.Client) http.Handler {
	// The removals' aftermath signals with the client as given, as the worker's does.
	h.followLeavers(c)
	if h.test.APITemporal != nil {
		c = h.test.APITemporal(c)
	}
	var verifier *identity.Verifier
	if h.Config.OIDC.Enabled() {
		verifier = identity.New(h.Config.OIDC, nil)
	}
	starter := &turns.Service{Workspace: h.Workspace, Chat: h.Chat, Files: h.Files, Temporal: c, Schedules: c,
		TaskQueue: h.Config.TaskQueue, TurnTimeout: h.Config.TurnTimeout}
	return console.Handler(api.New(api.Deps{Ping: h.DB.Ping, Workspace: h.Workspace, Chat: h.Chat, Turns: starter, Files: h.Files,
		Retrieval: h.Retrieval, MCP: h.MCP, Frames: h.Frames, Temporal: c,
		Usage: h.Usage, Metrics: h.Metrics, CORSOrigins: h.Config.CORSOrigins, Interrupts: h.Interrupts,
		Models: h.Models.Catalog, TemporalNamespace: h.Config.TemporalNamespace, TaskQueue: h.Config.TaskQueue, TemporalUI: h.Config.TemporalUIURL, Tracer: h.Tracer,
		TrustedProxies: h.Config.TrustedProxies, FailureLimits: h.test.FailureLimits, Identity: verifier}))
}

// HTTPServer is API behind the server `hub api` runs, with the configured
// timeouts and connection cap.
func (h *Hub) HTTPServer(c client.Client) *api.HTTPServer {
	return api.NewHTTPServer(h.API(c), h.Config.HTTP)
}

// ServeAPI serves HTTPServer on ln until ctx ends, then ends every SSE
// stream and drains requests for up to 10 seconds.
func (h *Hub) ServeAPI(ctx context.Context, ln net.Listener, c client.Client) error {
	srv := h.HTTPServer(c)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		// Ending the SSE streams lets Shutdown drain at once; their clients
		// resume with Last-Event-ID elsewhere.
		h.Notifier.Close()
		h.Frames.Close()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	return g.Wait()
}

// Worker returns a new, unstarted Temporal worker running the activities
// over c. The first call subscribes the process to Stop and Pause sent to
// any api process, so they close this process's model calls at once; the
// subscription outlives the worker.
func (h *Hub) Worker(c client.Client) sdkworker.Worker {
	h.workerOnce.Do(func() {
		h.Frames.OnInterrupt(activities.InterruptWhenStopped(h.Chat, h.Interrupts))
		var s workflows.Starter = c
		h.starter.Store(&s)
	})
	h.followLeavers(c)
	return worker.New(c, h.Activities, h.Config.TaskQueue)
}

// RunWorker runs a Worker and the sweeper until ctx ends: `hub worker`.
func (h *Hub) RunWorker(ctx context.Context, c client.Client) error {
	w := h.Worker(c)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	h.workerRunning.Store(true)
	defer func() {
		h.workerRunning.Store(false)
		w.Stop()
	}()
	h.RunSweeper(ctx)
	return nil
}
