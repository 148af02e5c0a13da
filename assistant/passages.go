package assistant

import (
	"encoding/json"
	"fmt"

	"hub/llm"
	"hub/tools"
)

// FitPassages makes a request's search results give way when the request
// outgrows b: after the instructions and the history were fitted (Fit, at
// the turn's start), retrieved passages are the elastic part of what a
// turn adds. It drops passages, lowest ranked first, from the oldest
// search result on, and says in each cut result how many were left out. It
// returns how many passages it dropped; a request that still does not fit
// goes as it is (the provider then refuses it, as before passages).
func FitPassages(b Budget, req *llm.Request) int {
	_, total := estimates(req.Messages, MessageTokens)
	_, schemas := estimates(req.Tools, ToolTokens)
	total += RequestOverheadTokens + schemas
	limit := b.Limit()
	dropped := 0
	for i := range req.Messages {
		m := &req.Messages[i]
		if total <= limit {
			break
		}
		if m.Role != llm.RoleTool {
			continue
		}
		var res struct {
			Summary string           `json:"summary"`
			Data    tools.SearchData `json:"data"`
		}
		if json.Unmarshal([]byte(m.Content), &res) != nil || len(res.Data.Passages) == 0 {
			continue
		}
		before := MessageTokens(*m)
		left := 0
		for len(res.Data.Passages) > 0 && total > limit {
			res.Data.Passages = res.Data.Passages[:len(res.Data.Passages)-1]
			left++
			res.Data.Note = fmt.Sprintf("%d of the passages found were left out to fit the model's context window; search again with narrower words for them.", left)
			text, _ := json.Marshal(res) // plain strings and numbers: it cannot fail
			m.Content = string(text)
			after := MessageTokens(*m)
			total += after - before
			before = after
		}
		dropped += left
	}
	return dropped
}
