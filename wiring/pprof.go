package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// ServePprof serves the Go runtime's profiles (/debug/pprof/…) on
// Config.PprofAddr, when set, until ctx ends, and returns the address
// listened on; a taken port is an error at start.
func (h *Hub) ServePprof(ctx context.Context) (string, error) {
	if h.Config.PprofAddr == "" {
		return "", nil
	}
	ln, err := net.Listen("tcp", h.Config.PprofAddr)
	if err != nil {
		return "", fmt.Errorf("listen on %s (HUB_PPROF_ADDR): %w", h.Config.PprofAddr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Warn("pprof listener stopped", "addr", ln.Addr().String(), "error", err)
		}
	}()
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	return ln.Addr().String(), nil
}
