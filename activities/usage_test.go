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
	u := activities.EstimateUsage(req, 0)
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
	require.Equal(t, 500, activities.EstimateUsage(req, 0).OutputTokens, "a request's own cap")
}

// Attached files are reserved for: a text file as its text, a picture and
// a PDF at their rates; never more than the model's window.
func TestEstimateUsageCountsAttachedFiles(t *testing.T) {
	req := fullRequest()
	bare := activities.EstimateUsage(req, 0).InputTokens
	last := &req.Messages[len(req.Messages)-1]
	text := strings.Repeat("Quarterly numbers, region by region. ", 500)
	last.Parts = []llm.Part{
		{Kind: llm.PartText, Name: "notes.txt", ContentType: "text/plain", Data: []byte(text)},
		{Kind: llm.PartImage, Name: "board.png", ContentType: "image/png", Data: make([]byte, 1<<10)},
		{Kind: llm.PartFile, Name: "plan.pdf", ContentType: "application/pdf", Data: make([]byte, 300_000)},
	}
	got := activities.EstimateUsage(req, 0).InputTokens
	require.GreaterOrEqual(t, got-bare, assistant.EstimateTokens(text)+activities.ImagePartTokens+300_000/activities.FileBytesPerToken)
	require.Equal(t, 64_000, activities.EstimateUsage(req, 64_000).InputTokens, "no more than the window")
}

// BenchmarkEstimateUsage is the CPU part of the pre-spend check: the
// estimate of a large request and its price (the database part is
// usage.BenchmarkPreSpendCheck).
func BenchmarkEstimateUsage(b *testing.B) {
	req := fullRequest()
	price := llm.Price{Input: 2.5, CachedInput: 1.25, Output: 10}
	b.ReportMetric(float64(activities.EstimateUsage(req, 0).InputTokens), "prompt-tokens")
	for b.Loop() {
		_ = price.Cost(activities.EstimateUsage(req, 0))
	}
}
