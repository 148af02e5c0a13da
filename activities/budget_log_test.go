package activities

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"hub/usage"
)

// levels records the level of every log record, by message.
type levels struct {
	mu sync.Mutex
	by map[string]slog.Level
}

func (l *levels) Enabled(context.Context, slog.Level) bool { return true }
func (l *levels) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.by[r.Message] = r.Level
	return nil
}
func (l *levels) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *levels) WithGroup(string) slog.Handler      { return l }

// A model call the budget refuses is the budget working, not a fault: Hub
// logs it at INFO, and its activity error is benign, which the SDK logs at
// DEBUG instead of its "Activity error." at ERROR. Not parallel: it swaps
// the default logger.
func TestABudgetRefusalIsNoError(t *testing.T) {
	rec := &levels{by: map[string]slog.Level{}}
	old := slog.Default()
	slog.SetDefault(slog.New(rec))
	t.Cleanup(func() { slog.SetDefault(old) })

	err := modelError(&usage.BudgetError{Budget: 5_000_000, Spent: 4_900_000, Needed: 300_000})

	var ae *temporal.ApplicationError
	require.True(t, errors.As(err, &ae), "%T", err)
	require.Equal(t, ErrTypeBudget, ae.Type())
	require.True(t, ae.NonRetryable())
	require.Equal(t, temporal.ApplicationErrorCategoryBenign, ae.Category(), "the SDK logs a benign activity error at DEBUG, any other at ERROR")
	require.Contains(t, ae.Error(), "monthly budget of $5.00")

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for msg, level := range rec.by {
		require.Less(t, level, slog.LevelWarn, "%q logged at %s", msg, level)
	}
	require.Equal(t, slog.LevelInfo, rec.by["model call refused by the space's budget"], "logged: %v", rec.by)
}
