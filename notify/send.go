package notify

import (
	"context"
	"fmt"

	"hub/storage"
)

// Send sends a notification on channel: at once, or, when ctx carries a
// transaction (storage.DB.InTx), once it commits (Postgres delivers
// notifications on commit and drops them on rollback, so no listener hears
// of a change it cannot read yet). On SQLite it does nothing: everything
// runs in one process, whose writer wakes its followers itself.
func Send(ctx context.Context, db *storage.DB, channel, payload string) error {
	if db.Dialect != storage.Postgres {
		return nil
	}
	if err := db.Q(ctx).Exec("SELECT pg_notify(?, ?)", channel, payload).Error; err != nil {
		return fmt.Errorf("notify %s: %w", channel, err)
	}
	return nil
}
