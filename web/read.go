package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// MaxPageChars is the most of a page's text a read returns; the rest is
// named in Page.Note.
const MaxPageChars = 4_500

// Page is what a read returns.
type Page struct {
	URL        string // after redirects
	Title      string
	Kind       string // KindHTML, KindPDF or KindText
	Content    string // the main content as Markdown, at most MaxPageChars
	TotalChars int    // of the whole extracted text
	// Note says what was left out, and where the excerpt starts when not
	// at the top; empty when Content is the whole text.
	Note string
}

// Kinds of page.
const (
	KindHTML = "html"
	KindPDF  = "pdf"
	KindText = "text"
)

// Read fetches one public page or PDF and extracts its main content. With
// focus, the excerpt starts at the first part that mentions it. Every
// failure is a *PageError.
func (r *Reader) Read(ctx context.Context, rawURL, focus string) (Page, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return Page{}, err
	}
	f, err := r.fetch(ctx, u)
	if err != nil {
		return Page{}, err
	}
	host := f.url.Hostname()
	var doc Document
	switch {
	case f.contentType == "application/pdf":
		doc, err = ExtractPDF(ctx, f.body, MaxPDFPages, pdfTextEnough)
	case f.contentType == "text/html" || f.contentType == "application/xhtml+xml":
		var body io.Reader = bytes.NewReader(f.body)
		if cr, cerr := charset.NewReader(body, "text/html; charset="+f.charset); cerr == nil {
			body = cr
		}
		budget := 3 * MaxPageChars // enough to cut MaxPageChars of Markdown at a paragraph
		if strings.TrimSpace(focus) != "" {
			budget = 0 // the focus may be anywhere
		}
		doc, err = ExtractHTML(body, f.url, budget)
	case strings.HasPrefix(f.contentType, "text/") || f.contentType == "application/json" || strings.HasSuffix(f.contentType, "+json"):
		if !utf8.Valid(f.body) {
			return Page{}, pageErr(KindUnreadable, host, "its text is not UTF-8")
		}
		doc = Document{Kind: KindText, Text: string(f.body)}
	default:
		return Page{}, pageErr(KindUnreadable, host, "it is %s, not a web page, text or PDF", f.contentType)
	}
	if err != nil {
		if pe, ok := err.(*PageError); ok {
			pe.Host = host
			return Page{}, pe
		}
		return Page{}, pageErr(KindUnreadable, host, "its content could not be read (%v)", err)
	}
	ex := cut(doc.Text, focus, MaxPageChars, doc.Omitted)
	return Page{URL: f.url.String(), Title: doc.Title, Kind: doc.Kind, Content: ex.Text, TotalChars: ex.Total, Note: ex.Note}, nil
}

// Excerpt is a cut text and what was left out.
type Excerpt struct {
	Text  string
	Total int // characters of the whole text
	Note  string
}

// Cut returns at most limit characters of text, ending at a paragraph or
// line when one is near, with a note naming what was left out. With focus,
// the excerpt starts at the paragraph of its first mention.
func Cut(text, focus string, limit int) Excerpt { return cut(text, focus, limit, 0) }

// cut is Cut of a text whose last omitted characters were already left out.
func cut(text, focus string, limit, omitted int) Excerpt {
	text = strings.TrimSpace(text)
	total := utf8.RuneCountInString(text) + omitted
	start := 0
	var notes []string
	if f := strings.TrimSpace(focus); f != "" && total > limit {
		if i := strings.Index(strings.ToLower(text), strings.ToLower(f)); i > 0 {
			if p := strings.LastIndex(text[:i], "\n\n"); p >= 0 {
				start = p + 2 // back to the paragraph's start
			}
		} else if i < 0 {
			notes = append(notes, fmt.Sprintf("“%s” does not occur in the page; this is its start", f))
		}
	}
	before, rest := text[:start], text[start:]
	if utf8.RuneCountInString(rest) <= limit && start == 0 && omitted == 0 {
		return Excerpt{Text: text, Total: total, Note: strings.Join(notes, ". ")}
	}
	end := len(rest)
	if utf8.RuneCountInString(rest) > limit {
		end = byteOfRune(rest, limit)
		// Prefer a paragraph, then a line, then a space, in the last fifth.
		floor := byteOfRune(rest, limit*4/5)
		for _, sep := range []string{"\n\n", "\n", " "} {
			if k := strings.LastIndex(rest[:end], sep); k >= floor {
				end = k
				break
			}
		}
	}
	kept, after := strings.TrimSpace(rest[:end]), rest[end:]
	if start > 0 {
		notes = append(notes, fmt.Sprintf("Starts at the first mention of “%s”; %s characters before it were left out%s", strings.TrimSpace(focus), thousands(utf8.RuneCountInString(before)), sectionsOf(before)))
	}
	if strings.TrimSpace(after) != "" || omitted > 0 {
		n := utf8.RuneCountInString(strings.TrimSpace(after)) + omitted
		notes = append(notes, fmt.Sprintf("Cut here: the last %s of %s characters were left out%s; read again with a focus to see a later part", thousands(n), thousands(total), sectionsOf(after)))
	}
	return Excerpt{Text: kept, Total: total, Note: strings.Join(notes, ". ") + "."}
}

// sectionsOf names the Markdown headings in a cut part: all of up to
// five, or the first four and the last.
func sectionsOf(part string) string {
	var heads []string
	for _, line := range strings.Split(part, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok {
			if h = strings.TrimSpace(strings.TrimLeft(h, "#")); h != "" {
				heads = append(heads, "“"+shorten(h, 60)+"”")
			}
		}
	}
	switch n := len(heads); {
	case n == 0:
		return ""
	case n <= 5:
		return ", with the sections " + strings.Join(heads, ", ")
	default:
		return fmt.Sprintf(", with %d sections: %s, … %s", n, strings.Join(heads[:4], ", "), heads[n-1])
	}
}

func byteOfRune(s string, n int) int {
	for j := range s {
		if n == 0 {
			return j
		}
		n--
	}
	return len(s)
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
