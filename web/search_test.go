package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/web"
)

// fakeSearXNG answers /search?format=json like a SearXNG instance.
func fakeSearXNG(t *testing.T, status int) *site {
	return newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		q := r.URL.Query().Get("q")
		_ = json.NewEncoder(w).Encode(map[string]any{"query": q, "results": []map[string]any{
			{"title": "Go 1.27 <b>release</b> notes", "url": "https://go.dev/doc/go1.27", "content": "The <strong>latest</strong> Go   release, for " + q},
			{"title": "A feed", "url": "ftp://example.com/feed", "content": "not http"},
			{"title": "Go downloads", "url": "https://go.dev/dl/", "content": "Downloads"},
			{"title": "Third", "url": "https://example.com/3", "content": ""},
		}})
	})
}

func TestSearXNGAdapter(t *testing.T) {
	s := fakeSearXNG(t, http.StatusOK)
	c, err := web.SearchConfigFromEnv(env(map[string]string{web.EnvSearchURL: s.URL + "/"}))
	require.NoError(t, err)
	require.Equal(t, web.ProviderSearXNG, c.Provider)
	searcher := web.NewSearcher(c)
	got, err := searcher.Search(context.Background(), "go version", 2)
	require.NoError(t, err)
	require.Equal(t, []web.Result{
		{Title: "Go 1.27 release notes", URL: "https://go.dev/doc/go1.27", Snippet: "The latest Go release, for go version"},
		{Title: "Go downloads", URL: "https://go.dev/dl/", Snippet: "Downloads"},
	}, got, "tags stripped, non-http results dropped, at most n")

	down := fakeSearXNG(t, http.StatusTooManyRequests)
	_, err = web.NewSearcher(web.SearchConfig{Provider: web.ProviderSearXNG, URL: down.URL}).Search(context.Background(), "x", 5)
	var se *web.SearchError
	require.True(t, errors.As(err, &se))
	require.Contains(t, se.Error(), "rate-limiting")
}

func TestBraveAdapter(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != "secret-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		require.Equal(t, "3", r.URL.Query().Get("count"))
		_ = json.NewEncoder(w).Encode(map[string]any{"web": map[string]any{"results": []map[string]any{
			{"title": "Brave result", "url": "https://example.com/a", "description": "about <strong>" + r.URL.Query().Get("q") + "</strong>"},
		}}})
	})
	c, err := web.SearchConfigFromEnv(env(map[string]string{web.EnvSearchProvider: "brave", web.EnvSearchURL: s.URL, web.EnvSearchKey: "secret-token"}))
	require.NoError(t, err)
	got, err := web.NewSearcher(c).Search(context.Background(), "tides", 3)
	require.NoError(t, err)
	require.Equal(t, []web.Result{{Title: "Brave result", URL: "https://example.com/a", Snippet: "about tides"}}, got)

	_, err = web.NewSearcher(web.SearchConfig{Provider: web.ProviderBrave, URL: s.URL, Key: "wrong"}).Search(context.Background(), "x", 3)
	require.ErrorContains(t, err, "refused Hub's key (HTTP 401)")
	require.NotContains(t, err.Error(), "wrong", "the key is never quoted")
}

func TestSearchConfigFromEnv(t *testing.T) {
	none, err := web.SearchConfigFromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, "none", none.String())
	require.Nil(t, web.NewSearcher(none))

	brave, err := web.SearchConfigFromEnv(env(map[string]string{web.EnvSearchKey: "k"}))
	require.NoError(t, err)
	require.Equal(t, web.SearchConfig{Provider: web.ProviderBrave, URL: web.BraveURL, Key: "k"}, brave)
	require.NotContains(t, brave.String(), "k ", "no key in logs")

	for _, bad := range []map[string]string{
		{web.EnvSearchProvider: "google"},
		{web.EnvSearchProvider: "searxng"},
		{web.EnvSearchProvider: "brave"},
		{web.EnvSearchURL: "searxng:8080"},
	} {
		_, err := web.SearchConfigFromEnv(env(bad))
		require.Error(t, err, bad)
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
