package wiring_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"hub/config"
	"hub/dbtest"
	"hub/wiring"
)

// frontend answers CheckHealth with err; nothing else of the client is
// used by the worker's listener.
type frontend struct {
	client.Client
	err error
}

func (f frontend) CheckHealth(context.Context, *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	return &client.CheckHealthResponse{}, f.err
}

// The worker's listener answers /healthz while the process runs, /readyz
// 503 naming every failing check (no worker polling, the frontend down),
// and /metrics with the process's series and the SDK's registry.
func TestWorkerHTTPHealthAndMetrics(t *testing.T) {
	t.Parallel()
	h, err := wiring.New(context.Background(), config.Config{DatabaseURL: dbtest.SQLite(t)}, wiring.Options{})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	get := func(c client.Client, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.WorkerHTTP(c).ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	code, _ := get(frontend{}, "/healthz")
	require.Equal(t, http.StatusOK, code)

	code, body := get(frontend{err: errors.New("frontend down")}, "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	var r struct {
		Status string
		Checks map[string]string
	}
	require.NoError(t, json.Unmarshal([]byte(body), &r))
	require.Equal(t, "unavailable", r.Status)
	require.Equal(t, map[string]string{"database": "ok", "temporal": "frontend down", "worker": "not polling"}, r.Checks)

	code, body = get(frontend{}, "/metrics")
	require.Equal(t, http.StatusOK, code)
	require.True(t, strings.Contains(body, "go_goroutines "), "the process's series")
}
