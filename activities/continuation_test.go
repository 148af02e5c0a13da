package activities

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/chat"
)

func TestJoinerLeavesOutWhatTheContinuationRepeats(t *testing.T) {
	cases := []struct {
		name, partial string
		deltas        []string
		want          string
	}{
		{"goes on at once", "The plan has three", []string{" parts:", " first"}, " parts: first"},
		{"repeats the last words", "The plan has three", []string{"has th", "ree parts", "."}, " parts."},
		{"starts over", "The plan has", []string{"The plan", " has three parts."}, " three parts."},
		{"a short repeat is its own words", "It was very", []string{" very", " good."}, " very good."},
		{"ends while held", "The plan has three", []string{"has three"}, ""},
		{"mid-word", "The contin", []string{"uation."}, "uation."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := &joiner{partial: tc.partial}
			var shown strings.Builder
			for _, d := range tc.deltas {
				shown.WriteString(j.Add(d))
			}
			shown.WriteString(j.Flush())
			require.Equal(t, tc.want, shown.String())
			require.Equal(t, tc.want, j.Out())
		})
	}
}

func TestOnlyAnInterruptedTextStepIsContinued(t *testing.T) {
	require.Equal(t, "Some text", continuable(&chat.Step{FinishReason: chat.FinishInterrupted, Text: "Some text"}))
	require.Empty(t, continuable(nil), "nothing was saved")
	require.Empty(t, continuable(&chat.Step{FinishReason: chat.FinishInterrupted, Text: "  "}), "nothing was streamed")
	require.Empty(t, continuable(&chat.Step{FinishReason: chat.FinishInterruptedInToolCalls, Text: "Let me look"}), "tool calls had begun")
	require.Empty(t, continuable(&chat.Step{FinishReason: "stop", Text: "Done."}), "a finished step")
}
