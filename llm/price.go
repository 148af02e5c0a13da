package llm

import "math"

// Price is what one model costs, in US dollars per million tokens, as the
// operator's model catalog gives it. A zero Price is a model that costs
// nothing (a local one).
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cachedInput"`
	Output      float64 `json:"output"`
}

// Cost is what a call with this usage costs, in micro-dollars, rounded up:
// whole micro-dollars keep sums exact where float dollars would drift. A
// CachedInputTokens above InputTokens is read as all cached.
func (p Price) Cost(u Usage) int64 {
	cached := min(max(u.CachedInputTokens, 0), max(u.InputTokens, 0))
	fresh := max(u.InputTokens, 0) - cached
	// Dollars per million tokens times tokens is micro-dollars.
	micros := p.Input*float64(fresh) + p.CachedInput*float64(cached) + p.Output*float64(max(u.OutputTokens, 0))
	return int64(math.Ceil(micros - 1e-9))
}
