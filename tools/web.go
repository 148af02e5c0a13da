package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"hub/web"
)

// The web tools' names.
const (
	WebSearchTool   = "hub_web_search"
	ReadWebPageTool = "hub_read_web_page"
)

// WebSearchesPerTurn is how many searches one turn may make (attempts):
// a small model with poor results otherwise searches until its steps run
// out.
const WebSearchesPerTurn = 3

// AreaWeb is the area of the web tools: reads of public pages, no space's
// records.
const AreaWeb = "web"

// PageReader reads one public page; web.Reader is the one Hub uses.
type PageReader interface {
	Read(ctx context.Context, url, focus string) (web.Page, error)
}

// Web returns the web tools for a search provider and a page reader, or
// none when no provider is configured.
func Web(s web.Searcher, r PageReader) []*Definition {
	if s == nil || r == nil {
		return nil
	}
	return []*Definition{WebSearch(s), ReadWebPage(r)}
}

// WebSearchInput is hub_web_search's input.
type WebSearchInput struct {
	Query string `json:"query" jsonschema:"minLength=1,maxLength=400" jsonschema_description:"What to look for, as you would type it into a search engine."`
	Count int    `json:"count,omitempty" jsonschema:"minimum=1,maximum=10" jsonschema_description:"How many results (default 5)."`
}

// WebResultsData is hub_web_search's data.
type WebResultsData struct {
	Query   string       `json:"query"`
	Results []web.Result `json:"results"`
}

// WebSearch makes hub_web_search over s.
func WebSearch(s web.Searcher) *Definition {
	return Define(Spec{
		Name: WebSearchTool, Area: AreaWeb, NoSpace: true,
		Description: fmt.Sprintf("Search the public web. Returns titles, links and snippets; snippets are not sources, so read the page that answers with hub_read_web_page. At most %d searches a turn.", WebSearchesPerTurn),
	}, func(ctx context.Context, env Env, in WebSearchInput) (Result, error) {
		if n := env.EarlierCalls[WebSearchTool]; n >= WebSearchesPerTurn {
			return Result{}, Errorf(CodeRefused, "This turn has already made %d web searches, the most a turn may make. Read one of the pages found with hub_read_web_page (or an official source by its address), or answer with what you have and say what you could not find.", n)
		}
		q := strings.TrimSpace(in.Query)
		if q == "" {
			return Result{}, &Error{Code: CodeInvalidPayload, Message: "the query is empty", Path: "/query", Issues: []Issue{{Path: "/query", Message: "the query is empty"}}}
		}
		results, err := s.Search(ctx, q, cmp.Or(in.Count, 5))
		if err != nil {
			var se *web.SearchError
			if errors.As(err, &se) {
				return Result{}, Errorf(CodeFailed, "%s", se.Error())
			}
			return Result{}, Errorf(CodeFailed, "the web search failed")
		}
		if results == nil {
			results = []web.Result{}
		}
		summary := fmt.Sprintf("Searched the web for “%s”: no results.", shorten(q, 80))
		if len(results) > 0 {
			summary = fmt.Sprintf("Searched the web for “%s”: %d %s.", shorten(q, 80), len(results), Plural(len(results), "result", "results"))
		}
		return Result{Summary: summary, Data: WebResultsData{Query: q, Results: results}}, nil
	})
}

// ReadWebPageInput is hub_read_web_page's input.
type ReadWebPageInput struct {
	URL   string `json:"url" jsonschema:"minLength=1,maxLength=2000" jsonschema_description:"The page's or PDF's full http(s) address."`
	Focus string `json:"focus,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Words of the part you need; a long page's excerpt starts at their first mention."`
}

// WebPageData is hub_read_web_page's data.
type WebPageData struct {
	URL     string `json:"url"`
	Title   string `json:"title,omitempty"`
	Kind    string `json:"kind"`
	Content string `json:"content"`
	// Note says what was cut; empty when content is the whole text.
	Note string `json:"note,omitempty"`
}

// ReadWebPage makes hub_read_web_page over r.
func ReadWebPage(r PageReader) *Definition {
	return Define(Spec{
		Name: ReadWebPageTool, Area: AreaWeb, NoSpace: true,
		Description: english.Sprintf("Read a public web page or PDF by its address: its main content as Markdown, at most %d characters, with a note naming what was cut. It runs no page script and signs in nowhere. Answer with the links you read.", web.MaxPageChars),
	}, func(ctx context.Context, env Env, in ReadWebPageInput) (Result, error) {
		page, err := r.Read(ctx, in.URL, in.Focus)
		if err != nil {
			var pe *web.PageError
			if errors.As(err, &pe) {
				code := CodeFailed
				if pe.Kind == web.KindRefused {
					code = CodeRefused
				}
				msg := pe.Error()
				return Result{}, &Error{Code: code, Message: strings.ToUpper(msg[:1]) + msg[1:] + ".", Path: "/url"}
			}
			return Result{}, Errorf(CodeFailed, "the page could not be read")
		}
		name := cmp.Or(page.Title, page.URL)
		summary := fmt.Sprintf("Read “%s”.", shorten(name, 100))
		if page.Note != "" {
			summary = fmt.Sprintf("Read part of “%s”.", shorten(name, 100))
		}
		data := WebPageData{URL: page.URL, Title: page.Title, Kind: page.Kind, Content: page.Content, Note: page.Note}
		res := Result{Summary: summary, Data: data}
		// Escaped as JSON, text can pass the result's limit; it is cut again
		// at a paragraph rather than have its middle cut out.
		for limit := web.MaxPageChars * 9 / 10; utf8.RuneCountInString(ModelText(res, MaxResultChars+1)) > MaxResultChars && limit > 500; limit = limit * 9 / 10 {
			ex := web.Cut(page.Content, "", limit)
			data.Content, data.Note = ex.Text, strings.TrimSpace(page.Note+" "+ex.Note)
			res.Data = data
		}
		return res, nil
	})
}
