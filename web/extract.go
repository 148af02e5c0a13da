package web

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/ledongthuc/pdf"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Document is a page's extracted text before it is cut.
type Document struct {
	Kind  string
	Title string
	Text  string
	// Omitted counts the characters left out by ExtractHTML's budget; Text
	// keeps their headings, so a cut names them.
	Omitted int
}

// minContentChars: a shorter page with signs of a sign-in form or a
// script-built page is reported as needing one.
const minContentChars = 200

// ExtractHTML finds an HTML page's main content (readability) and writes
// it as Markdown; scripts are dropped, never run. A page that shows almost
// nothing without a sign-in or a script is a *PageError saying so.
//
// With budget > 0, only the content's first budget characters of text are
// written as Markdown, and of the rest only its headings: converting a
// large page's every paragraph only to cut it away is most of the work.
func ExtractHTML(body io.Reader, pageURL *url.URL, budget int) (Document, error) {
	root, err := html.Parse(body)
	if err != nil {
		return Document{}, fmt.Errorf("parse HTML: %w", err)
	}
	signs := inspect(root)
	parser := readability.NewParser()
	article, aerr := parser.ParseDocument(root, pageURL)
	content, title := article.Node, ""
	if aerr == nil {
		title = strings.TrimSpace(article.Title())
	}
	if aerr != nil || content == nil {
		content = signs.body // no article found: the whole body, scripts dropped by the converter
	}
	title = cmp.Or(title, signs.title)
	md, omitted := "", 0
	if content != nil {
		if budget > 0 {
			omitted = prune(content, budget)
		}
		var opts []converter.ConvertOptionFunc
		if pageURL != nil {
			opts = append(opts, converter.WithDomain(pageURL.Scheme+"://"+pageURL.Host))
		}
		out, err := htmltomarkdown.ConvertNode(content, opts...)
		if err != nil {
			return Document{}, fmt.Errorf("convert to Markdown: %w", err)
		}
		md = tidy(string(out))
	}
	products := productsOf(signs.jsonLD)
	if len(products) > 0 {
		md = strings.TrimSpace("## Products and prices (the page's structured data)\n\n" + strings.Join(products, "\n") + "\n\n" + md)
	}
	if len(products) == 0 && utf8.RuneCountInString(md) < minContentChars {
		switch {
		case signs.password:
			return Document{}, pageErr(KindNeedsSignIn, "", "it shows a sign-in form and little else, and Hub signs in nowhere")
		case signs.scripts > 0 || signs.noscript:
			return Document{}, pageErr(KindNeedsScript, "", "it builds its content with JavaScript, and Hub runs no page script")
		case strings.TrimSpace(md) == "":
			return Document{}, pageErr(KindUnreadable, "", "it has no readable text")
		}
	}
	return Document{Kind: KindHTML, Title: title, Text: md, Omitted: omitted}, nil
}

// prune keeps root's first budget characters of text; after them it keeps
// only headings, moved up to where the content they were in stood. It
// returns how many characters of text it removed.
func prune(root *html.Node, budget int) (dropped int) {
	seen := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch {
			case seen >= budget:
				heads := headingsIn(c)
				dropped += textLen(c)
				n.RemoveChild(c)
				for _, h := range heads {
					if h != c {
						h.Parent.RemoveChild(h)
					}
					dropped -= textLen(h)
					n.InsertBefore(h, next)
				}
			case c.Type == html.TextNode:
				seen += utf8.RuneCountInString(c.Data)
			case c.Type == html.ElementNode:
				walk(c)
			}
			c = next
		}
	}
	walk(root)
	return max(dropped, 0)
}

// headingsIn lists the headings in n's subtree (n itself included), in
// document order, not those inside another heading.
func headingsIn(n *html.Node) []*html.Node {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if n.Type == html.ElementNode {
			return []*html.Node{n}
		}
	}
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, headingsIn(c)...)
	}
	return out
}

func textLen(n *html.Node) int {
	if n.Type == html.TextNode {
		return utf8.RuneCountInString(n.Data)
	}
	t := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		t += textLen(c)
	}
	return t
}

// pageSigns are what a page shows about itself besides its text.
type pageSigns struct {
	title    string
	jsonLD   []string // the JSON-LD blocks' text
	body     *html.Node
	scripts  int
	noscript bool
	password bool
}

func inspect(root *html.Node) pageSigns {
	var s pageSigns
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Title:
			if s.title == "" && n.FirstChild != nil {
				s.title = strings.TrimSpace(n.FirstChild.Data)
			}
		case atom.Body:
			s.body = n
		case atom.Script:
			if !isJSONLD(n) {
				s.scripts++
			} else if n.FirstChild != nil {
				s.jsonLD = append(s.jsonLD, n.FirstChild.Data)
			}
		case atom.Noscript:
			s.noscript = true
		case atom.Input:
			for _, a := range n.Attr {
				if a.Key == "type" && strings.EqualFold(a.Val, "password") {
					s.password = true
				}
			}
		}
	}
	return s
}

func isJSONLD(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "type" && strings.EqualFold(strings.TrimSpace(a.Val), "application/ld+json") {
			return true
		}
	}
	return false
}

var blankLines = regexp.MustCompile(`\n{3,}`)

func tidy(md string) string {
	return strings.TrimSpace(blankLines.ReplaceAllString(strings.ReplaceAll(md, "\r\n", "\n"), "\n\n"))
}

// Limits of a PDF's extraction. A small PDF can inflate to gigabytes (a
// "PDF bomb"), so its streams are measured before any is parsed.
const (
	// MaxPDFInflated bounds what all of a PDF's Flate streams inflate to.
	MaxPDFInflated = 64 << 20
	// MaxPDFPages is how many pages are read; later ones are named in the note.
	MaxPDFPages = 300
	// pdfTextEnough: once a page read has this much text, later pages are
	// not read (a read returns MaxPageChars of it anyway).
	pdfTextEnough = 60_000
)

var streamStart = regexp.MustCompile(`stream\r?\n`)

// CheckPDFStreams refuses a PDF whose Flate streams together inflate to
// more than limit, keeping none of it.
func CheckPDFStreams(body []byte, limit int64) error {
	var total int64
	for _, loc := range streamStart.FindAllIndex(body, -1) {
		if loc[0] > 0 && body[loc[0]-1] == 'd' { // "endstream"
			continue
		}
		zr, err := zlib.NewReader(bytes.NewReader(body[loc[1]:]))
		if err != nil {
			continue // not a Flate stream (an image, a font in another filter)
		}
		n, _ := io.Copy(io.Discard, io.LimitReader(zr, limit-total+1))
		_ = zr.Close()
		total += n
		if total > limit {
			return pageErr(KindTooLarge, "", "it is a PDF whose compressed content inflates to more than %s (a PDF bomb, or a document too large to read); nothing of it was extracted", size(limit))
		}
	}
	return nil
}

// ExtractPDF reads a PDF's text, page by page, after CheckPDFStreams: at
// most maxPages pages, and none after maxChars characters (0: no bound).
// A PDF without text (scanned pages) is an error saying so.
func ExtractPDF(ctx context.Context, body []byte, maxPages, maxChars int) (doc Document, err error) {
	if err := CheckPDFStreams(body, MaxPDFInflated); err != nil {
		return Document{}, err
	}
	defer func() {
		if p := recover(); p != nil {
			doc, err = Document{}, pageErr(KindUnreadable, "", "the PDF could not be read (%v)", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return Document{}, pageErr(KindUnreadable, "", "the PDF could not be read (%v)", err)
	}
	pages := r.NumPage()
	var b strings.Builder
	fonts := map[string]*pdf.Font{}
	read := 0
	for i := 1; i <= pages && i <= maxPages && (maxChars <= 0 || b.Len() < maxChars); i++ {
		if ctx.Err() != nil {
			break
		}
		text, err := r.Page(i).GetPlainText(fonts)
		read = i
		if err != nil {
			continue
		}
		if t := strings.TrimSpace(text); t != "" {
			fmt.Fprintf(&b, "## Page %d\n\n%s\n\n", i, t)
		}
	}
	text := strings.TrimSpace(b.String())
	if text == "" {
		return Document{}, pageErr(KindUnreadable, "", "the PDF has no text to read (scanned pages are pictures)")
	}
	if read < pages {
		text += fmt.Sprintf("\n\n## Pages %d–%d\n\n(not read: the document has %d pages)", read+1, pages, pages)
	}
	return Document{Kind: KindPDF, Text: text}, nil
}
