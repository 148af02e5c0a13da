package usage

import (
	"context"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Explain is the Postgres plan of a usage query, run (EXPLAIN ANALYZE):
// the benchmark logs it to show which indexes answer.
func (s *Store) Explain(ctx context.Context, f Filter) (string, error) {
	q, err := s.query(s.q(ctx).Session(&gorm.Session{DryRun: true}), f)
	if err != nil || q == nil {
		return "", err
	}
	var r []Totals
	stmt := q.Scan(&r).Statement
	var plan []string
	if err := s.q(ctx).Raw("EXPLAIN (ANALYZE, BUFFERS) "+stmt.SQL.String(), stmt.Vars...).Scan(&plan).Error; err != nil {
		return "", err
	}
	return strings.Join(plan, "\n"), nil
}

// ExplainReserve runs Reserve's one statement under EXPLAIN ANALYZE (it
// reserves) and returns the plan: its time in the server.
func (s *Store) ExplainReserve(ctx context.Context, c Call, estimate int64) (string, error) {
	var plan []string
	err := s.q(ctx).Raw("EXPLAIN (ANALYZE, BUFFERS) "+reserveSQL, reserveArgs(c, estimate, time.Now().UTC())...).Scan(&plan).Error
	return strings.Join(plan, "\n"), err
}
