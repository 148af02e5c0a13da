package assistant

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/llm"
	"hub/tools"
)

// Passages give way, oldest search first, lowest ranked first, with a note
// naming the cut; a request that fits is left as it is.
func TestFitPassagesCutsOldestSearchFirst(t *testing.T) {
	result := func(n int) string {
		var data tools.SearchData
		for i := range n {
			data.Passages = append(data.Passages, tools.PassageData{Source: "file", Title: "contract.md",
				Passage: strings.Repeat(fmt.Sprintf("passage %d words ", i), 40), Link: fmt.Sprintf("hub://file/f#%012d", i)})
		}
		b, err := json.Marshal(map[string]any{"summary": "found", "data": data})
		require.NoError(t, err)
		return string(b)
	}
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "instructions"},
		{Role: llm.RoleUser, Content: "what does the contract say?"},
		{Role: llm.RoleTool, Content: result(5)},
		{Role: llm.RoleTool, Content: result(5)},
	}}
	roomy := req
	roomy.Messages = slices.Clone(req.Messages)
	require.Zero(t, FitPassages(NewBudget("x", 100_000), &roomy))
	require.Equal(t, req.Messages, roomy.Messages)

	_, total := estimates(req.Messages, MessageTokens)
	n := FitPassages(Budget{Model: "x", Window: total - total/5 + 1, Headroom: 1}, &req)
	require.Positive(t, n)
	var first, second struct {
		Data tools.SearchData `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(req.Messages[2].Content), &first))
	require.NoError(t, json.Unmarshal([]byte(req.Messages[3].Content), &second))
	require.Len(t, first.Data.Passages, 5-n, "the oldest search gives way first")
	require.Equal(t, "hub://file/f#000000000000", first.Data.Passages[0].Link, "the best ranked stay")
	require.Contains(t, first.Data.Note, fmt.Sprintf("%d of the passages found were left out", n))
	require.Len(t, second.Data.Passages, 5)
}
