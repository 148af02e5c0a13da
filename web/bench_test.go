package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/tools"
	"hub/web"
	"hub/workspace"
)

// pageOfSize is an article page of about n bytes.
func pageOfSize(n int) string {
	sections := 1
	for len(articlePage("Big page", sections, 10)) < n {
		sections *= 2
	}
	for len(articlePage("Big page", sections, 10)) > n && sections > 1 {
		sections = sections * 9 / 10
	}
	return articlePage("Big page", sections, 10)
}

// BenchmarkReadPageToToolResult is hub_read_web_page end to end for a
// local 1 MB page: the fetch through the guard, extraction, the cut and
// the tool result the model reads.
func BenchmarkReadPageToToolResult(b *testing.B) {
	body := pageOfSize(1 << 20)
	s := newSite(b, htmlPage(body))
	r := newReader(b, web.ReaderOptions{Allow: []string{s.hostPort()}})
	reg := tools.NewRegistry(tools.ReadWebPage(r))
	call := tools.Call{Name: tools.ReadWebPageTool, Arguments: `{"url": "` + s.URL + `/big"}`, Offered: []string{tools.ReadWebPageTool}}
	env := tools.Env{Role: workspace.RoleOwner}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		res, terr := reg.Dispatch(context.Background(), env, call)
		if terr != nil {
			b.Fatal(terr)
		}
		if text := tools.ModelText(res, tools.MaxResultChars); len([]rune(text)) > tools.MaxResultChars {
			b.Fatal("the result is over the limit")
		}
	}
}

// BenchmarkExtract is the extraction alone (readability, Markdown, the
// cut) for pages of 1 and 5 MB.
func BenchmarkExtract(b *testing.B) {
	for _, n := range []struct {
		name string
		size int
	}{{"1MB", 1 << 20}, {"5MB", 5 << 20}} {
		body := pageOfSize(n.size)
		u, _ := url.Parse("https://example.com/big")
		b.Run(n.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				doc, err := web.ExtractHTML(strings.NewReader(body), u, 3*web.MaxPageChars)
				require.NoError(b, err)
				_ = web.Cut(doc.Text, "", web.MaxPageChars)
			}
		})
	}
}
