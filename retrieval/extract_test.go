package retrieval_test

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/files"
	"hub/retrieval"
	"hub/web"
	"hub/web/webtest"
)

func extract(t *testing.T, contentType string, data []byte) retrieval.Document {
	t.Helper()
	doc, err := retrieval.Extract(context.Background(), contentType, data)
	require.NoError(t, err)
	return doc
}

// requireUnreadable checks that extracting data fails with an
// *UnreadableError whose reason contains want.
func requireUnreadable(t *testing.T, contentType string, data []byte, want string) {
	t.Helper()
	_, err := retrieval.Extract(context.Background(), contentType, data)
	var ue *retrieval.UnreadableError
	require.True(t, errors.As(err, &ue), "want an *UnreadableError, got %v", err)
	require.Contains(t, ue.Error(), want)
}

func TestPlainTextIsOneSectionOfParagraphs(t *testing.T) {
	t.Parallel()
	doc := extract(t, "text/plain", []byte("\uFEFFFirst line\r\nstill first.  \r\n\r\n\r\n  \nSecond\x00 paragraph.\n"))
	require.Equal(t, retrieval.Document{Sections: []retrieval.Section{
		{Text: "First line\nstill first.\n\nSecond  paragraph."},
	}}, doc, "line ends made \\n, paragraphs apart by one blank line, NUL (refused by Postgres) made a space")

	for _, ct := range []string{"text/csv", "application/json"} {
		doc = extract(t, ct, []byte("a,b\n1,2\n"))
		require.Equal(t, []retrieval.Section{{Text: "a,b\n1,2"}}, doc.Sections, ct)
	}
}

func TestMarkdownIsCutByItsHeadingsNamedByTheNearestTwo(t *testing.T) {
	t.Parallel()
	md := `Before any heading.

# Contract

Parties and dates.

## Pricing

Prices are in euros.

### Penalties ###

Late delivery costs 2 % a week.

` + "```sh\n# not a heading\n```" + `

## [Support](#support)

#hashtag is text.

#### 

Under an empty heading.
# C#
Code.
`
	doc := extract(t, "text/markdown", []byte(md))
	require.Equal(t, []retrieval.Section{
		{Heading: "", Text: "Before any heading."},
		{Heading: "Contract", Text: "Parties and dates."},
		{Heading: "Contract › Pricing", Text: "Prices are in euros."},
		{Heading: "Pricing › Penalties", Text: "Late delivery costs 2 % a week.\n\n```sh\n# not a heading\n```"},
		{Heading: "Contract › Support", Text: "#hashtag is text."},
		{Heading: "Contract › Support", Text: "Under an empty heading."},
		{Heading: "C#", Text: "Code."},
	}, doc.Sections)
}

func TestHTMLIsReadAsMarkdown(t *testing.T) {
	t.Parallel()
	page := `<!DOCTYPE html><html><head><title>Handbook</title></head><body>
<nav><a href="/">Home</a></nav>
<article><h1>Handbook</h1>
<h2>Holidays</h2><p>Everyone has 30 days of paid holiday a year, booked in the team calendar at least two weeks ahead.</p>
<h3>Carry-over</h3><p>Up to five days carry over to the next year; the rest lapse on the 31st of March.</p>
<h2>Expenses</h2><p>Receipts go to the finance mailbox within a month of the expense, with the project named.</p>
</article><script>var tracker = "SCRIPT TEXT"</script></body></html>`
	doc := extract(t, "text/html", []byte(page))
	require.Equal(t, "Handbook", doc.Title)
	var headings []string
	for _, s := range doc.Sections {
		headings = append(headings, s.Heading)
		require.NotContains(t, s.Text, "SCRIPT")
	}
	require.Equal(t, []string{"Holidays", "Holidays › Carry-over", "Expenses"}, headings,
		"the page's title heading is its Title")
	require.Contains(t, doc.Sections[1].Text, "Up to five days carry over")

	requireUnreadable(t, "text/html", []byte("<html><body><script>render()</script></body></html>"), "JavaScript")
}

func TestAWordDocumentIsReadByItsHeadingStyles(t *testing.T) {
	t.Parallel()
	body := `<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>Supply agreement</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Signed by </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>both parties</w:t></w:r><w:r><w:t>.</w:t></w:r></w:p>
<w:p/>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Pricing</w:t></w:r></w:p>
<w:p><w:r><w:t>Net</w:t><w:tab/><w:t>30 days</w:t><w:br/><w:t>from the invoice.</w:t></w:r></w:p>
<w:p><w:r><w:fldChar w:fldCharType="begin"/><w:instrText>HYPERLINK "x"</w:instrText><w:delText>old</w:delText></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Penalties</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Late</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>2 %</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>Lost</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>full price</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>In a text box.</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>In a text box.</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`
	doc := extract(t, files.TypeDOCX, docx(t, wordDocument(body)))
	require.Equal(t, []retrieval.Section{
		{Heading: "Supply agreement", Text: "Signed by both parties."},
		{Heading: "Supply agreement › Pricing", Text: "Net\t30 days\nfrom the invoice."},
		{Heading: "Pricing › Penalties", Text: "Late | 2 %\n\nLost | full price\n\nIn a text box."},
	}, doc.Sections, "field codes and deleted text are not text; a text box's fallback copy is read once")
}

func TestABrokenOrHugeWordDocumentIsUnreadable(t *testing.T) {
	t.Parallel()
	requireUnreadable(t, files.TypeDOCX, []byte("PK\x03\x04 not really a zip"), "could not be opened")
	requireUnreadable(t, files.TypeDOCX, zipOf(t, map[string][]byte{"a.txt": []byte("x")}), "not a Word document")
	requireUnreadable(t, files.TypeDOCX, docx(t, wordDocument(`<w:p><w:r><w:t>open`)), "could not be read")
	requireUnreadable(t, files.TypeDOCX, docx(t, wordDocument(`<w:p/>`)), "no text to search")

	// A text part of 65 MiB of spaces is refused before it is inflated, and
	// one that claims less is not read past its claim.
	spaces := webtest.ZlibSpaces(retrieval.MaxDOCXXML + 1<<20)
	deflated := spaces[2 : len(spaces)-4] // the zlib stream's deflate body
	for size, want := range map[uint64]string{
		retrieval.MaxDOCXXML + 1<<20: "inflates to more than 64 MiB",
		1 << 20:                      "could not be read",
	} {
		var z bytes.Buffer
		zw := zip.NewWriter(&z)
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
			CompressedSize64: uint64(len(deflated)), UncompressedSize64: size})
		require.NoError(t, err)
		_, err = w.Write(deflated)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		requireUnreadable(t, files.TypeDOCX, z.Bytes(), want)
	}
}

func TestAPDFIsReadByPage(t *testing.T) {
	t.Parallel()
	doc := extract(t, "application/pdf", textPDF("Quarterly report: revenue grew 12 percent"))
	require.Equal(t, []retrieval.Section{{Heading: "Page 1", Text: "Quarterly report: revenue grew 12 percent"}}, doc.Sections)

	requireUnreadable(t, "application/pdf", webtest.OnePagePDF(deflate([]byte("0 0 m 100 100 l S")), " /Filter /FlateDecode"),
		"the PDF has no text layer (a scanned document?)")
	requireUnreadable(t, "application/pdf", webtest.OnePagePDF(webtest.ZlibSpaces(web.MaxPDFInflated+1<<20), " /Filter /FlateDecode"), "PDF bomb")
	requireUnreadable(t, "application/pdf", []byte("%PDF-1.4\nnothing else"), "could not be read")
}

func TestWhatHasNoTextIsUnreadable(t *testing.T) {
	t.Parallel()
	requireUnreadable(t, "text/plain", []byte(" \n\t\n"), "the file has no text to search")
	requireUnreadable(t, "text/markdown", []byte("# Only\n## Headings\n"), "the file has no text to search")
	requireUnreadable(t, "text/plain", []byte("caf\xe9"), "not UTF-8")
	requireUnreadable(t, "image/png", []byte("\x89PNG"), "a picture has no text")
	requireUnreadable(t, "application/zip", []byte("PK"), "does not read the text of application/zip files")
}

func TestExtractStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := retrieval.Extract(ctx, "application/pdf", textPDF("words"))
	require.ErrorIs(t, err, context.Canceled)
}

func FuzzExtract(f *testing.F) {
	types := []string{"text/plain", "text/markdown", "text/html", "application/pdf", files.TypeDOCX}
	f.Add(uint8(1), []byte("# A\n\ntext\n## B\n```\n# c\n"))
	f.Add(uint8(2), []byte("<html><h1>x</h1><p>y</p></html>"))
	f.Add(uint8(3), textPDF("hello"))
	f.Add(uint8(4), docx(f, wordDocument(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>H</w:t></w:r></w:p><w:p><w:r><w:t>x</w:t></w:r></w:p>`)))
	f.Add(uint8(0), []byte("a\r\n\r\nb\x00"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		doc, err := retrieval.Extract(context.Background(), types[int(kind)%len(types)], data)
		if err != nil {
			return
		}
		for _, c := range retrieval.Chunks(doc) {
			if c.Text == "" || strings.ContainsRune(c.Text, 0) {
				t.Fatalf("chunk %d: %q", c.Ord, c.Text)
			}
		}
	})
}

func wordDocument(body string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
		`xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>` + body + `</w:body></w:document>`
}

// docx is a Word document (a zip) around document.xml.
func docx(t testing.TB, documentXML string) []byte {
	return zipOf(t, map[string][]byte{
		"[Content_Types].xml": []byte(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`),
		"word/document.xml":   []byte(documentXML),
	})
}

func zipOf(t testing.TB, entries map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range []string{"[Content_Types].xml", "word/document.xml", "a.txt"} {
		if data, ok := entries[name]; ok {
			w, err := zw.Create(name)
			require.NoError(t, err)
			_, err = w.Write(data)
			require.NoError(t, err)
		}
	}
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func deflate(b []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return z.Bytes()
}

func textPDF(text string) []byte {
	return webtest.OnePagePDF(deflate([]byte("BT /F1 24 Tf 72 700 Td ("+text+") Tj ET")), " /Filter /FlateDecode")
}
