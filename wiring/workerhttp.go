package wiring

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.temporal.io/sdk/client"
)

// WorkerHTTP is `hub worker`'s own HTTP listener (HUB_WORKER_HTTP_ADDR):
// /metrics (Metrics and the process's series), /healthz (the process
// answers) and /readyz (the database and the Temporal frontend answer, and
// RunWorker's worker is polling).
func (h *Hub) WorkerHTTP(c client.Client) http.Handler {
	own := prometheus.NewRegistry()
	own.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(prometheus.Gatherers{own, h.Metrics}, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		checks, ok := map[string]string{"database": "ok", "temporal": "ok", "worker": "ok"}, true
		if err := h.DB.Ping(ctx); err != nil {
			checks["database"], ok = err.Error(), false
		}
		if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
			checks["temporal"], ok = err.Error(), false
		}
		if !h.workerRunning.Load() {
			checks["worker"], ok = "not polling", false
		}
		code, status := http.StatusOK, "ok"
		if !ok {
			code, status = http.StatusServiceUnavailable, "unavailable"
		}
		writeJSON(w, code, map[string]any{"status": status, "checks": checks})
	})
	return mux
}

// ServeWorkerHTTP serves WorkerHTTP on ln until ctx ends.
func (h *Hub) ServeWorkerHTTP(ctx context.Context, ln net.Listener, c client.Client) error {
	srv := &http.Server{Handler: h.WorkerHTTP(c), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 75 * time.Second}
	context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	})
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
