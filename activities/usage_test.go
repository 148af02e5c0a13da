package activities_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/activities"
	"hub/assistant"
	"hub/llm"
	"hub/tools"
	"hub/workspace"
)

// fullRequest is a large step's request: long instructions, twelve
// history messages and every tool an owner is granted (more than the 24 an
// offer sends).
func fullRequest() llm.Request {
	reg := tools.Hub(nil)
	var names []string
	for _, d := range reg.Granted(workspace.RoleOwner) {
		names = append(names, d.Spec.Name)
	}
	req := llm.Request{Tools: assistant.ToolSchemas(reg, names)}
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Content: strings.Repeat("Use the tools to answer; name records by title. ", 250)})
	for i := range 12 {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		req.Messages = append(req.Messages, llm.Message{Role: role, Content: strings.Repeat("Move the launch review to Thursday and tell Sam. ", 10)})
	}
	return req
}

func TestEstimateUsageReservesThePromptAndTheOutputCap(t *testing.T) {
	req := fullRequest()
	u := activities.EstimateUsage(req)
	prompt := assistant.RequestOverheadTokens
	for _, m := range req.Messages {
		prompt += assistant.MessageTokens(m)
	}
	for _, tl := range req.Tools {
		prompt += assistant.ToolTokens(tl)
	}
	require.Equal(t, prompt, u.InputTokens)
	require.Zero(t, u.CachedInputTokens, "nothing is assumed cached")
	require.Equal(t, activities.ReserveOutputTokens, u.OutputTokens)
	req.MaxTokens = 500
	require.Equal(t, 500, activities.EstimateUsage(req).OutputTokens, "a request's own cap")
}

// BenchmarkEstimateUsage is the CPU part of the pre-spend check: the
// estimate of a large request and its price (the database part is
// usage.BenchmarkPreSpendCheck).
func BenchmarkEstimateUsage(b *testing.B) {
	req := fullRequest()
	price := llm.Price{Input: 2.5, CachedInput: 1.25, Output: 10}
	b.ReportMetric(float64(activities.EstimateUsage(req).InputTokens), "prompt-tokens")
	for b.Loop() {
		_ = price.Cost(activities.EstimateUsage(req))
	}
}
