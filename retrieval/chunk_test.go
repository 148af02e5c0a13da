package retrieval

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// prose is n paragraphs of sentences, of varied lengths, the same every run.
func prose(n int) string {
	paras := make([]string, n)
	for i := range paras {
		var b strings.Builder
		for j := range 1 + (i*7)%23 {
			fmt.Fprintf(&b, "Sentence %d of paragraph %d says a little about délais and pénalités. ", j, i)
		}
		paras[i] = strings.TrimSpace(b.String())
	}
	return strings.Join(paras, "\n\n")
}

func requireBounds(t *testing.T, chunks []Chunk) {
	t.Helper()
	for i, c := range chunks {
		n := utf8.RuneCountInString(c.Text)
		require.LessOrEqual(t, n, maxChunkChars, "chunk %d", i)
		require.Positive(t, n, "chunk %d", i)
		require.Equal(t, i, c.Ord)
		require.Equal(t, strings.TrimSpace(c.Text), c.Text, "chunk %d", i)
	}
}

func TestChunksPackParagraphsOfOneSection(t *testing.T) {
	t.Parallel()
	doc := Document{Sections: []Section{
		{Heading: "Intro", Text: "Short one.\n\nShort two."},
		{Heading: "Terms", Text: prose(60)},
		{Heading: "Annex", Text: "Short three."},
	}}
	chunks := Chunks(doc)
	requireBounds(t, chunks)
	require.Equal(t, Chunk{Ord: 0, Section: "Intro", Text: "Short one.\n\nShort two.",
		Hash: "fdf154e7c82e3750a75e19f1f43347c45e8fec87d7f2db7bef6f213d78639c9c"}, chunks[0],
		"paragraphs keep their blank line; the hash is SHA-256 of section, \\n, text")
	last := chunks[len(chunks)-1]
	require.Equal(t, "Annex", last.Section, "never joined across sections")
	require.Equal(t, "Short three.", last.Text)

	terms := chunks[1 : len(chunks)-1]
	require.Greater(t, len(terms), 3)
	var rebuilt []string
	for i, c := range terms {
		require.Equal(t, "Terms", c.Section)
		if i < len(terms)-1 {
			// The next chunk's first paragraph did not fit: at most 23 sentences of ~75 characters.
			require.Greater(t, utf8.RuneCountInString(c.Text)+1800, maxChunkChars, "chunk %d is packed", c.Ord)
		}
		rebuilt = append(rebuilt, c.Text)
	}
	require.Equal(t, prose(60), strings.Join(rebuilt, "\n\n"), "nothing lost, nothing repeated")

	again := Chunks(doc)
	require.Equal(t, chunks, again, "the same document, the same chunks")
}

func TestALongParagraphIsCutAtSentencesThenLinesThenSpaces(t *testing.T) {
	t.Parallel()
	sentences := strings.Repeat("Élan vital is a phrase of Bergson. ", 300) // ~10,500 characters
	lines := strings.Repeat("2026-01-01,invoice 17,EUR 1200,paid\n", 300)
	words := strings.Repeat("word ", 2000)
	oneWord := strings.Repeat("é", 7000)
	for name, tc := range map[string]struct {
		text string
		ends string // how every piece but the last ends
	}{
		"sentences": {sentences, "Bergson."},
		"lines":     {lines, "paid"},
		"words":     {words, "word"},
		"one word":  {oneWord, "é"},
	} {
		chunks := Chunks(Document{Sections: []Section{{Text: tc.text}}})
		requireBounds(t, chunks)
		require.Greater(t, len(chunks), 2, name)
		var all strings.Builder
		for i, c := range chunks {
			if i < len(chunks)-1 {
				require.GreaterOrEqual(t, utf8.RuneCountInString(c.Text), minChunkChars, "%s: chunk %d", name, i)
				require.True(t, strings.HasSuffix(c.Text, tc.ends), "%s: chunk %d ends %q", name, i, c.Text[len(c.Text)-20:])
			}
			all.WriteString(c.Text)
		}
		squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
		require.Equal(t, squash(tc.text), squash(all.String()), "%s: nothing lost but the spaces at cuts", name)
	}
	chunks := Chunks(Document{Sections: []Section{{Text: oneWord}}})
	require.Equal(t, maxChunkChars, utf8.RuneCountInString(chunks[0].Text), "a word longer than a chunk is cut at the limit")
}

func TestChunksOfNothing(t *testing.T) {
	t.Parallel()
	require.Empty(t, Chunks(Document{}))
	require.Empty(t, Chunks(Document{Sections: []Section{{Heading: "Empty", Text: " \n\n \n"}}}))
}

// BenchmarkChunks cuts 20 MiB of text, the largest file taken: the
// allocations stay about one per chunk, the bytes about the text's size.
func BenchmarkChunks(b *testing.B) {
	for name, text := range map[string]string{
		"paragraphs":       prose(40_000)[:20<<20],
		"one line per row": strings.Repeat("2026-01-01,invoice 17,EUR 1200,paid\n", 20<<20/36),
	} {
		doc := Document{Sections: []Section{{Text: text}}}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			n := 0
			for b.Loop() {
				n = len(Chunks(doc))
			}
			b.ReportMetric(float64(n), "chunks")
		})
	}
}
