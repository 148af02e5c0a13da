package assistant_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/assistant"
)

func ids(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s_%d", prefix, i)
	}
	return out
}

func TestBoundPageContextKeepsWhatIsWithinTheLimits(t *testing.T) {
	t.Parallel()
	for _, page := range []string{
		`{}`,
		`{"path":"/board", "view":"board"}`,
		// Exactly at every limit, in the client's own key order and spacing.
		`{"selectedText": "` + strings.Repeat("é", assistant.MaxSelectedTextChars) + `", "path": "/b",` +
			` "surface": {"kind": "board", "selectedIds": ` + mustJSONText(t, ids("task", 100)) + `, "visibleIds": ` + mustJSONText(t, ids("task", 100)) + `}}`,
		// Fields of other types are data like the rest.
		`{"selectedText": 42, "selectedIds": "task_1", "surface": "board"}`,
	} {
		out, err := assistant.BoundPageContext([]byte(page))
		require.NoError(t, err)
		require.Equal(t, page, string(out), "byte for byte")
	}
}

func TestBoundPageContextCutsWhatIsOver(t *testing.T) {
	t.Parallel()
	// 2,001 characters, each two bytes: characters are counted, not bytes.
	long := "Quarterly numbers " + strings.Repeat("é", assistant.MaxSelectedTextChars+1-len("Quarterly numbers "))
	page := map[string]any{
		"path":         "/board",
		"selectedText": long,
		"selected":     ids("task", 101),
		"surface": map[string]any{
			"kind":         "board",
			"filters":      map[string]any{"status": "todo"},
			"selectedIds":  ids("task", 150),
			"visibleIds":   ids("proj", 250),
			"selectedText": strings.Repeat("x", 5000),
		},
		assistant.PageTruncatedKey: "the client's own, replaced",
	}
	out, err := assistant.BoundPageContext([]byte(mustJSONText(t, page)))
	require.NoError(t, err)

	var got struct {
		Path         string   `json:"path"`
		SelectedText string   `json:"selectedText"`
		Selected     []string `json:"selected"`
		Surface      struct {
			Kind         string            `json:"kind"`
			Filters      map[string]string `json:"filters"`
			SelectedIDs  []string          `json:"selectedIds"`
			VisibleIDs   []string          `json:"visibleIds"`
			SelectedText string            `json:"selectedText"`
		} `json:"surface"`
		Truncated []string `json:"truncatedByHub"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	require.Equal(t, "/board", got.Path, "the rest stays")
	require.Equal(t, "board", got.Surface.Kind)
	require.Equal(t, map[string]string{"status": "todo"}, got.Surface.Filters)

	require.Equal(t, assistant.MaxSelectedTextChars+1, utf8.RuneCountInString(got.SelectedText))
	require.Equal(t, string([]rune(long)[:assistant.MaxSelectedTextChars])+"…", got.SelectedText, "its start, and a mark where it was cut")
	require.Equal(t, strings.Repeat("x", 2000)+"…", got.Surface.SelectedText)
	require.Equal(t, ids("task", 100), got.Selected, "the first 100, in order")
	require.Equal(t, ids("task", 100), got.Surface.SelectedIDs)
	require.Equal(t, ids("proj", 100), got.Surface.VisibleIDs)
	require.Equal(t, []string{
		"/selectedText: cut to its first 2000 of 2001 characters",
		"/selected: cut to its first 100 of 101 ids",
		"/surface/selectedText: cut to its first 2000 of 5000 characters",
		"/surface/selectedIds: cut to its first 100 of 150 ids",
		"/surface/visibleIds: cut to its first 100 of 250 ids",
	}, got.Truncated, "one note per cut, by its JSON pointer")

	// What the model reads: the cut context, as data in the context block.
	block := assistant.TurnContext{Now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), Page: string(out)}.Render()
	require.Contains(t, block, `"truncatedByHub":["/selectedText: cut to its first 2000 of 2001 characters",`)
	require.NotContains(t, block, "task_100")
	require.Less(t, len(block), 20_000)
}

func TestBoundPageContextRefusesWhatIsNoObject(t *testing.T) {
	t.Parallel()
	for _, page := range []string{`"board"`, `["task_1"]`, `null`, `{`, ``} {
		_, err := assistant.BoundPageContext([]byte(page))
		require.Error(t, err, page)
	}
}

func mustJSONText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
