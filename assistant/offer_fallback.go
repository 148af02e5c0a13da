package assistant

import (
	"sort"
	"strings"

	"hub/tools"
)

// localMatch is the backstop the offer falls back to when ranking fails or
// finds nothing, and what hub_find_tools searches with. It is deliberately
// crude, with no cache or state, so it cannot fail the way the ranker did;
// a nil definition or an empty name is skipped. Each request word of three
// letters or more that is not a stop word scores 2 if the tool's name
// contains it and 1 if only its description does. Tools scoring something
// come back best first (ties in the given order), at most limit.
func localMatch(query string, defs []*tools.Definition, limit int) []string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if len(w) >= 3 && !stopWords[w] {
			words = append(words, w)
		}
	}
	if len(words) == 0 || limit <= 0 {
		return nil
	}
	type hit struct {
		name  string
		score int
	}
	var hits []hit
	for _, d := range defs {
		if d == nil || d.Name == "" {
			continue
		}
		name, desc := strings.ToLower(d.Name), strings.ToLower(d.Description)
		score := 0
		for _, w := range words {
			switch {
			case strings.Contains(name, w):
				score += 2
			case strings.Contains(desc, w):
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{d.Name, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var out []string
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		out = append(out, h.name)
	}
	return out
}
