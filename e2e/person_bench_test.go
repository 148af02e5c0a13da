//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/assistant"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/llm"
)

// BenchmarkPromptTokens measures what the person's blocks (persona,
// skills, connected apps) add to a typical turn's prompt: the estimated
// tokens (assistant.EstimateTokens) of the system message and of the whole
// request the model receives (messages and tool schemas), for the same
// message in a space with none of them and with a persona, three skills
// and three connected apps (one failing). It also checks that the
// instructions are the same bytes for two messages of a conversation, so
// a provider's prompt cache reuses them. docs/benchmarks.md has the
// numbers.
func BenchmarkPromptTokens(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(`{"rules": [{"reply": {"text": "ok"}}]}`)})
	const message = "what is on my plate this week?"
	measure := func(b *testing.B) (instructions, request int, cacheable bool) {
		conv := s.Conversation(b)
		var systems []string
		for range 2 {
			s.Model.Reset()
			st := s.Ask(b, conv, message)
			s.Stream(b, st.StreamURL, 0, 0)
			req := s.Model.Requests()[0]
			systems = append(systems, req.Messages[0].Content)
			if len(systems) == 1 {
				instructions = assistant.EstimateTokens(req.Messages[0].Content)
				request = requestTokens(b, req)
			}
		}
		return instructions, request, systems[0] == systems[1]
	}
	var before, after [2]int
	var cachedBefore, cachedAfter bool
	for b.Loop() {
		before[0], before[1], cachedBefore = measure(b)
	}
	setUpPerson(b, s)
	after[0], after[1], cachedAfter = measure(b)
	require.True(b, cachedBefore && cachedAfter, "the instructions are byte-identical between two messages")
	b.ReportMetric(float64(before[0]), "instructions-before")
	b.ReportMetric(float64(after[0]), "instructions-after")
	b.ReportMetric(float64(before[1]), "request-before")
	b.ReportMetric(float64(after[1]), "request-after")
}

// requestTokens estimates a recorded request as Fit counts one: each
// message and each offered tool schema with its framing.
func requestTokens(b *testing.B, req fakemodel.RecordedRequest) int {
	var body struct {
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(b, json.Unmarshal([]byte(req.Body), &body))
	n := assistant.RequestOverheadTokens
	for _, m := range req.Messages {
		n += assistant.MessageOverheadTokens + assistant.EstimateTokens(m.Content)
	}
	for _, t := range body.Tools {
		n += assistant.ToolOverheadTokens + assistant.EstimateTokens(assistant.ToolText(llm.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}))
	}
	return n
}

// setUpPerson gives the owner what a typical person has: a persona, three
// enabled skills and three connected apps, one of them failing.
func setUpPerson(b *testing.B, s *hubtest.Stack) {
	r := s.Do(b, s.Token, "PATCH", "/api/me/profile", map[string]any{"persona": "I work as a lawyer for small companies."})
	require.Equal(b, http.StatusOK, r.Status, "%s", r.Body)
	for _, k := range [][2]string{
		{"Client email", "How I answer a client: short, formal, no legalese, and a next step with a date."},
		{"Weekly report", "The Friday status report for the partners: done, next, blocked."},
		{"Contract review", "What I check first in a contract and how I list the findings."},
	} {
		r = s.Do(b, s.Token, "POST", "/api/me/skills", map[string]any{"name": k[0], "description": k[1], "instructions": "Step by step, as I do it."})
		require.Equal(b, http.StatusCreated, r.Status, "%s", r.Body)
	}
	var failing string
	for _, name := range []string{"Alerts", "Partners channel", "Team updates"} {
		r = s.Do(b, s.Token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"name": name, "url": "https://hooks.example.com/" + strings.ReplaceAll(name, " ", "-")})
		require.Equal(b, http.StatusCreated, r.Status, "%s", r.Body)
		if failing == "" {
			failing = r.JSON(b)["id"].(string)
		}
	}
	require.NoError(b, s.Workspace.RecordConnectionPost(context.Background(), s.SpaceID, failing, "it answered 410 Gone"))
}
