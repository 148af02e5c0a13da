package web_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"hub/web"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func requirePageError(t *testing.T, err error, kind string) *web.PageError {
	t.Helper()
	var pe *web.PageError
	require.True(t, errors.As(err, &pe), "want a *web.PageError, got %v", err)
	require.Equal(t, kind, pe.Kind, pe.Error())
	return pe
}

func TestReadExtractsTheMainContentAsMarkdownAndRunsNoScript(t *testing.T) {
	s := newSite(t, htmlPage(articlePage("Release notes 4.2", 2, 3)))
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	page, err := r.Read(context.Background(), s.URL+"/notes", "")
	require.NoError(t, err)
	require.Equal(t, web.KindHTML, page.Kind)
	require.Equal(t, "Release notes 4.2", page.Title)
	require.Contains(t, page.Content, "## Section 2")
	require.Contains(t, page.Content, "Paragraph 3 of section 2 explains the release schedule")
	require.Contains(t, page.Content, "**dates**", "Markdown, not plain text")
	require.Contains(t, page.Content, "("+s.URL+"/notes/1)", "links made absolute")
	require.NotContains(t, page.Content, "SCRIPT", "scripts are neither run nor quoted")
	require.NotContains(t, page.Content, "Privacy", "the footer is not main content")
	require.Empty(t, page.Note, "the whole article fits")
}

func TestALongPageIsCutWithANoteNamingWhatWasLeftOut(t *testing.T) {
	s := newSite(t, htmlPage(articlePage("Handbook", 12, 6)))
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	page, err := r.Read(context.Background(), s.URL, "")
	require.NoError(t, err)
	require.LessOrEqual(t, utf8.RuneCountInString(page.Content), web.MaxPageChars)
	require.Greater(t, page.TotalChars, web.MaxPageChars)
	require.Contains(t, page.Note, "of "+thousands(page.TotalChars)+" characters were left out")
	require.Contains(t, page.Note, "“Section 12”", "the cut sections are named")
	require.Contains(t, page.Content, "## Section 1")

	focused, err := r.Read(context.Background(), s.URL, "Section 9")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(focused.Content, "## Section 9"), focused.Content[:80])
	require.Contains(t, focused.Note, "Starts at the first mention of “Section 9”")
	require.Contains(t, focused.Note, "“Section 1”", "what came before is named too")
}

// A page far longer than a read returns is written as Markdown only as far
// as the read needs; the note still counts and names everything left out.
func TestAHugePageIsCutWithTheSameNote(t *testing.T) {
	body := articlePage("Archive", 400, 6)
	s := newSite(t, htmlPage(body))
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	page, err := r.Read(context.Background(), s.URL, "")
	require.NoError(t, err)
	require.LessOrEqual(t, utf8.RuneCountInString(page.Content), web.MaxPageChars)
	require.Contains(t, page.Note, "“Section 400”", "the last section is named")
	require.Regexp(t, `with 39\d sections`, page.Note)
	full, err := web.ExtractHTML(strings.NewReader(body), nil, 0)
	require.NoError(t, err)
	require.InDelta(t, utf8.RuneCountInString(full.Text), page.TotalChars, float64(page.TotalChars)/5, "the total counts the text left out")
}

func TestAPDFIsReadAsText(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(textPDF("Quarterly report: revenue grew 12 percent"))
	})
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	page, err := r.Read(context.Background(), s.URL+"/report.pdf", "")
	require.NoError(t, err)
	require.Equal(t, web.KindPDF, page.Kind)
	require.Contains(t, page.Content, "revenue grew 12 percent")
}

func TestAPDFBombIsRefusedBeforeItIsParsed(t *testing.T) {
	bomb := bombPDF(web.MaxPDFInflated + 1<<20)
	require.Less(t, len(bomb), 1<<20, "a small file")
	s := newSite(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(bomb)
	})
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	_, err := r.Read(context.Background(), s.URL+"/bomb.pdf", "")
	pe := requirePageError(t, err, web.KindTooLarge)
	require.Contains(t, pe.Error(), "PDF bomb")
}

func TestAnOversizePageIsRefusedAndReadingStops(t *testing.T) {
	const limit = 1 << 20
	var written = make(chan int64, 2)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", strconv.Itoa(4*limit))
		}
		chunk := []byte(strings.Repeat("<p>word word word</p>", 1000))
		var n int64
		for n < 64*limit {
			m, err := w.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		written <- n
	})
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}, MaxBytes: limit})
	_, err := r.Read(context.Background(), s.URL+"/declared", "")
	pe := requirePageError(t, err, web.KindTooLarge)
	require.Contains(t, pe.Error(), "nothing of it was read")

	_, err = r.Read(context.Background(), s.URL+"/chunked", "")
	pe = requirePageError(t, err, web.KindTooLarge)
	require.Contains(t, pe.Error(), "reading stopped there")
	r.Close()
	for range 2 {
		select {
		case n := <-written:
			require.Less(t, n, int64(64*limit), "the reader hung up: the rest was never sent")
		case <-time.After(10 * time.Second):
			t.Fatal("the server is still writing")
		}
	}
}

func TestLoopbackAndPrivateAddressesAreRefusedWithoutTheAllowlist(t *testing.T) {
	s := newSite(t, htmlPage(articlePage("Internal", 1, 3)))
	r := newReader(t, web.ReaderOptions{})
	for _, u := range []string{s.URL, "http://10.1.2.3/admin", "http://[::1]:9/", "http://169.254.169.254/latest/meta-data/"} {
		_, err := r.Read(context.Background(), u, "")
		pe := requirePageError(t, err, web.KindRefused)
		require.Contains(t, pe.Error(), "which Hub does not connect to", u)
	}
	require.Zero(t, s.hits.Load(), "nothing was fetched")
}

func TestARedirectToAPrivateAddressIsRefused(t *testing.T) {
	inner := newSite(t, htmlPage(articlePage("Secrets", 1, 3)))
	outer := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		target := inner.URL + "/secrets"
		if r.URL.Path == "/metadata" {
			target = "http://169.254.169.254/latest/meta-data/"
		}
		http.Redirect(w, r, target, http.StatusFound)
	})
	// Only the outer site is allowed: the inner one is a loopback address
	// like any other.
	r := newReader(t, web.ReaderOptions{Allow: []string{outer.hostPort()}})
	for _, path := range []string{"/to-loopback", "/metadata"} {
		_, err := r.Read(context.Background(), outer.URL+path, "")
		pe := requirePageError(t, err, web.KindRefused)
		require.Contains(t, pe.Error(), "which Hub does not connect to", path)
	}
	require.Equal(t, int64(2), outer.hits.Load())
	require.Zero(t, inner.hits.Load(), "nothing was fetched beyond the redirect")
}

func TestOnlyHTTPAndHTTPSAreRead(t *testing.T) {
	r := newReader(t, web.ReaderOptions{})
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "gopher://example.com", "javascript:alert(1)", "https://user:pw@example.com/", "not a url at all"} {
		_, err := r.Read(context.Background(), u, "")
		requirePageError(t, err, web.KindRefused)
	}
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	r = newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	_, err := r.Read(context.Background(), s.URL, "")
	pe := requirePageError(t, err, web.KindRefused)
	require.Contains(t, pe.Error(), "not http or https")
}

func TestPagesThatNeedASignInOrAScriptSaySo(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			htmlPage(`<html><head><title>Sign in</title></head><body><form><input name="user"><input type="password" name="pw"><button>Sign in</button></form></body></html>`)(w, r)
		case "/app":
			htmlPage(`<html><head><title>App</title><script src="/bundle.js"></script></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`)(w, r)
		case "/private":
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.WriteHeader(http.StatusUnauthorized)
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
		}
	})
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	_, err := r.Read(context.Background(), s.URL+"/login", "")
	require.Contains(t, requirePageError(t, err, web.KindNeedsSignIn).Error(), "sign-in form")
	_, err = r.Read(context.Background(), s.URL+"/app", "")
	require.Contains(t, requirePageError(t, err, web.KindNeedsScript).Error(), "runs no page script")
	_, err = r.Read(context.Background(), s.URL+"/private", "")
	require.Contains(t, requirePageError(t, err, web.KindNeedsSignIn).Error(), "HTTP 401")
	_, err = r.Read(context.Background(), s.URL+"/image", "")
	require.Contains(t, requirePageError(t, err, web.KindUnreadable).Error(), "image/png")
}

func TestASlowPageIsCutOffAtTheDeadline(t *testing.T) {
	release := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}, Timeout: 300 * time.Millisecond})
	start := time.Now()
	_, err := r.Read(context.Background(), s.URL, "")
	require.Contains(t, requirePageError(t, err, web.KindUnreachable).Error(), "did not answer within 300ms")
	require.Less(t, time.Since(start), 5*time.Second)
}

func TestCutEndsAtAParagraph(t *testing.T) {
	text := strings.Repeat("A sentence of the first part.\n\n", 200) + "# Later\n\n" + strings.Repeat("More words here. ", 300)
	ex := web.Cut(text, "", 1000)
	require.LessOrEqual(t, utf8.RuneCountInString(ex.Text), 1000)
	require.True(t, strings.HasSuffix(ex.Text, "first part."), "cut at a paragraph")
	require.Contains(t, ex.Note, "“Later”")
	require.Equal(t, "short text", web.Cut("short text", "", 1000).Text)
	require.Empty(t, web.Cut("short text", "", 1000).Note)
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Products and prices come from the page's structured data (JSON-LD),
// read as data; a shop page whose prices are only there still has them.
func TestProductsAndPricesComeFromStructuredData(t *testing.T) {
	s := newSite(t, htmlPage(`<html><head><title>Kettle</title>
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
 {"@type":"Product","name":"Steel kettle 1.7 l","offers":{"@type":"Offer","price":"39.90","priceCurrency":"EUR","availability":"https://schema.org/InStock"}},
 {"@type":["Product","Thing"],"name":"Glass kettle","offers":[{"@type":"AggregateOffer","lowPrice":29,"highPrice":45.5,"priceCurrency":"EUR"}]},
 {"@type":"Organization","name":"Kettle Shop"}]}</script>
<script>window.cart = []</script></head>
<body><div id="app"><h1>Kettles</h1><p>Our kettles.</p></div></body></html>`))
	r := newReader(t, web.ReaderOptions{Allow: []string{s.hostPort()}})
	page, err := r.Read(context.Background(), s.URL, "")
	require.NoError(t, err)
	require.Contains(t, page.Content, "## Products and prices (the page's structured data)")
	require.Contains(t, page.Content, "- Steel kettle 1.7 l: 39.90 EUR (InStock)")
	require.Contains(t, page.Content, "- Glass kettle: 29–45.5 EUR")
	require.NotContains(t, page.Content, "Kettle Shop")
	require.NotContains(t, page.Content, "window.cart")
}
