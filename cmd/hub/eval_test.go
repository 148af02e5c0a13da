package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"hub/retrieval"
)

// hub eval retrieval indexes a set into a fresh database and prints each
// question's rank and the scores.
func TestEvalRetrievalPrintsRanksAndScores(t *testing.T) {
	set, err := retrieval.LoadEvalSet(fstest.MapFS{
		"questions.json": {Data: []byte(`{"questions": [
			{"question": "How long is the notice period?", "shape": "concept",
			 "expect": [{"file": "contract.md", "contains": "90 days"}]},
			{"question": "Find INV-2024-0042", "query": "INV-2024-0042", "shape": "exact",
			 "expect": [{"file": "invoice.txt", "contains": "INV-2024-0042"}]},
			{"question": "What do we owe the printer?", "shape": "concept",
			 "expect": [{"file": "invoice.txt", "contains": "INV-2024-0042"}]}]}`)},
		"docs/contract.md": {Data: []byte("# Contract\n\n## Termination\n\nThe notice period is 90 days.\n")},
		"docs/invoice.txt": {Data: []byte("Invoice INV-2024-0042 for printing, due in May.\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	url := filepath.Join(t.TempDir(), "eval.db")
	if err := evalRetrieval(context.Background(), &out, set, url, retrieval.ModeLexical, false); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"1 concept How long is the notice period? contract.md contract.md",
		"1 exact Find INV-2024-0042 invoice.txt", "- concept What do we owe the printer? invoice.txt",
		"concept recall@5 0.500 MRR 0.500 (2 questions)", "all recall@5 0.667 MRR 0.667 (3 questions)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := evalRetrieval(context.Background(), &out, set, url+"2", retrieval.ModeFused, false); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(got, "1 exact Find INV-2024-0042 invoice.txt") {
		t.Errorf("the fused report lacks the exact lookup:\n%s", out.String())
	}
	if err := evalRetrieval(context.Background(), &out, set, url+"3", "semantic", false); err == nil {
		t.Error("an unknown mode: want an error")
	}
}
