package models

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations
var migrations embed.FS

// Migrate brings the schema up to date with the SQL migrations embedded in
// the binary (one folder per engine, the same version numbers in both). On
// Postgres a session lock lets several processes start at once: one
// migrates, the others wait and find nothing left to do.
func (db *DB) Migrate(ctx context.Context) error {
	p, err := db.migrator()
	if err != nil {
		return err
	}
	// Nothing pending (every restart of an up-to-date process): done without
	// queueing for the lock. An error here (no version table yet) means "run".
	if pending, err := p.HasPending(ctx); err == nil && !pending {
		return nil
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", db.Dialect, err)
	}
	return nil
}

// SchemaVersion reports the applied and the newest known migration version.
func (db *DB) SchemaVersion(ctx context.Context) (current, latest int64, err error) {
	p, err := db.migrator()
	if err != nil {
		return 0, 0, err
	}
	current, err = p.GetDBVersion(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("schema version: %w", err)
	}
	sources := p.ListSources()
	if len(sources) > 0 {
		latest = sources[len(sources)-1].Version
	}
	return current, latest, nil
}

func (db *DB) migrator() (*goose.Provider, error) {
	dir := "migrations/" + string(db.Dialect)
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations %s: %w", dir, err)
	}
	dialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if db.Dialect == Postgres {
		dialect = goose.DialectPostgres
		// Poll the lock every second (goose's default is every 5 s), for
		// the same 5 minutes at most: a process that waited for another's
		// migration starts a second after it, not up to five.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			return nil, fmt.Errorf("migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db.SQL(), fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("migrations %s: %w", db.Dialect, err)
	}
	return p, nil
}
