package usage

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Groupings of a usage query.
const (
	ByPerson = "person"
	BySpace  = "space"
	ByModel  = "model"
	ByDay    = "day"
	// ByPurpose groups by usage bucket: "chat" for people's own turns,
	// an agent's purpose for its turns.
	ByPurpose = "purpose"
)

var groupColumns = map[string]string{ByPerson: "person_id", BySpace: "space_id", ByModel: "model", ByDay: "day", ByPurpose: "purpose"}

// ValidGroupBy tells whether g is a grouping Query takes ("" is none).
func ValidGroupBy(g string) bool { _, ok := groupColumns[g]; return ok || g == "" }

// Filter says whose usage a query sums: everyone's in Spaces and Person's
// own (in PersonSpace only, when set); settled calls made in [From, To).
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

// Report is a query's answer: the total and, when grouped, one Totals per key in order.
type Report struct {
	Total  Totals
	Groups []Totals
}

// Query sums the settled calls the filter selects.
func (s *Store) Query(ctx context.Context, f Filter) (Report, error) {
	q, err := s.query(s.q(ctx), f)
	if err != nil || q == nil {
		return Report{}, err
	}
	var out Report
	if f.GroupBy == "" {
		err = q.Scan(&out.Total).Error
	} else {
		err = q.Scan(&out.Groups).Error
	}
	if err != nil {
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

// query builds a usage query on db; nil when the filter selects nobody.
// Its two parts each read one covering index, summed over their UNION ALL:
// an OR would read the table.
func (s *Store) query(db *gorm.DB, f Filter) (*gorm.DB, error) {
	col, ok := groupColumns[f.GroupBy]
	if !ok && f.GroupBy != "" {
		return nil, fmt.Errorf("usage: unknown grouping %q", f.GroupBy)
	}
	const fields = "person_id, space_id, model, day, purpose, input_tokens, cached_input_tokens, output_tokens, cost_micros"
	part := func() *gorm.DB {
		return db.Table("model_calls").Select(fields).
			Where("status = ? AND created_at >= ? AND created_at < ?", StatusSettled, f.From.UTC(), f.To.UTC())
	}
	var parts []*gorm.DB
	if len(f.Spaces) > 0 {
		parts = append(parts, part().Where("space_id IN ?", f.Spaces))
	}
	if f.Person != "" {
		own := part().Where("person_id = ?", f.Person)
		if f.PersonSpace != "" {
			own = own.Where("space_id = ?", f.PersonSpace)
		}
		if len(f.Spaces) > 0 {
			own = own.Where("space_id NOT IN ?", f.Spaces) // counted above
		}
		parts = append(parts, own)
	}
	var from *gorm.DB
	switch len(parts) {
	case 0:
		return nil, nil // nobody's usage
	case 1:
		from = db.Table("(?) AS calls", parts[0])
	default:
		from = db.Table("(? UNION ALL ?) AS calls", parts[0], parts[1])
	}
	sums := "COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(cached_input_tokens), 0) AS cached_input_tokens, " +
		"COALESCE(SUM(output_tokens), 0) AS output_tokens, COALESCE(SUM(cost_micros), 0) AS cost_micros"
	if f.GroupBy == "" {
		return from.Select(sums), nil
	}
	return from.Select(col + " AS group_key, " + sums).Group(col).Order(col), nil
}
