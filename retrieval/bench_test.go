package retrieval_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/files"
	"hub/retrieval"
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
