package web

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hub/apps"
)

// Searcher finds sources on the web. Each provider's API is one adapter.
type Searcher interface {
	// Search returns at most n results for the query, best first.
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// The operator's settings.
const (
	// EnvSearchURL is the provider's address: a SearXNG instance's base
	// URL, or another endpoint for the hosted API.
	EnvSearchURL = "HUB_WEB_SEARCH_URL"
	// EnvSearchKey is the provider's API key.
	EnvSearchKey = "HUB_WEB_SEARCH_KEY"
	// EnvSearchProvider picks the provider. Empty: searxng when a URL is
	// set, brave when only a key is.
	EnvSearchProvider = "HUB_WEB_SEARCH_PROVIDER"
)

// Providers.
const (
	ProviderSearXNG = "searxng"
	ProviderBrave   = "brave"
)

// BraveURL is the Brave Search API's web search endpoint.
const BraveURL = "https://api.search.brave.com/res/v1/web/search"

// SearchTimeout bounds one search.
const SearchTimeout = 15 * time.Second

// maxSnippet is how many characters of a result's text are kept.
const maxSnippet = 300

// SearchConfig is the operator's choice of provider. The zero value is
// "no provider": the web tools are not offered.
type SearchConfig struct {
	Provider string
	URL      string
	Key      string
}

// String names the provider and its address, never its key.
func (c SearchConfig) String() string {
	if c.Provider == "" {
		return "none"
	}
	return c.Provider + " " + c.URL
}

// SearchConfigFromEnv reads HUB_WEB_SEARCH_*; getenv is os.Getenv outside
// tests. A setting that is present but wrong is an error.
func SearchConfigFromEnv(getenv func(string) string) (SearchConfig, error) {
	c := SearchConfig{
		Provider: strings.ToLower(strings.TrimSpace(getenv(EnvSearchProvider))),
		URL:      strings.TrimSpace(getenv(EnvSearchURL)),
		Key:      strings.TrimSpace(getenv(EnvSearchKey)),
	}
	if c.Provider == "" {
		switch {
		case c.URL != "":
			c.Provider = ProviderSearXNG
		case c.Key != "":
			c.Provider = ProviderBrave
		default:
			return SearchConfig{}, nil
		}
	}
	switch c.Provider {
	case ProviderSearXNG:
		if c.URL == "" {
			return SearchConfig{}, fmt.Errorf("%s: SearXNG needs its address, like http://searxng:8080", EnvSearchURL)
		}
	case ProviderBrave:
		if c.Key == "" {
			return SearchConfig{}, fmt.Errorf("%s: the Brave Search API needs a subscription token", EnvSearchKey)
		}
		c.URL = cmp.Or(c.URL, BraveURL)
	default:
		return SearchConfig{}, fmt.Errorf("%s: want %s or %s, not %q", EnvSearchProvider, ProviderSearXNG, ProviderBrave, c.Provider)
	}
	if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return SearchConfig{}, fmt.Errorf("%s: want an http(s) URL, not %q", EnvSearchURL, c.URL)
	}
	return c, nil
}

// NewSearcher returns the configured provider's adapter, or nil when none
// is configured. Its client is not guarded: the provider is the operator's
// own address.
func NewSearcher(c SearchConfig) Searcher {
	client := &http.Client{Timeout: SearchTimeout}
	switch c.Provider {
	case ProviderSearXNG:
		// SearXNG's JSON API needs "json" in the instance's search.formats;
		// a key is a bearer token for a proxy in front of it.
		header, base := http.Header{}, strings.TrimRight(c.URL, "/")
		if c.Key != "" {
			header.Set("Authorization", "Bearer "+c.Key)
		}
		return &provider{name: "SearXNG", http: client, header: header, url: func(q string, _ int) string {
			return base + "/search?" + url.Values{"q": {q}, "format": {"json"}, "safesearch": {"1"}}.Encode()
		}}
	case ProviderBrave:
		return &provider{name: "Brave Search", http: client, header: http.Header{"X-Subscription-Token": {c.Key}},
			url: func(q string, n int) string {
				return c.URL + "?" + url.Values{"q": {q}, "count": {strconv.Itoa(min(max(n, 1), 20))}}.Encode()
			}}
	}
	return nil
}

// SearchError is a provider's failure, in words.
type SearchError struct {
	Provider string
	Reason   string
}

func (e *SearchError) Error() string { return e.Provider + " search failed: " + e.Reason }

// provider is the adapter of one search API, SearXNG's or Brave's.
type provider struct {
	name   string
	http   *http.Client
	header http.Header
	url    func(query string, n int) string
}

func (p *provider) Search(ctx context.Context, query string, n int) ([]Result, error) {
	fail := func(format string, args ...any) error {
		return &SearchError{Provider: p.name, Reason: fmt.Sprintf(format, args...)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url(query, n), nil)
	if err != nil {
		return nil, fail("the provider's address cannot be used")
	}
	maps.Copy(req.Header, p.header)
	req.Header.Set("Accept", "application/json")
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, fail("it could not be reached (%s)", apps.NetReason(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fail("its answer was cut off (%s)", apps.NetReason(err))
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, fail("it is rate-limiting Hub's searches (HTTP 429); try again later")
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fail("it refused Hub's key (HTTP %d); the operator should check %s", resp.StatusCode, EnvSearchKey)
	case resp.StatusCode != http.StatusOK:
		return nil, fail("it answered HTTP %d", resp.StatusCode)
	}
	var body struct {
		Results []hit `json:"results"` // SearXNG's
		Web     struct {
			Results []hit `json:"results"`
		} `json:"web"` // Brave's
	}
	if json.Unmarshal(raw, &body) != nil {
		return nil, fail(`its answer is not the JSON expected (for SearXNG, "json" must be in search.formats)`)
	}
	return results(append(body.Results, body.Web.Results...), n), nil
}

// hit is one result as a provider sends it; SearXNG's snippet is its
// content, Brave's its description.
type hit struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Content     string `json:"content"`
	Description string `json:"description"`
}

// results keeps the first n http(s) hits, with plain, bounded snippets.
func results(hits []hit, n int) []Result {
	var out []Result
	for _, h := range hits {
		if u, err := url.Parse(h.URL); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			snippet := strings.Join(strings.Fields(stripTags(cmp.Or(h.Content, h.Description))), " ")
			out = append(out, Result{Title: strings.TrimSpace(stripTags(h.Title)), URL: h.URL, Snippet: shorten(snippet, maxSnippet)})
		}
		if len(out) == n {
			break
		}
	}
	return out
}

// stripTags removes the <strong> marks providers put around matches.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
