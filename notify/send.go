package notify

import (
	"context"
	"fmt"

	"hub/storage"
)

// Send sends a notification on channel, in the transaction ctx carries if
// any: Postgres delivers it on commit, so no listener hears of a change it
// cannot read yet. On SQLite (one process) it does nothing.
func Send(ctx context.Context, db *storage.DB, channel, payload string) error {
	if db.Dialect != storage.Postgres {
		return nil
	}
	if err := db.Q(ctx).Exec("SELECT pg_notify(?, ?)", channel, payload).Error; err != nil {
		return fmt.Errorf("notify %s: %w", channel, err)
	}
	return nil
}
