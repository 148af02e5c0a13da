package llm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"hub/llm"
)

func TestPriceCostIsInMicroDollarsRoundedUp(t *testing.T) {
	t.Parallel()
	p := llm.Price{Input: 2, CachedInput: 0.5, Output: 8}
	// 1,000 fresh input × $2/M = 2,000 µ$; 500 cached × $0.5/M = 250 µ$; 100 output × $8/M = 800 µ$.
	require.EqualValues(t, 3050, p.Cost(llm.Usage{InputTokens: 1500, CachedInputTokens: 500, OutputTokens: 100}))
	require.EqualValues(t, 1, llm.Price{Input: 0.15}.Cost(llm.Usage{InputTokens: 1}), "a part of a micro-dollar is billed as one")
	require.EqualValues(t, 0, llm.Price{}.Cost(llm.Usage{InputTokens: 1e6, OutputTokens: 1e6}), "a free model")
	require.EqualValues(t, 500, llm.Price{Input: 2, CachedInput: 0.5}.Cost(llm.Usage{InputTokens: 1000, CachedInputTokens: 5000}),
		"more cached than input is all cached")
	require.EqualValues(t, 0, p.Cost(llm.Usage{InputTokens: -5, OutputTokens: -1}), "negative counts cost nothing")
}
