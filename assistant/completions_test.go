package assistant_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"hub/assistant"
)

func TestParseSummaryReadsTheJSONAndBoundsIt(t *testing.T) {
	t.Parallel()
	summary, keywords, err := assistant.ParseSummary("Here it is:\n```json\n{\"summary\": \" The  launch\\nplan. \", \"keywords\": [\"Launch\", \"launch\", \" \", \"Friday\\u001b\", \"Berlin office\"]}\n```")
	require.NoError(t, err)
	require.Equal(t, "The launch plan.", summary, "white space folded")
	require.Equal(t, []string{"Launch", "Berlin office"}, keywords, "repeats in any case, empty and control characters dropped")

	long := strings.Repeat("word ", 400)
	many := `"` + strings.Repeat("k", 60) + `"`
	for i := range 12 {
		many += `, "k` + strings.Repeat("x", i) + `"`
	}
	summary, keywords, err = assistant.ParseSummary(`{"summary": "` + long + `", "keywords": [` + many + `]}`)
	require.NoError(t, err)
	require.Equal(t, assistant.MaxSummaryChars, utf8.RuneCountInString(summary))
	require.True(t, strings.HasSuffix(summary, "…"))
	require.Len(t, keywords, assistant.MaxKeywords)
	require.Equal(t, assistant.MaxKeywordChars, utf8.RuneCountInString(keywords[0]))

	summary, _, err = assistant.ParseSummary(`{"summary": "a\u0000b"}`)
	require.NoError(t, err)
	require.Equal(t, "ab", summary, "no NUL reaches a text column")

	for _, bad := range []string{"", "A summary without JSON.", `{"summary": ""}`, `{"summary": 5}`, `{"keywords": ["x"]}`, "{not json}"} {
		_, _, err := assistant.ParseSummary(bad)
		require.ErrorIs(t, err, assistant.ErrNoSummary, "%q", bad)
	}
}

func TestSummarizeRequestSaysWhereTheTextWasCut(t *testing.T) {
	t.Parallel()
	msgs := assistant.SummarizeRequest("plan.pdf", strings.Repeat("é", assistant.MaxSummarizeChars+10))
	require.Len(t, msgs, 2)
	require.Equal(t, assistant.SummarizeInstructions, msgs[0].Content)
	require.True(t, strings.HasPrefix(msgs[1].Content, `<file name="plan.pdf">`))
	require.Contains(t, msgs[1].Content, "Only the first 20000 characters")
	require.Equal(t, assistant.MaxSummarizeChars, strings.Count(msgs[1].Content, "é"))
	short := assistant.SummarizeRequest("a.md", "Ship on Friday.")
	require.NotContains(t, short[1].Content, "Only the first")
}
