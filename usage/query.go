package usage

import (
	"context"
	"fmt"
	"time"
)

// Groupings of a usage query.
const (
	ByPerson = "person"
	BySpace  = "space"
	ByModel  = "model"
	ByDay    = "day"
)

// groupColumns are the columns each grouping sums by.
var groupColumns = map[string]string{ByPerson: "person_id", BySpace: "space_id", ByModel: "model", ByDay: "day"}

// ValidGroupBy tells whether g is a grouping Query takes ("" is none).
func ValidGroupBy(g string) bool { _, ok := groupColumns[g]; return ok || g == "" }

// Filter says whose usage a query sums: everyone's in Spaces (the spaces
// the caller owns) and the caller's own (Person), in PersonSpace only when
// set; settled calls made in [From, To).
type Filter struct {
	Spaces      []string
	Person      string
	PersonSpace string
	From, To    time.Time
	GroupBy     string
}

// Totals are summed calls.
type Totals struct {
	Key               string `json:"key,omitempty" gorm:"column:group_key"`
	Calls             int64  `json:"calls"`
	InputTokens       int64  `json:"inputTokens"`
	CachedInputTokens int64  `json:"cachedInputTokens"`
	OutputTokens      int64  `json:"outputTokens"`
	CostMicros        int64  `json:"costMicros"`
}

// Report is a query's answer: the total and, when grouped, one Totals per
// key in key order.
type Report struct {
	Total  Totals
	Groups []Totals
}

// Query sums the settled calls the filter selects.
func (s *Store) Query(ctx context.Context, f Filter) (Report, error) {
	col, ok := groupColumns[f.GroupBy]
	if !ok && f.GroupBy != "" {
		return Report{}, fmt.Errorf("usage: unknown grouping %q", f.GroupBy)
	}
	q := s.q(ctx).Table("model_calls").Where("status = ? AND created_at >= ? AND created_at < ?", StatusSettled, f.From.UTC(), f.To.UTC())
	switch {
	case len(f.Spaces) > 0 && f.Person != "":
		own := s.q(ctx).Where("person_id = ?", f.Person)
		if f.PersonSpace != "" {
			own = own.Where("space_id = ?", f.PersonSpace)
		}
		q = q.Where(s.q(ctx).Where("space_id IN ?", f.Spaces).Or(own))
	case len(f.Spaces) > 0:
		q = q.Where("space_id IN ?", f.Spaces)
	case f.Person != "":
		q = q.Where("person_id = ?", f.Person)
		if f.PersonSpace != "" {
			q = q.Where("space_id = ?", f.PersonSpace)
		}
	default:
		return Report{}, nil // nobody's usage
	}
	sums := "COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(cached_input_tokens), 0) AS cached_input_tokens, " +
		"COALESCE(SUM(output_tokens), 0) AS output_tokens, COALESCE(SUM(cost_micros), 0) AS cost_micros"
	var out Report
	if f.GroupBy == "" {
		if err := q.Select(sums).Scan(&out.Total).Error; err != nil {
			return Report{}, fmt.Errorf("usage: %w", err)
		}
		return out, nil
	}
	if err := q.Select(col + " AS group_key, " + sums).Group(col).Order(col).Scan(&out.Groups).Error; err != nil {
		return Report{}, fmt.Errorf("usage: %w", err)
	}
	for _, g := range out.Groups {
		out.Total.Calls += g.Calls
		out.Total.InputTokens += g.InputTokens
		out.Total.CachedInputTokens += g.CachedInputTokens
		out.Total.OutputTokens += g.OutputTokens
		out.Total.CostMicros += g.CostMicros
	}
	return out, nil
}
