package retrieval

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hub/files"
	"hub/web"
)

// Section is a part of a document under one heading ("" before the first).
type Section struct {
	Heading string
	Text    string
}

// Document is a file's text, in sections.
type Document struct {
	// Title is the title the document gives itself, when it has one (an
	// HTML page's).
	Title    string
	Sections []Section
}

// Text is the document as Markdown: each section under its heading.
func (d Document) Text() string {
	var b strings.Builder
	for _, s := range d.Sections {
		if s.Heading != "" {
			b.WriteString("## " + s.Heading + "\n\n")
		}
		b.WriteString(s.Text + "\n\n")
	}
	return strings.TrimSpace(b.String())
}

// UnreadableError says why a file's text cannot be extracted, in words a
// person can act on (shown in the file list as `failed: <why>`). A retry
// cannot mend it.
type UnreadableError struct {
	Reason string
}

func (e *UnreadableError) Error() string { return e.Reason }

func unreadable(format string, args ...any) error {
	return &UnreadableError{Reason: fmt.Sprintf(format, args...)}
}

// Limits of an extraction.
const (
	// MaxDOCXXML bounds a Word document's text part (word/document.xml) as
	// inflated: a small zip can inflate to gigabytes. 64 MiB is the bound
	// web.MaxPDFInflated puts on a PDF.
	MaxDOCXXML = 64 << 20
	// maxHeadings: a section is named by its nearest headings, at most
	// this many ("Pricing › Penalties"); the outer ones, often the
	// document's title, would repeat in every passage.
	maxHeadings = 2
	// maxHeadingChars bounds a section's name, shown with every hit.
	maxHeadingChars = 200
)

// Extract reads a file's text: plain text, CSV and JSON as they are,
// Markdown and HTML (as Markdown) in sections by their headings, a PDF's
// text layer by page, a Word document by its heading styles. A file with
// no text to search, or one that cannot be read, is an *UnreadableError.
func Extract(ctx context.Context, contentType string, data []byte) (Document, error) {
	var doc Document
	var err error
	switch {
	case contentType == "application/pdf":
		doc, err = extractPDF(ctx, data)
	case contentType == files.TypeDOCX:
		doc, err = extractDOCX(data)
	case files.IsText(contentType):
		if !utf8.Valid(data) {
			return Document{}, unreadable("the file is not UTF-8 text")
		}
		text := strings.TrimPrefix(string(data), "\uFEFF")
		switch contentType {
		case "text/html":
			doc, err = extractHTML(text)
		case "text/markdown":
			doc = markdown(text)
		default:
			doc = Document{Sections: []Section{{Text: text}}}
		}
	case files.IsImage(contentType):
		return Document{}, unreadable("a picture has no text to search")
	default:
		return Document{}, unreadable("Hub does not read the text of %s files", contentType)
	}
	if cerr := ctx.Err(); cerr != nil { // a PDF read stopped half way is no answer
		return Document{}, cerr
	}
	if err != nil {
		return Document{}, err
	}
	doc = clean(doc)
	if len(doc.Sections) == 0 {
		return Document{}, unreadable("the file has no text to search")
	}
	return doc, nil
}

func extractHTML(text string) (Document, error) {
	page, err := web.ExtractHTML(strings.NewReader(text), nil, 0)
	if pe := (*web.PageError)(nil); errors.As(err, &pe) {
		return Document{}, unreadable("the page shows no text to search: %s", pe.Reason)
	}
	if err != nil {
		return Document{}, unreadable("the HTML could not be read (%v)", err)
	}
	doc := markdown(page.Text)
	doc.Title = page.Title
	return doc, nil
}

// maxPDFPages bounds the pages of a PDF indexed: a file of 20 MiB, the
// upload limit, rarely has more; later pages are named in a last section.
const maxPDFPages = 3000

// extractPDF reads a PDF's text layer (web.ExtractPDF measures its streams
// first), in sections by page.
func extractPDF(ctx context.Context, data []byte) (Document, error) {
	page, err := web.ExtractPDF(ctx, data, maxPDFPages, 0)
	if pe := (*web.PageError)(nil); errors.As(err, &pe) {
		// web words a PDF without text for a page a model reads; a file's
		// owner can act on this.
		if pe.Kind == web.KindUnreadable && strings.Contains(pe.Reason, "no text") {
			return Document{}, unreadable("the PDF has no text layer (a scanned document?)")
		}
		return Document{}, unreadable("%s", pe.Reason)
	}
	if err != nil {
		return Document{}, err
	}
	return markdown(page.Text), nil
}

// markdown cuts Markdown into sections by its ATX headings (# to ######),
// outside fenced code.
func markdown(text string) Document {
	var o outline
	fence := ""
	for line := range strings.Lines(text) {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) <= 3 {
			if fence != "" {
				if closesFence(trimmed, fence) {
					fence = ""
				}
			} else if fence = opensFence(trimmed); fence == "" {
				if level, h, ok := atxHeading(trimmed); ok {
					o.heading(level, headingLink.ReplaceAllString(h, "$1"))
					continue
				}
			}
		}
		o.text.WriteString(line)
	}
	return Document{Sections: o.end()}
}

// headingLink is a link in a heading, kept as its text: a converted page's
// headings often link to themselves.
var headingLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// opensFence is the fence a line opens (``` or ~~~, or longer), or "".
func opensFence(line string) string {
	for _, c := range "`~" {
		n := len(line) - len(strings.TrimLeft(line, string(c)))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

func closesFence(line, fence string) bool {
	return strings.HasPrefix(line, fence) && strings.TrimSpace(strings.TrimLeft(line, fence[:1])) == ""
}

// atxHeading reads "## Title ##" as level 2, "Title".
func atxHeading(line string) (level int, text string, ok bool) {
	line = strings.TrimRight(line, " \t\r\n")
	level = len(line) - len(strings.TrimLeft(line, "#"))
	rest := line[level:]
	if level == 0 || level > 6 || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return 0, "", false
	}
	if t := strings.TrimRight(rest, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		rest = t // a closing sequence
	}
	return level, strings.TrimSpace(rest), true
}

// outline gathers a document's sections as its headings and text come.
type outline struct {
	open     []heading // the headings the text is under, outermost first
	text     strings.Builder
	sections []Section
}

type heading struct {
	level int
	text  string
}

// heading ends the current section and opens one under text, closing the
// open headings of its level or deeper.
func (o *outline) heading(level int, text string) {
	o.flush()
	for len(o.open) > 0 && o.open[len(o.open)-1].level >= level {
		o.open = o.open[:len(o.open)-1]
	}
	o.open = append(o.open, heading{level, text})
}

// paragraph adds a paragraph to the current section.
func (o *outline) paragraph(text string) {
	o.text.WriteString(text)
	o.text.WriteString("\n\n")
}

func (o *outline) flush() {
	if o.text.Len() == 0 {
		return
	}
	var names []string
	for _, h := range o.open {
		if h.text != "" {
			names = append(names, h.text)
		}
	}
	names = names[max(0, len(names)-maxHeadings):]
	o.sections = append(o.sections, Section{Heading: strings.Join(names, " › "), Text: o.text.String()})
	o.text.Reset()
}

func (o *outline) end() []Section {
	o.flush()
	return o.sections
}

// clean makes a document's text what Chunks and the database take: valid
// UTF-8 without control characters (Postgres refuses NUL in text), lines
// ending in "\n", paragraphs apart by one blank line; headings on one
// line and at most maxHeadingChars; sections without text dropped.
func clean(doc Document) Document {
	kept := doc.Sections[:0]
	for _, s := range doc.Sections {
		s.Text = paragraphText(s.Text)
		if s.Text == "" {
			continue
		}
		s.Heading = oneLine(s.Heading, maxHeadingChars)
		kept = append(kept, s)
	}
	doc.Title = oneLine(doc.Title, maxHeadingChars)
	doc.Sections = kept
	return doc
}

// controls maps control characters but tab and newline to spaces and
// invalid UTF-8 to U+FFFD.
func controls(r rune) rune {
	if r == '\n' || r == '\t' || !unicode.IsControl(r) {
		return r
	}
	return ' '
}

func paragraphText(s string) string {
	s = strings.Map(controls, strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
	var b strings.Builder
	b.Grow(len(s))
	blank := false
	for line := range strings.Lines(s) {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			blank = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(line)
	}
	return b.String()
}

func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(strings.Map(controls, s)), " ")
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:limit-1])) + "…"
}

// extractDOCX reads a Word document's text part (word/document.xml),
// inflating at most MaxDOCXXML of it.
func extractDOCX(data []byte) (Document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Document{}, unreadable("the Word document could not be opened (%v)", err)
	}
	var part *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			part = f
			break
		}
	}
	tooLarge := unreadable("the Word document's text inflates to more than %d MiB; nothing of it was extracted",
		MaxDOCXXML>>20)
	switch {
	case part == nil:
		return Document{}, unreadable("the file is not a Word document (it has no word/document.xml)")
	case part.UncompressedSize64 > MaxDOCXXML:
		return Document{}, tooLarge
	}
	rc, err := part.Open()
	if err != nil {
		return Document{}, unreadable("the Word document could not be opened (%v)", err)
	}
	defer rc.Close()
	r := &io.LimitedReader{R: rc, N: MaxDOCXXML + 1} // the size in the zip may lie
	doc, err := wordXML(r)
	if r.N <= 0 {
		return Document{}, tooLarge
	}
	if err != nil {
		return Document{}, unreadable("the Word document could not be read (%v)", err)
	}
	return doc, nil
}

// wordXML reads WordprocessingML as it streams: a paragraph (w:p) is its
// text runs (w:t, w:tab, w:br, w:cr); one styled Title or Heading1..9 is
// a heading; a table row is one paragraph, its cells apart by " | ".
func wordXML(r io.Reader) (Document, error) {
	var (
		o       outline
		paras   []*wordPara // open paragraphs: a text box's sit inside another
		row     strings.Builder
		rows    int // open table rows
		inText  bool
		dec     = xml.NewDecoder(r)
		current = func() *wordPara {
			if len(paras) == 0 {
				return &wordPara{} // text outside a paragraph is dropped
			}
			return paras[len(paras)-1]
		}
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Document{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "Fallback": // markup-compatibility's copy of what its Choice holds
				if err := dec.Skip(); err != nil {
					return Document{}, err
				}
			case "p":
				paras = append(paras, &wordPara{})
			case "pStyle":
				for _, a := range t.Attr {
					if a.Name.Local == "val" {
						current().style = a.Value
					}
				}
			case "t":
				inText = true
			case "tab":
				current().text.WriteByte('\t')
			case "br", "cr":
				current().text.WriteByte('\n')
			case "tr":
				rows++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if len(paras) == 0 {
					continue
				}
				p := paras[len(paras)-1]
				paras = paras[:len(paras)-1]
				text := strings.TrimSpace(p.text.String())
				level, isHeading := headingLevel(p.style)
				switch {
				case text == "":
				case rows > 0:
					if row.Len() > 0 {
						row.WriteString(" | ")
					}
					row.WriteString(text)
				case isHeading:
					o.heading(level, text)
				default:
					o.paragraph(text)
				}
			case "tr":
				if rows > 0 {
					rows--
				}
				if rows == 0 && row.Len() > 0 {
					o.paragraph(row.String())
					row.Reset()
				}
			}
		case xml.CharData:
			if inText {
				current().text.Write(t)
			}
		}
	}
	return Document{Sections: o.end()}, nil
}

type wordPara struct {
	text  strings.Builder
	style string
}

// headingLevel reads a paragraph style: Title is above Heading1.
func headingLevel(style string) (int, bool) {
	if style == "Title" {
		return 0, true
	}
	rest, ok := strings.CutPrefix(style, "Heading")
	if !ok {
		return 0, false
	}
	if n, err := strconv.Atoi(rest); err == nil && n >= 1 && n <= 9 {
		return n, true
	}
	return 1, true
}
