package tools

import (
	"context"
	"fmt"
	"math"
	"strings"

	"hub/retrieval"
	"hub/workspace"
)

// The search tools' names: one per query shape.
const (
	SearchFilesTool = "hub_search_files"
	FindPhraseTool  = "hub_find_phrase"
)

// Searcher searches a space's passages for a person (retrieval.Store).
type Searcher interface {
	Search(ctx context.Context, personID, spaceID string, q retrieval.Query) (retrieval.Result, error)
}

// maxPassageChars bounds one returned passage; the passages of one result
// share what is left of the tool result limit besides.
const maxPassageChars = 1_000

// SearchInput is hub_search_files' input.
type SearchInput struct {
	Query string `json:"query" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"What you want to know, in your own words: the topic and the words a document about it would use."`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=10" jsonschema_description:"How many passages (default 5)."`
}

// FindPhraseInput is hub_find_phrase's input.
type FindPhraseInput struct {
	Phrase string `json:"phrase" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"The exact text to find: a name, an id or reference number, a code, a quoted phrase."`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=10" jsonschema_description:"How many passages (default 5)."`
}

// PassageData is one passage found.
type PassageData struct {
	Source  string  `json:"source"` // file, task or project
	Title   string  `json:"title"`
	Section string  `json:"section,omitempty"`
	Passage string  `json:"passage"`
	Link    string  `json:"link"`
	Score   float64 `json:"score"`
}

// SearchData is what both search tools return.
type SearchData struct {
	Passages []PassageData `json:"passages"`
	Note     string        `json:"note,omitempty"`
}

// SearchFiles is hub_search_files: passages about a topic.
func SearchFiles(s Searcher) *Definition {
	return Define(Spec{
		Name: SearchFilesTool, Area: "files",
		Description: "Search this space's files (documents, notes, PDFs), tasks and projects for passages about a topic or question, best first. Each passage has a link (hub://file/<id>#<passage>): cite the passages you use by their link. For an exact name, id, number or phrase use hub_find_phrase.",
	}, func(ctx context.Context, env Env, in SearchInput) (Result, error) {
		return search(ctx, s, env, retrieval.Query{Text: in.Query, Limit: in.Limit, Tool: SearchFilesTool, CallID: env.CallID}, "/query")
	})
}

// FindPhrase is hub_find_phrase: passages that contain a text as it is.
func FindPhrase(s Searcher) *Definition {
	return Define(Spec{
		Name: FindPhraseTool, Area: "files",
		Description: "Find the passages of this space's files, tasks and projects that contain an exact name, id, reference number, code or phrase (case and spacing ignored). Each passage has a link (hub://file/<id>#<passage>): cite the passages you use by their link. For a topic or question use hub_search_files.",
	}, func(ctx context.Context, env Env, in FindPhraseInput) (Result, error) {
		return search(ctx, s, env, retrieval.Query{Text: in.Phrase, Limit: in.Limit, Exact: true, Tool: FindPhraseTool, CallID: env.CallID},
			"/phrase")
	})
}

func search(ctx context.Context, s Searcher, env Env, q retrieval.Query, path string) (Result, error) {
	q.Text = strings.TrimSpace(q.Text)
	if len(retrieval.Terms(q.Text)) == 0 {
		msg := "give words to look for: letters or digits"
		return Result{}, &Error{Code: CodeInvalidPayload, Message: msg, Path: path, Issues: []Issue{{Path: path, Message: msg}}}
	}
	res, err := s.Search(ctx, env.Actor.PersonID, env.SpaceID, q)
	if err != nil {
		return Result{}, err
	}
	data := SearchData{Passages: make([]PassageData, 0, len(res.Hits))}
	if len(res.Hits) == 0 {
		data.Note = nothingFound(q)
		return Result{Summary: fmt.Sprintf("Searched the files for “%s”: nothing found.", shorten(q.Text, 80)), Data: data}, nil
	}
	// The passages share the result limit, with room for the rest of the JSON.
	each := min(maxPassageChars, (MaxResultChars-500)/len(res.Hits)-150)
	terms := res.Terms
	if q.Exact {
		terms = []string{strings.ToLower(q.Text)}
	}
	var refs []workspace.Ref
	seen := map[string]bool{}
	for _, h := range res.Hits {
		body := h.Body
		if body == "" {
			body = h.Title
		}
		data.Passages = append(data.Passages, PassageData{Source: h.Source, Title: h.Title, Section: h.Section,
			Passage: retrieval.Excerpt(body, terms, each), Link: h.Link(), Score: math.Round(h.Score*1000) / 1000})
		if !seen[h.SourceID] {
			seen[h.SourceID] = true
			refs = append(refs, workspace.Ref{Kind: h.Source, ID: h.SourceID, Label: h.Title})
		}
	}
	return Result{Summary: fmt.Sprintf("Searched the files for “%s”: %d passages.", shorten(q.Text, 80), len(res.Hits)),
		Data: data, Refs: refs}, nil
}

// nothingFound tells the model what to try next: the other query shape,
// other words, or asking.
func nothingFound(q retrieval.Query) string {
	if q.Exact {
		return "No passage contains this text exactly. Try a shorter part of it, another spelling, or hub_search_files with the words of the topic."
	}
	return "Nothing in this space's files, tasks or projects matches these words. Try other words a document would use (synonyms, the formal term), hub_find_phrase for an exact name or number, or ask the person where the information is."
}
