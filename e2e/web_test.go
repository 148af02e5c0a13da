//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/tools"
	"hub/web"
	"hub/web/webtest"
)

// webScript searches, reads the page the search found, then searches three
// more times in one step (the turn's second, third and fourth searches),
// and answers with what the last call said. A message naming "moved" reads
// the page that redirects instead.
const webScript = `{"rules": [
  {"name": "read a named page", "match": {"lastUser": "(?i)read the (moved|bomb|huge) page", "afterToolResult": false},
   "reply": {"toolCalls": [{"name": "hub_read_web_page", "arguments": {"url": "%[1]s/{{index .Groups 1}}"}}]}},
  {"name": "search", "times": 1, "match": {"afterToolResult": false, "offered": "hub_web_search"},
   "reply": {"toolCalls": [{"name": "hub_web_search", "arguments": {"query": "widget 4.2 release"}}]}},
  {"name": "read", "times": 1, "match": {"afterToolResult": true, "offered": "hub_read_web_page"},
   "reply": {"toolCalls": [{"name": "hub_read_web_page", "arguments": {"url": "%[1]s/release", "focus": "Changes"}}]}},
  {"name": "search three more", "times": 1, "match": {"afterToolResult": true, "offered": "hub_web_search"},
   "reply": {"toolCalls": [
     {"name": "hub_web_search", "arguments": {"query": "widget 4.2 changelog"}},
     {"name": "hub_web_search", "arguments": {"query": "widget 4.2 date"}},
     {"name": "hub_web_search", "arguments": {"query": "widget 4.2 again"}}]}},
  {"name": "answer", "match": {"afterToolResult": true},
   "reply": {"text": "{{if .LastToolError}}Stopped: {{.LastToolError}}{{else}}Done: {{.LastToolSummary}}{{end}}"}}
]}`

// A turn through the real API with a SearXNG on 127.0.0.1 and a page served
// locally: it searches, reads the page it found, and its fourth search is
// refused with a readable error; the provider saw three searches. Then the
// bad pages, each a clear tool error: a redirect to a private address
// (nothing fetched beyond it), a PDF bomb, a page over 10 MB (reading
// stopped).
func TestATurnSearchesReadsAndItsFourthSearchIsRefused(t *testing.T) {
	t.Parallel()
	var searches atomic.Int64
	var mu sync.Mutex
	var queries []string
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		searches.Add(1)
		mu.Lock()
		queries = append(queries, r.URL.Query().Get("q"))
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"results": []map[string]any{
			{"title": "Widget 4.2 released", "url": "https://widgets.example/release", "content": "What is new in <b>4.2</b>"}}})
	}))
	t.Cleanup(searx.Close)
	var pageHits, innerHits, hugeStopped atomic.Int64
	bomb := bombPDF(web.MaxPDFInflated + 1<<20)
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the redirect's target counts: the inner server's port may be
		// one a stopped server of another test had, and that test's client
		// may still knock on it (seen once: two stray requests).
		if r.URL.Path != "/admin" {
			t.Logf("inner server: stray %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		innerHits.Add(1)
		_, _ = w.Write([]byte("<html><body><p>internal admin page</p></body></html>"))
	}))
	t.Cleanup(inner.Close)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pageHits.Add(1)
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
			return
		case "/bomb":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write(bomb)
			return
		case "/huge":
			w.Header().Set("Content-Type", "text/html")
			chunk := []byte(strings.Repeat("<p>filler text </p>", 1000))
			for n := 0; n < 64<<20; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					hugeStopped.Store(int64(n))
					return
				}
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		b.WriteString(`<html><head><title>Widget 4.2</title><script>alert("x")</script></head><body><nav>Home · Blog</nav><article><h1>Widget 4.2</h1>`)
		b.WriteString("<h2>Overview</h2>" + strings.Repeat("<p>Widget 4.2 is the release of the year, with faster start-up and a new plugin system for teams.</p>", 40))
		b.WriteString("<h2>Changes</h2>" + strings.Repeat("<p>The importer now keeps comments, and the exporter writes PDF/A files.</p>", 20))
		b.WriteString(`</article></body></html>`)
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(pages.Close)

	s := hubtest.Start(t, hubtest.Options{
		Script: fakemodel.MustParseScript(fmt.Sprintf(webScript, pages.URL)),
		Env:    map[string]string{"HUB_WEB_SEARCH_URL": searx.URL},
		// The page server is on loopback: the operator's allowlist lets
		// exactly it through; the inner server is not listed.
		AppsAllow: []string{pages.Listener.Addr().String()},
	})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "what is new in the latest widget release?")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	text := hubtest.Text(events)
	require.Contains(t, text, "Stopped: This turn has already made 3 web searches")
	require.Contains(t, text, "Read one of the pages found with hub_read_web_page")

	require.EqualValues(t, 3, searches.Load(), "the fourth search never reached the provider")
	require.EqualValues(t, 1, pageHits.Load())

	r := s.Do(t, s.Token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status)
	msgs := r.JSON(t)["messages"].([]any)
	calls := msgs[1].(map[string]any)["toolCalls"].([]any)
	require.Len(t, calls, 5)
	var got []string
	for _, c := range calls {
		c := c.(map[string]any)
		got = append(got, c["tool"].(string)+":"+c["status"].(string))
	}
	require.Equal(t, []string{"hub_web_search:done", "hub_read_web_page:done", "hub_web_search:done", "hub_web_search:done", "hub_web_search:failed"}, got)
	refusal := calls[4].(map[string]any)["error"].(map[string]any)
	require.Equal(t, "refused", refusal["code"])
	require.Contains(t, refusal["message"], "answer with what you have")
	require.Equal(t, "Searched the web for “widget 4.2 release”: 1 result.", calls[0].(map[string]any)["summary"])
	require.Equal(t, "Read part of “Widget 4.2”.", calls[1].(map[string]any)["summary"])

	// What the model read: the instructions' rule, both tools offered, the
	// page as Markdown from the focus on, cut with a note, and no script.
	reqs := s.Model.Requests()
	require.Len(t, reqs, 4)
	require.Contains(t, reqs[0].Messages[0].Content, assistant.WebNote(true))
	require.Contains(t, reqs[0].Tools, tools.WebSearchTool)
	require.Contains(t, reqs[0].Tools, tools.ReadWebPageTool)
	var guided bool
	for _, m := range reqs[0].Messages {
		guided = guided || strings.Contains(m.Content, "Snippets are not sources")
	}
	require.True(t, guided, "the web playbook was preloaded")
	var page string
	for _, m := range reqs[2].Messages {
		if m.Role == "tool" && strings.Contains(m.Content, "Widget 4.2") {
			page = m.Content
		}
	}
	require.Contains(t, page, `## Changes`)
	require.Contains(t, page, "Starts at the first mention of “Changes”")
	require.Contains(t, page, "“Overview”", "the note names the section left out")
	require.NotContains(t, page, "alert(")
	require.LessOrEqual(t, len([]rune(page)), tools.MaxResultChars)

	// A page that redirects to a private address: a clear tool error,
	// nothing fetched beyond the redirect.
	conv2 := s.Conversation(t)
	st = s.Ask(t, conv2, "read the moved page")
	events = s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	text = hubtest.Text(events)
	require.Contains(t, text, "Stopped: The page at 127.0.0.1 was not read")
	require.Contains(t, text, "a loopback address, which Hub does not connect to")
	require.Zero(t, innerHits.Load(), "nothing was fetched beyond the redirect")

	// A PDF bomb and a page over 10 MB: clear tool errors; the huge page's
	// server found the reader gone long before its 64 MB were sent.
	for _, tc := range []struct{ page, want string }{
		{"bomb", "it is a PDF whose compressed content inflates to more than 64 MB (a PDF bomb"},
		{"huge", "it is larger than the 10 MB a page may be; reading stopped there"},
	} {
		st = s.Ask(t, s.Conversation(t), "read the "+tc.page+" page")
		events = s.Stream(t, st.StreamURL, 0, 0)
		require.Equal(t, "done", events[len(events)-1].Data["status"])
		require.Contains(t, hubtest.Text(events), "Stopped: The page at 127.0.0.1 was not read: "+tc.want, tc.page)
	}
	require.Eventually(t, func() bool { return hugeStopped.Load() > 0 }, 10*time.Second, 10*time.Millisecond)
	require.Less(t, hugeStopped.Load(), int64(32<<20))
}

// bombPDF is a one-page PDF of a few KB whose content stream inflates to n
// bytes.
func bombPDF(n int) []byte {
	z := webtest.ZlibSpaces(n)
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	b.WriteString("2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n")
	b.WriteString("3 0 obj\n<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>\nendobj\n")
	fmt.Fprintf(&b, "4 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n", len(z))
	b.Write(z)
	b.WriteString("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	return b.Bytes()
}

// Without a search provider the web tools are not offered and the
// instructions say web search is not set up.
func TestWithoutASearchProviderTheWebToolsAreNotOffered(t *testing.T) {
	t.Parallel()
	s := hubtest.Start(t, hubtest.Options{Script: fakemodel.DefaultScript()})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "what is the latest Go release?")
	s.Stream(t, st.StreamURL, 0, 0)
	reqs := s.Model.Requests()
	require.NotEmpty(t, reqs)
	require.Contains(t, reqs[0].Messages[0].Content, assistant.WebNote(false))
	require.NotContains(t, reqs[0].Tools, tools.WebSearchTool)
	require.NotContains(t, reqs[0].Tools, tools.ReadWebPageTool)
}
