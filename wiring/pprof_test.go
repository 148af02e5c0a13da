package wiring_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/config"
	"hub/dbtest"
	"hub/wiring"
)

// HUB_PPROF_ADDR serves the runtime's profiles on loopback while the
// process runs, and nothing listens without it.
func TestPprofListener(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := wiring.New(ctx, config.Config{DatabaseURL: dbtest.SQLite(t), PprofAddr: "127.0.0.1:0"}, wiring.Options{})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	addr, err := h.ServePprof(ctx)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(addr, "127.0.0.1:"), addr)
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "goroutine profile")

	cancel() // the listener closes with the process's context
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	}, 5*time.Second, 10*time.Millisecond)

	off, err := wiring.New(context.Background(), config.Config{DatabaseURL: dbtest.SQLite(t)}, wiring.Options{})
	require.NoError(t, err)
	t.Cleanup(off.Close)
	addr, err = off.ServePprof(context.Background())
	require.NoError(t, err)
	require.Empty(t, addr, "no HUB_PPROF_ADDR, no listener")
}
