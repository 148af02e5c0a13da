package tools_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/web"
	"hub/workspace"
)

type countingSearcher struct {
	calls atomic.Int64
	err   error
}

func (s *countingSearcher) Search(_ context.Context, q string, n int) ([]web.Result, error) {
	s.calls.Add(1)
	if s.err != nil {
		return nil, s.err
	}
	return []web.Result{{Title: "About " + q, URL: "https://example.com/" + q}}, nil
}
func (s *countingSearcher) Name() string { return "counting" }

type pageFunc func(ctx context.Context, url, focus string) (web.Page, error)

func (f pageFunc) Read(ctx context.Context, url, focus string) (web.Page, error) {
	return f(ctx, url, focus)
}

var webOffer = []string{tools.WebSearchTool, tools.ReadWebPageTool}

// The turn's fourth search is refused before the provider is asked; the
// count is the turn's earlier calls of the tool (tools.Env.EarlierCalls).
func TestTheFourthSearchOfATurnIsRefused(t *testing.T) {
	s := &countingSearcher{}
	reg := tools.NewRegistry(tools.Web(s, pageFunc(nil))...)
	search := func(earlier int) (tools.Result, *tools.Error) {
		env := tools.Env{Role: workspace.RoleViewer, EarlierCalls: map[string]int{tools.WebSearchTool: earlier, tools.ReadWebPageTool: 5}}
		return reg.Dispatch(t.Context(), env, tools.Call{Name: tools.WebSearchTool, Arguments: `{"query": "tides"}`, Offered: webOffer})
	}
	for earlier := range tools.WebSearchesPerTurn {
		res, terr := search(earlier)
		require.Nil(t, terr)
		require.Equal(t, "Searched the web for “tides”: 1 result.", res.Summary)
	}
	_, terr := search(tools.WebSearchesPerTurn)
	require.NotNil(t, terr)
	require.Equal(t, tools.CodeRefused, terr.Code)
	require.Contains(t, terr.Message, "Read one of the pages found with hub_read_web_page")
	require.EqualValues(t, tools.WebSearchesPerTurn, s.calls.Load(), "the provider was not asked the fourth time")

	failing := tools.NewRegistry(tools.Web(&countingSearcher{err: &web.SearchError{Provider: "SearXNG", Reason: "it answered HTTP 502"}}, pageFunc(nil))...)
	_, terr = failing.Dispatch(t.Context(), tools.Env{}, tools.Call{Name: tools.WebSearchTool, Arguments: `{"query": "x"}`, Offered: webOffer})
	require.Equal(t, tools.CodeFailed, terr.Code)
	require.Equal(t, "SearXNG search failed: it answered HTTP 502", terr.Message)
}

// A read's errors are readable tool errors at /url; a blocked address is
// refused. A page heavy in what JSON escapes is cut again so the result
// the model reads is never cut in its middle.
func TestReadWebPageErrorsAndTheResultLimit(t *testing.T) {
	var page web.Page
	var perr error
	reg := tools.NewRegistry(tools.Web(&countingSearcher{}, pageFunc(func(context.Context, string, string) (web.Page, error) { return page, perr }))...)
	read := func() (tools.Result, *tools.Error) {
		return reg.Dispatch(t.Context(), tools.Env{}, tools.Call{Name: tools.ReadWebPageTool, Arguments: `{"url": "https://example.com/a"}`, Offered: webOffer})
	}
	perr = &web.PageError{Kind: web.KindRefused, Host: "example.com", Reason: "10.0.0.1 is a private address, which Hub does not connect to; nothing was fetched from it"}
	_, terr := read()
	require.Equal(t, tools.CodeRefused, terr.Code)
	require.Equal(t, "/url", terr.Path)
	require.Equal(t, "The page at example.com was not read: 10.0.0.1 is a private address, which Hub does not connect to; nothing was fetched from it.", terr.Message)
	perr = &web.PageError{Kind: web.KindNeedsScript, Host: "app.example.com", Reason: "it builds its content with JavaScript, and Hub runs no page script"}
	_, terr = read()
	require.Equal(t, tools.CodeFailed, terr.Code)

	perr = nil
	para := strings.Repeat(`"q" `, 200) + "\n\n"
	page = web.Page{URL: "https://example.com/a", Title: "Quotes", Kind: web.KindHTML, Content: strings.Repeat(para, 6)[:web.MaxPageChars]}
	res, terr := read()
	require.Nil(t, terr)
	text := tools.ModelText(res, tools.MaxResultChars)
	require.LessOrEqual(t, utf8.RuneCountInString(text), tools.MaxResultChars)
	require.NotContains(t, text, "characters cut", "not cut by the generic limit")
	data := res.Data.(tools.WebPageData)
	require.Contains(t, data.Note, "were left out")
}
