package main

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"time"

	"hub/web/webtest"
)

// render writes a document in its format.
func render(d doc) []byte {
	switch d.kind {
	case "md":
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", d.title)
		for _, s := range d.sections {
			if s.heading != "" {
				fmt.Fprintf(&b, "## %s\n\n", s.heading)
			}
			for _, p := range s.paras {
				b.WriteString(p + "\n\n")
			}
		}
		return []byte(b.String())
	case "txt":
		var b strings.Builder
		b.WriteString(strings.ToUpper(d.title) + "\n\n")
		for _, s := range d.sections {
			if s.heading != "" {
				b.WriteString(s.heading + "\n\n")
			}
			for _, p := range s.paras {
				b.WriteString(p + "\n\n")
			}
		}
		return []byte(b.String())
	case "html":
		var b strings.Builder
		fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n"+
			"<nav><a href=\"/\">Intranet</a> | <a href=\"/policies\">Policies</a></nav>\n<article>\n<h1>%s</h1>\n",
			html.EscapeString(d.title), html.EscapeString(d.title))
		for _, s := range d.sections {
			if s.heading != "" {
				fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(s.heading))
			}
			for _, p := range s.paras {
				fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p))
			}
		}
		b.WriteString("</article>\n<footer>Brightwater Labs intranet</footer>\n</body></html>\n")
		return []byte(b.String())
	case "docx":
		return docx(d)
	case "pdf":
		return pdf(d)
	case "csv", "json":
		return []byte(d.raw)
	}
	panic("unknown kind " + d.kind)
}

func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func docx(d doc) []byte {
	var body strings.Builder
	para := func(style, text string) {
		body.WriteString("<w:p>")
		if style != "" {
			fmt.Fprintf(&body, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, style)
		}
		fmt.Fprintf(&body, `<w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, html.EscapeString(text))
	}
	para("Title", d.title)
	for _, s := range d.sections {
		if s.heading != "" {
			para("Heading1", s.heading)
		}
		for _, p := range s.paras {
			if cells := strings.Split(p, " | "); len(cells) > 1 {
				body.WriteString("<w:tbl><w:tr>")
				for _, c := range cells {
					fmt.Fprintf(&body, `<w:tc><w:p><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p></w:tc>`, html.EscapeString(c))
				}
				body.WriteString("</w:tr></w:tbl>")
				continue
			}
			para("", p)
		}
	}
	xml := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		body.String() + `</w:body></w:document>`
	parts := []struct{ name, data string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", xml},
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(p.data)); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// pdf lays the document out in lines of at most 90 characters, a page
// every 48 lines, never breaking a paragraph across pages; each line is
// one Tj and a T* (the extractor's line end), a paragraph ends with
// another T*.
func pdf(d doc) []byte {
	var pages [][]string
	var page []string
	add := func(lines []string) {
		if len(page)+len(lines) > 48 && len(page) > 0 {
			pages = append(pages, page)
			page = nil
		}
		page = append(page, lines...)
		page = append(page, "")
	}
	add([]string{d.title})
	for _, s := range d.sections {
		if s.heading != "" {
			add([]string{s.heading})
		}
		for _, p := range s.paras {
			add(wrap(p, 90))
		}
	}
	pages = append(pages, page)

	var objs []string
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>", "") // 2 is filled in below
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var kids []string
	for _, lines := range pages {
		var c strings.Builder
		c.WriteString("BT /F1 10 Tf 12 TL 56 760 Td\n")
		for _, l := range lines {
			if l != "" {
				fmt.Fprintf(&c, "(%s) Tj ", pdfEscape(l))
			}
			c.WriteString("T*\n")
		}
		c.WriteString("ET")
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		_, _ = zw.Write([]byte(c.String()))
		_ = zw.Close()
		objs = append(objs, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
		contents := len(objs)
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", contents))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	return webtest.PDF(objs)
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
}

func wrap(p string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(p) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
