package retrieval

import (
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk sizes, in characters (a token is about four): a passage is what a
// search returns and a model reads as one piece of evidence, so it is long
// enough to carry a paragraph with its context (~300 tokens) and short
// enough to stay on one topic and let DefaultLimit hits fit a small part of
// a prompt (~800 tokens).
const (
	minChunkChars = 1200
	maxChunkChars = 3200
)

// Chunks cuts a document into the pieces it is indexed as, the same pieces
// for the same document: by section, then by paragraph. A section's
// paragraphs are packed into chunks of at most maxChunkChars, never across
// sections, so a short section is a chunk of its own; a paragraph longer
// than that is cut at a sentence end, else a line end, else a space, in
// pieces of at least minChunkChars. A chunk keeps its paragraphs apart by
// a blank line.
func Chunks(doc Document) []Chunk {
	var out []Chunk
	var packed []string
	for _, s := range doc.Sections {
		chars := 0 // of packed, with its blank lines
		emit := func() {
			if len(packed) > 0 {
				out = append(out, newChunk(len(out), s.Heading, strings.Join(packed, "\n\n")))
				packed, chars = packed[:0], 0
			}
		}
		for p := range paragraphs(s.Text) {
			for piece := range pieces(p) {
				n := utf8.RuneCountInString(piece)
				if len(packed) > 0 && chars+2+n > maxChunkChars {
					emit()
				}
				if len(packed) > 0 {
					chars += 2
				}
				packed, chars = append(packed, piece), chars+n
			}
		}
		emit()
	}
	return out
}

func newChunk(ord int, section, text string) Chunk {
	sum := sha256.Sum256([]byte(section + "\n" + text))
	return Chunk{Ord: ord, Section: section, Text: text, Hash: hex.EncodeToString(sum[:])}
}

// paragraphs are text's runs of lines that are not blank, each without
// the spaces that end it.
func paragraphs(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start, end, at := -1, 0, 0
		for line := range strings.Lines(text) {
			if strings.TrimSpace(line) == "" {
				if start >= 0 && !yield(text[start:end]) {
					return
				}
				start = -1
			} else {
				if start < 0 {
					start = at
				}
				end = at + len(strings.TrimRightFunc(line, unicode.IsSpace))
			}
			at += len(line)
		}
		if start >= 0 {
			yield(text[start:end])
		}
	}
}

// pieces cuts a paragraph into pieces of at most maxChunkChars, each but
// the last of at least minChunkChars.
func pieces(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			upTo := runeOffset(p, maxChunkChars)
			if upTo == len(p) {
				yield(p)
				return
			}
			cut := cutAt(p, runeOffset(p, minChunkChars), upTo)
			if !yield(strings.TrimRightFunc(p[:cut], unicode.IsSpace)) {
				return
			}
			p = strings.TrimLeftFunc(p[cut:], unicode.IsSpace)
		}
	}
}

// runeOffset is the byte offset of s's n-th character, len(s) if it has
// no more than n.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// cutAt is where to cut s between byte offsets from and upTo: after the
// last sentence end, else after the last line end, else at the last space,
// else at upTo.
func cutAt(s string, from, upTo int) int {
	for i := upTo - 1; i > from; i-- {
		if strings.IndexByte(".!?", s[i-1]) >= 0 && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t') {
			return i
		}
	}
	if i := strings.LastIndexByte(s[from:upTo], '\n'); i > 0 {
		return from + i
	}
	if i := strings.LastIndexAny(s[from:upTo], " \t"); i > 0 {
		return from + i
	}
	return upTo
}
