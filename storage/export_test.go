package storage

import "context"

// MigrateDownTo rolls the schema back to version (goose's Down sections),
// for a test of a migration against rows stored before it, whatever
// migrations came after it.
func (db *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := db.migrator()
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}
