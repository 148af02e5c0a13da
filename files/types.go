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

// IsImage tells whether a type is a picture (sent as an image part).
func IsImage(contentType string) bool { return strings.HasPrefix(contentType, "image/") }

// IsText tells whether a type is text a tool can show as it is.
func IsText(contentType string) bool {
	return strings.HasPrefix(contentType, "text/") || contentType == "application/json"
}

// Sniff decides a file's type from its first bytes and, for text, from the
// name's extension. It answers "" for a type Hub does not take, so a model
// is never sent a part it cannot open.
func Sniff(name string, head []byte) string {
	detected, _, _ := strings.Cut(http.DetectContentType(head), ";")
	switch detected {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf":
		return detected
	case "text/plain":
		if !utf8.Valid(trimPartialRune(head)) {
			return ""
		}
		switch strings.ToLower(path.Ext(name)) {
		case ".md", ".markdown":
			return "text/markdown"
		case ".csv":
			return "text/csv"
		case ".json":
			return "application/json"
		}
		return "text/plain"
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
