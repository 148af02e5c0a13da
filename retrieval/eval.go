package retrieval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"hub/files"
	"hub/storage"
	"hub/workspace"
)

// The retrieval evaluation (docs/retrieval.md, "Evaluation"): a labelled
// set of documents and questions, each question with the passages that
// answer it, indexed through the path an upload takes and searched with the
// tool each question calls for.

// Mode is the search an evaluation measures.
type Mode string

// The modes: lexical (words only) and fused (words and embeddings, by
// reciprocal rank).
const (
	ModeLexical Mode = "lexical"
	ModeFused   Mode = "fused"
)

// Question shapes: a concept question goes to hub_search_files, an exact
// lookup (a name, an id, a phrase) to hub_find_phrase.
const (
	ShapeConcept = "concept"
	ShapeExact   = "exact"
)

// evalDepth is how many passages a question's search returns: recall is
// counted in the first DefaultLimit, the reciprocal rank in all of them.
const evalDepth = MaxLimit

// EvalExpect is a passage that answers a question: one of File's whose
// text contains Contains (case and spacing ignored).
type EvalExpect struct {
	File     string `json:"file"`
	Contains string `json:"contains"`
}

// EvalQuestion is one labelled question. Query is what the tool is given
// when it is not the question itself (the phrase of an exact lookup).
type EvalQuestion struct {
	Question string       `json:"question"`
	Query    string       `json:"query,omitempty"`
	Shape    string       `json:"shape"`
	Expect   []EvalExpect `json:"expect"`
}

// EvalDoc is one document of the set, as uploaded.
type EvalDoc struct {
	Name string
	Data []byte
}

// EvalSet is the labelled set: the documents and the questions.
type EvalSet struct {
	Docs      []EvalDoc
	Questions []EvalQuestion
}

// LoadEvalSet reads a labelled set: questions.json and the documents
// under docs/.
func LoadEvalSet(fsys fs.FS) (EvalSet, error) {
	raw, err := fs.ReadFile(fsys, "questions.json")
	if err != nil {
		return EvalSet{}, fmt.Errorf("read the questions: %w", err)
	}
	var set EvalSet
	var stored struct {
		Questions []EvalQuestion `json:"questions"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&stored); err != nil {
		return EvalSet{}, fmt.Errorf("read the questions: %w", err)
	}
	set.Questions = stored.Questions
	entries, err := fs.ReadDir(fsys, "docs")
	if err != nil {
		return EvalSet{}, fmt.Errorf("list the documents: %w", err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join("docs", e.Name()))
		if err != nil {
			return EvalSet{}, fmt.Errorf("read document: %w", err)
		}
		set.Docs = append(set.Docs, EvalDoc{Name: e.Name(), Data: data})
		names[e.Name()] = true
	}
	for i, q := range set.Questions {
		if strings.TrimSpace(q.Question) == "" || (q.Shape != ShapeConcept && q.Shape != ShapeExact) || len(q.Expect) == 0 {
			return EvalSet{}, fmt.Errorf("question %d needs a question, a shape (concept or exact) and an expected passage", i+1)
		}
		for _, e := range q.Expect {
			if !names[e.File] || strings.TrimSpace(e.Contains) == "" {
				return EvalSet{}, fmt.Errorf("question %d (%q) expects a passage of %q that is not in the set", i+1, q.Question, e.File)
			}
		}
	}
	return set, nil
}

// CheckLabels extracts and cuts every document as indexing does and
// answers an error naming each expected passage that no chunk of its file
// holds: a label that no search could ever find.
func CheckLabels(ctx context.Context, set EvalSet) error {
	chunks := map[string][]string{}
	for _, d := range set.Docs {
		ctype := files.Sniff(d.Name, d.Data[:min(len(d.Data), 512)])
		doc, err := Extract(ctx, ctype, d.Data)
		if err != nil {
			return fmt.Errorf("extract %s: %w", d.Name, err)
		}
		for _, c := range Chunks(doc) {
			chunks[d.Name] = append(chunks[d.Name], squash(c.Section+"\n"+c.Text))
		}
	}
	var bad []error
	for _, q := range set.Questions {
		for _, e := range q.Expect {
			want := squash(e.Contains)
			found := false
			for _, c := range chunks[e.File] {
				found = found || strings.Contains(c, want)
			}
			if !found {
				bad = append(bad, fmt.Errorf("%q: no passage of %s contains %q", q.Question, e.File, e.Contains))
			}
		}
	}
	return errors.Join(bad...)
}

// EvalSpace is the space a set was indexed into and its owner, who searches.
type EvalSpace struct {
	SpaceID, PersonID string
}

// IndexEvalSet uploads every document of set into a new space of db
// (blobs keeps their bytes) and indexes each as the IndexFile workflow
// does: Extract, Chunks, then Begin, SaveDrafts, the drafts embedded by e
// (nil: none) and Publish.
func IndexEvalSet(ctx context.Context, db *storage.DB, blobs files.Store, set EvalSet, e Embedder) (EvalSpace, error) {
	ws := workspace.NewService(db)
	spaceID, personID, err := ws.EnsureMember(ctx, "Retrieval evaluation "+storage.NewID("eval"), "Eva Evaluator",
		workspace.RoleOwner)
	if err != nil {
		return EvalSpace{}, err
	}
	up, store := files.NewService(db, ws, blobs, 0), &Store{db: db, Embedder: e}
	actor := workspace.Actor{PersonID: personID, Via: workspace.ViaCLI}
	for _, d := range set.Docs {
		f, err := up.Upload(ctx, actor, spaceID, d.Name, bytes.NewReader(d.Data))
		if err != nil {
			return EvalSpace{}, fmt.Errorf("upload %s: %w", d.Name, err)
		}
		v, err := store.Begin(ctx, f.ID, f.IndexGen)
		if err != nil {
			return EvalSpace{}, err
		}
		doc, err := Extract(ctx, v.ContentType, d.Data)
		if err != nil {
			return EvalSpace{}, fmt.Errorf("extract %s: %w", d.Name, err)
		}
		if _, err := store.SaveDrafts(ctx, v, Chunks(doc), store.EmbeddingsModel()); err != nil {
			return EvalSpace{}, err
		}
		for n := -1; n != 0; {
			if n, err = store.EmbedBatch(ctx, f.ID, f.IndexGen); err != nil {
				return EvalSpace{}, fmt.Errorf("embed %s: %w", d.Name, err)
			}
		}
		if err := store.Publish(ctx, f.ID, f.IndexGen); err != nil {
			return EvalSpace{}, err
		}
	}
	return EvalSpace{SpaceID: spaceID, PersonID: personID}, nil
}

// SearchFunc is one search of an evaluated space.
type SearchFunc func(ctx context.Context, q Query) (Result, error)

// EvalSearch is the search mode measures over space: lexical leaves s's
// embedder out, fused needs one (the one the space was indexed with).
func (s *Store) EvalSearch(mode Mode, space EvalSpace) (SearchFunc, error) {
	st := *s
	switch mode {
	case ModeLexical:
		st.Embedder = nil
	case ModeFused:
		if s.Embedder == nil {
			return nil, errors.New("fused search needs an embeddings model")
		}
	default:
		return nil, fmt.Errorf("no search mode %q (lexical or fused)", mode)
	}
	return func(ctx context.Context, q Query) (Result, error) {
		return st.Search(ctx, space.PersonID, space.SpaceID, q)
	}, nil
}

// EvalRow is one question's outcome.
type EvalRow struct {
	Question EvalQuestion
	// Rank is the place of the first expected passage among the results,
	// from 1; 0 when none is among the first evalDepth.
	Rank int
	// Top is the file of the best result ("" for none), to read a miss.
	Top string
}

// EvalScore is recall@5 and the mean reciprocal rank over some questions.
type EvalScore struct {
	Questions int     `json:"questions"`
	Recall    float64 `json:"recall_at_5"`
	MRR       float64 `json:"mrr"`
}

// EvalReport is an evaluation: each question's row and the scores by shape
// and overall.
type EvalReport struct {
	Rows                []EvalRow
	Concept, Exact, All EvalScore
}

// Evaluate asks every question of set through search, a concept question
// as hub_search_files does and an exact one as hub_find_phrase does, and
// scores where the expected passages rank.
func Evaluate(ctx context.Context, set EvalSet, search SearchFunc) (EvalReport, error) {
	var rep EvalReport
	for _, q := range set.Questions {
		query := Query{Text: q.Question, Limit: evalDepth}
		if q.Shape == ShapeExact {
			query.Exact = true
			if q.Query != "" {
				query.Text = q.Query
			}
		}
		res, err := search(ctx, query)
		if err != nil {
			return EvalReport{}, fmt.Errorf("search %q: %w", query.Text, err)
		}
		row := EvalRow{Question: q}
		for _, h := range res.Hits {
			if row.Top == "" {
				row.Top = h.Title
			}
			if row.Rank == 0 && answers(h, q.Expect) {
				row.Rank = h.Rank
			}
		}
		rep.Rows = append(rep.Rows, row)
		rep.All.add(row.Rank)
		if q.Shape == ShapeExact {
			rep.Exact.add(row.Rank)
		} else {
			rep.Concept.add(row.Rank)
		}
	}
	for _, s := range []*EvalScore{&rep.Concept, &rep.Exact, &rep.All} {
		if s.Questions > 0 {
			s.Recall /= float64(s.Questions)
			s.MRR /= float64(s.Questions)
		}
	}
	return rep, nil
}

// add counts a question ranked rank (sums, divided at the end).
func (s *EvalScore) add(rank int) {
	s.Questions++
	if rank > 0 {
		s.MRR += 1 / float64(rank)
		if rank <= DefaultLimit {
			s.Recall++
		}
	}
}

// answers tells whether h is one of the expected passages.
func answers(h Hit, expect []EvalExpect) bool {
	text := squash(h.Section + "\n" + h.Body)
	for _, e := range expect {
		if h.Source == "file" && h.Title == e.File && strings.Contains(text, squash(e.Contains)) {
			return true
		}
	}
	return false
}
