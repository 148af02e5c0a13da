package console_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestIndexPreloadsEveryModule: index.html names every module of js/ for
// modulepreload (main.js is its script), so the browser fetches them in one
// round instead of one round per level of imports; a module added to the
// sources without its line here, or a line left for a module gone, fails.
func TestIndexPreloadsEveryModule(t *testing.T) {
	index, err := fs.ReadFile(console.Files(), "index.html")
	require.NoError(t, err)
	mods, err := fs.Glob(console.Files(), "js/*.js")
	require.NoError(t, err)
	require.Greater(t, len(mods), 1)
	want := 0
	for _, m := range mods {
		if m == "js/main.js" {
			continue
		}
		want++
		require.Contains(t, string(index), `<link rel="modulepreload" href="`+m+`">`, "index.html preloads %s", m)
	}
	require.Equal(t, want, strings.Count(string(index), `rel="modulepreload"`), "index.html preloads only modules that exist")
}
