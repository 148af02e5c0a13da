package files

import (
	"net/http"
	"path"
	"strings"
	"unicode/utf8"
)

// Limits of an upload.
const (
	// DefaultMaxBytes is the largest file taken by default: what the
	// common model providers take as one image or document part.
	DefaultMaxBytes = 20 << 20
	// MaxNameChars bounds a file's name, a label in lists and links.
	MaxNameChars = 255
)

// TypeDOCX is a Word document's type (.docx).
const TypeDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// IsImage tells whether a type is a picture (sent as an image part).
func IsImage(contentType string) bool { return strings.HasPrefix(contentType, "image/") }

// IsText tells whether a type is text a tool can show as it is.
func IsText(contentType string) bool {
	return strings.HasPrefix(contentType, "text/") || contentType == "application/json"
}

// Sniff decides a file's type from its first bytes and, for text and for
// a zip (a Word document is one), from the name's extension. It answers ""
// for a type Hub does not take, so a model is never sent a part it cannot
// open.
func Sniff(name string, head []byte) string {
	detected, _, _ := strings.Cut(http.DetectContentType(head), ";")
	ext := strings.ToLower(path.Ext(name))
	switch detected {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf":
		return detected
	case "application/zip":
		if ext == ".docx" {
			return TypeDOCX
		}
	case "text/plain", "text/html":
		// The extension wins: a Markdown file may start with an HTML tag.
		if !utf8.Valid(trimPartialRune(head)) {
			return ""
		}
		switch ext {
		case ".md", ".markdown":
			return "text/markdown"
		case ".csv":
			return "text/csv"
		case ".json":
			return "application/json"
		case ".html", ".htm":
			return "text/html"
		}
		return detected
	}
	return ""
}

// trimPartialRune drops a rune cut at the end of a sniffed head.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, _ := utf8.DecodeLastRune(b); r != utf8.RuneError {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}
