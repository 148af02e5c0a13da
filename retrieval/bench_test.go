package retrieval_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/files"
	"hub/retrieval"
	"hub/web/webtest"
	"hub/workspace"
)

// benchWords is a vocabulary drawn from with a Zipf distribution, as
// words are in documents: a few very common, most rare.
var benchWords = func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, 20_000)
	for i := range out {
		n := 3 + r.IntN(8)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		out[i] = string(b)
	}
	return out
}()

// benchText is n words of Zipf-distributed text in paragraphs of 80.
func benchText(r *rand.Rand, n int) string {
	z := rand.NewZipf(r, 1.1, 1, uint64(len(benchWords)-1))
	var b strings.Builder
	for i := range n {
		if i > 0 && i%80 == 0 {
			b.WriteString(".\n\n")
		} else if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[z.Uint64()])
	}
	return b.String()
}

// BenchmarkIndexFiles indexes 1,000 Markdown files of ~10 KB (10 MB of
// text) through the steps the IndexFile workflow's activities take
// (extract, chunk, drafts, publish), without Temporal: the files/s figure
// of docs/benchmarks.md, "Search".
func BenchmarkIndexFiles(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			f := benchFixture(b, engine)
			r := rand.New(rand.NewPCG(3, 4))
			docs := make([]string, 1000)
			for i := range docs {
				docs[i] = fmt.Sprintf("# Document %d\n\n%s", i, benchText(r, 1600))
			}
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				for i, d := range docs {
					f.index(b, fmt.Sprintf("doc-%d.md", i), d)
				}
				b.ReportMetric(float64(len(docs))/time.Since(start).Seconds(), "files/s")
			}
		})
	}
}

// BenchmarkSearch ranks 50,000 passages (500 files of 100) in one space
// for 300 queries of 2 to 5 words, and reports the 95th percentile.
func BenchmarkSearch(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			f := benchFixture(b, engine)
			r := rand.New(rand.NewPCG(5, 6))
			for i := range 500 {
				chunks := make([]retrieval.Chunk, 100)
				for j := range chunks {
					chunks[j] = chunk(j, fmt.Sprintf("Part %d", j), benchText(r, 120))
				}
				f.publish(b, fmt.Sprintf("doc-%d.md", i), chunks)
			}
			queries := make([]string, 300)
			for i := range queries {
				queries[i] = benchText(r, 2+r.IntN(4))
			}
			b.ResetTimer()
			for range b.N {
				took := make([]time.Duration, len(queries))
				for i, q := range queries {
					start := time.Now()
					_, err := f.store.Search(f.ctx, f.owner, f.spaceID, retrieval.Query{Text: q})
					require.NoError(b, err)
					took[i] = time.Since(start)
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			}
		})
	}
}

// BenchmarkExtractLargePDF extracts and chunks a 20 MiB PDF (the upload
// limit, files.DefaultMaxBytes) of 2,000 pages of text, as PrepareIndex
// does, and reports the most heap it held above what it held before (the
// file's bytes are already there): the "20 MiB PDF" figure of
// docs/benchmarks.md, "Search".
func BenchmarkExtractLargePDF(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	var kids []string
	for len(kids) < 2000 {
		var c strings.Builder
		c.WriteString("BT /F1 10 Tf 12 TL 56 760 Td\n")
		for line := range strings.Lines(strings.ReplaceAll(benchText(r, 1500), ". ", ".\n")) {
			for len(line) > 0 {
				n := min(len(line), 90)
				fmt.Fprintf(&c, "(%s) Tj T*\n", strings.TrimSpace(line[:n]))
				line = line[n:]
			}
		}
		c.WriteString("ET")
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "+
			"/Resources << /Font << /F1 3 0 R >> >> >>", len(objs)))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	pdf := webtest.PDF(objs)
	b.ReportMetric(float64(len(pdf))/(1<<20), "file-MiB")
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		peak := make(chan uint64)
		stop := make(chan struct{})
		go func() { // sample the heap while the extraction runs
			var most uint64
			t := time.NewTicker(2 * time.Millisecond)
			defer t.Stop()
			for {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				most = max(most, m.HeapInuse)
				select {
				case <-stop:
					peak <- most
					return
				case <-t.C:
				}
			}
		}()
		doc, err := retrieval.Extract(context.Background(), "application/pdf", pdf)
		require.NoError(b, err)
		chunks := retrieval.Chunks(doc)
		close(stop)
		most := <-peak
		b.ReportMetric(float64(most-min(most, before.HeapInuse))/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(len(chunks)), "passages")
	}
}

type benchFix struct {
	ctx            context.Context
	files          *files.Service
	store          *retrieval.Store
	spaceID, owner string
}

func benchFixture(b *testing.B, engine string) benchFix {
	url := dbtest.SQLite(b)
	if engine == "postgres" {
		url = dbtest.Postgres(b)
	}
	db := dbtest.Open(b, url)
	ws := workspace.NewService(db)
	blobs, err := files.NewDirStore(b.TempDir())
	require.NoError(b, err)
	f := benchFix{ctx: context.Background(), files: files.NewService(db, ws, blobs, 0), store: retrieval.NewStore(db)}
	f.spaceID, f.owner, err = ws.EnsureMember(f.ctx, "Team", "Olga Owner", workspace.RoleOwner)
	require.NoError(b, err)
	return f
}

// index uploads a file and indexes it as the activities do.
func (f benchFix) index(b *testing.B, name, text string) {
	doc, err := retrieval.Extract(f.ctx, "text/markdown", []byte(text))
	require.NoError(b, err)
	f.publish(b, name, retrieval.Chunks(doc))
}

func (f benchFix) publish(b *testing.B, name string, chunks []retrieval.Chunk) {
	file, err := f.files.Upload(f.ctx, workspace.Actor{PersonID: f.owner, Via: workspace.ViaREST}, f.spaceID, name, strings.NewReader("x"))
	require.NoError(b, err)
	v, err := f.store.Begin(f.ctx, file.ID, file.IndexGen)
	require.NoError(b, err)
	_, err = f.store.SaveDrafts(f.ctx, v, chunks, "")
	require.NoError(b, err)
	require.NoError(b, f.store.Publish(f.ctx, file.ID, file.IndexGen))
}
