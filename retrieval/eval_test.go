package retrieval_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/fakemodel"
	"hub/files"
	"hub/retrieval"
)

// updateRetrievalBaseline rewrites testdata/eval/baseline.json with the
// scores measured now:
//
//	scripts/test.sh ./retrieval -run TestRetrievalEvalHoldsItsBaseline -args -update-retrieval-baseline
var updateRetrievalBaseline = flag.Bool("update-retrieval-baseline", false,
	"record the current retrieval scores as the baseline")

const retrievalBaselineFile = "testdata/eval/baseline.json"

// evalBaseline is the recorded scores, by engine then mode.
type evalBaseline map[string]map[retrieval.Mode]evalScores

type evalScores struct {
	All     retrieval.EvalScore `json:"all"`
	Concept retrieval.EvalScore `json:"concept"`
	Exact   retrieval.EvalScore `json:"exact"`
}

func TestEvalSetIsWellFormed(t *testing.T) {
	t.Parallel()
	set, err := retrieval.LoadEvalSet(retrieval.EvalFiles())
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(set.Docs), 220)
	kinds := map[string]int{}
	for _, d := range set.Docs {
		kinds[files.Sniff(d.Name, d.Data[:min(len(d.Data), 512)])]++
	}
	for _, k := range []string{"text/markdown", "text/plain", "text/html", "text/csv", "application/json"} {
		require.Positive(t, kinds[k], k)
	}
	require.GreaterOrEqual(t, kinds[files.TypeDOCX], 10)
	require.GreaterOrEqual(t, kinds["application/pdf"], 10)
	shapes := map[string]int{}
	for _, q := range set.Questions {
		shapes[q.Shape]++
	}
	require.GreaterOrEqual(t, len(set.Questions), 110)
	require.GreaterOrEqual(t, shapes[retrieval.ShapeExact], 30)
	require.NoError(t, retrieval.CheckLabels(context.Background(), set), "every label is in a passage of its file")

	broken := set
	broken.Questions = append([]retrieval.EvalQuestion{{Question: "q", Shape: retrieval.ShapeConcept,
		Expect: []retrieval.EvalExpect{{File: set.Docs[0].Name, Contains: "no document says this"}}}}, set.Questions...)
	require.ErrorContains(t, retrieval.CheckLabels(context.Background(), broken), "no passage of "+set.Docs[0].Name)
}

// TestRetrievalEvalHoldsItsBaseline is the retrieval regression test: on
// each engine, recall@5 and MRR of the labelled set, overall and by shape,
// may not drop below the recorded baseline. A change that raises them
// should record the new baseline (see updateRetrievalBaseline).
func TestRetrievalEvalHoldsItsBaseline(t *testing.T) {
	t.Parallel()
	set, err := retrieval.LoadEvalSet(retrieval.EvalFiles())
	require.NoError(t, err)
	baseline := evalBaseline{}
	raw, err := os.ReadFile(retrievalBaselineFile)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &baseline))

	var mu sync.Mutex
	if *updateRetrievalBaseline {
		t.Cleanup(func() { // after both engines' subtests
			out, err := json.MarshalIndent(baseline, "", "  ")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(retrievalBaselineFile, append(out, '\n'), 0o644))
		})
	}
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		engine := path.Base(t.Name())
		ctx := context.Background()
		db := dbtest.Open(t, url)
		blobs, err := files.NewDirStore(t.TempDir())
		require.NoError(t, err)
		start := time.Now()
		space, err := retrieval.IndexEvalSet(ctx, db, blobs, set, fakemodel.Embedder{})
		require.NoError(t, err)
		t.Logf("indexed %d documents in %s", len(set.Docs), time.Since(start).Round(time.Millisecond))
		store := retrieval.NewStore(db)
		store.Embedder = fakemodel.Embedder{}
		for _, mode := range []retrieval.Mode{retrieval.ModeLexical, retrieval.ModeFused} {
			search, err := store.EvalSearch(mode, space)
			require.NoError(t, err)
			start := time.Now()
			rep, err := retrieval.Evaluate(ctx, set, search)
			require.NoError(t, err)
			t.Logf("%s: %d questions in %s", mode, len(set.Questions), time.Since(start).Round(time.Millisecond))
			for _, row := range rep.Rows {
				if row.Rank == 0 || row.Rank > retrieval.DefaultLimit {
					t.Logf("%s: rank %d (best: %s) for %s %q, expected in %s", mode, row.Rank, row.Top, row.Question.Shape,
						row.Question.Question, row.Question.Expect[0].File)
				}
			}
			now := evalScores{All: rep.All, Concept: rep.Concept, Exact: rep.Exact}
			for name, s := range map[string]retrieval.EvalScore{"all": now.All, "concept": now.Concept, "exact": now.Exact} {
				t.Logf("%s %s: recall@5 %.3f, MRR %.3f over %d questions", mode, name, s.Recall, s.MRR, s.Questions)
			}
			mu.Lock()
			base, ok := baseline[engine][mode]
			if *updateRetrievalBaseline {
				if baseline[engine] == nil {
					baseline[engine] = map[retrieval.Mode]evalScores{}
				}
				baseline[engine][mode] = now
			}
			mu.Unlock()
			if *updateRetrievalBaseline {
				continue
			}
			require.True(t, ok, "no baseline for %s %s: run with -update-retrieval-baseline", engine, mode)
			for _, c := range []struct {
				name     string
				now, was retrieval.EvalScore
			}{{"all", now.All, base.All}, {"concept", now.Concept, base.Concept}, {"exact", now.Exact, base.Exact}} {
				require.GreaterOrEqual(t, c.now.Recall, c.was.Recall-1e-9, "%s %s %s: recall@5 fell from %.3f to %.3f",
					engine, mode, c.name, c.was.Recall, c.now.Recall)
				require.GreaterOrEqual(t, c.now.MRR, c.was.MRR-1e-9, "%s %s %s: MRR fell from %.3f to %.3f",
					engine, mode, c.name, c.was.MRR, c.now.MRR)
				if c.now.Recall > c.was.Recall+1e-9 || c.now.MRR > c.was.MRR+1e-9 {
					t.Logf("%s %s %s: above the baseline; record it with -update-retrieval-baseline", engine, mode, c.name)
				}
			}
		}
	})
}
