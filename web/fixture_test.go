package web_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/web"
	"hub/web/webtest"
)

// site is a web server on 127.0.0.1 that counts what it served.
type site struct {
	*httptest.Server
	hits atomic.Int64
}

func newSite(t testing.TB, h http.HandlerFunc) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// hostPort is the site's "127.0.0.1:port", the allowlist entry that lets
// a reader reach exactly this server.
func (s *site) hostPort() string { return s.Listener.Addr().String() }

func newReader(t testing.TB, o web.ReaderOptions) *web.Reader {
	t.Helper()
	r, err := web.NewReader(o)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

func htmlPage(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}
}

// articlePage is a news-like page: navigation, an article of the given
// sections (each a heading and paragraphs), a footer and scripts.
func articlePage(title string, sections, paragraphs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html><head><title>%s</title><script>document.write("SCRIPT RAN")</script></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About us</a></nav>
<article><h1>%s</h1>`, title, title)
	for s := 1; s <= sections; s++ {
		fmt.Fprintf(&b, "<h2>Section %d</h2>\n", s)
		for p := 1; p <= paragraphs; p++ {
			fmt.Fprintf(&b, "<p>Paragraph %d of section %d explains the release schedule, the supported versions and what changed since the last release, with <a href=\"/notes/%d\">notes</a> and <strong>dates</strong>.</p>\n", p, s, s)
		}
	}
	b.WriteString(`</article><footer>© Example Corp · Privacy · Terms</footer><script>window.tracker = "SCRIPT TEXT"</script></body></html>`)
	return b.String()
}

// pdfWith writes a one-page PDF whose content stream is content (raw, or
// Flate-compressed when compress is set), with a correct cross-reference
// table.
func pdfWith(content []byte, compress bool) []byte {
	filter := ""
	if compress {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		_, _ = zw.Write(content)
		_ = zw.Close()
		content, filter = z.Bytes(), " /Filter /FlateDecode"
	}
	return webtest.OnePagePDF(content, filter)
}

func textPDF(text string) []byte {
	return pdfWith([]byte("BT /F1 24 Tf 72 700 Td ("+text+") Tj ET"), true)
}

// bombPDF is a small PDF whose one content stream inflates to n bytes.
func bombPDF(n int) []byte {
	return webtest.OnePagePDF(webtest.ZlibSpaces(n), " /Filter /FlateDecode")
}
