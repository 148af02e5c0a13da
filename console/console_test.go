package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/console"
)

// TestConsoleAtTheRootAndTheAPIEverywhereElse: `/` and the console's files
// are the console's; /api paths, other routes and unknown paths reach the
// api, so an unknown /api path still gets the api's JSON 404.
func TestConsoleAtTheRootAndTheAPIEverywhereElse(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":"not_found","message":"no such endpoint"}}`)
	})
	srv := httptest.NewServer(console.Handler(api))
	defer srv.Close()
	get := func(method, path string) (*http.Response, string) {
		req, err := http.NewRequest(method, srv.URL+path, nil)
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, string(b)
	}

	res, body := get("GET", "/")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, res.Header.Get("Content-Type"), "text/html")
	require.Contains(t, body, "<script type=\"module\" src=\"js/main.js\"></script>")
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")

	res, body = get("GET", "/js/main.js")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, res.Header.Get("Content-Type"), "javascript")
	require.NotEmpty(t, body)

	for _, p := range []string{"/api/nope", "/api/", "/api", "/healthz", "/nope.js", "/js/", "/index.html/x", "/../go.mod"} {
		res, body = get("GET", p)
		require.Equal(t, http.StatusNotFound, res.StatusCode, p)
		require.Contains(t, body, `"not_found"`, p)
	}
	res, _ = get("POST", "/")
	require.Equal(t, http.StatusNotFound, res.StatusCode, "only GET and HEAD are the console's")
}
