package storage

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"time"

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

// Migration is one of the migrations embedded in the binary and whether the
// database has it.
type Migration struct {
	Version int64
	// Name is the migration's file name, 00024_example.sql.
	Name      string
	Applied   bool
	AppliedAt time.Time // zero while pending
}

// versionTable is goose's table of applied versions.
const versionTable = "goose_db_version"

// Migrations lists the binary's migrations, oldest first, each applied or
// pending. It changes nothing: on a database never migrated (no version
// table) every one is pending. A version the database has and the binary
// does not (a newer binary migrated it) is not listed: an older binary
// runs on a newer schema, as a rolling deploy needs.
func (db *DB) Migrations(ctx context.Context) ([]Migration, error) {
	p, err := db.migrator()
	if err != nil {
		return nil, err
	}
	if !db.WithContext(ctx).Migrator().HasTable(versionTable) {
		var out []Migration
		for _, src := range p.ListSources() {
			out = append(out, Migration{Version: src.Version, Name: path.Base(src.Path)})
		}
		return out, nil
	}
	st, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("migration status: %w", err)
	}
	out := make([]Migration, 0, len(st))
	for _, m := range st {
		out = append(out, Migration{Version: m.Source.Version, Name: path.Base(m.Source.Path),
			Applied: m.State == goose.StateApplied, AppliedAt: m.AppliedAt})
	}
	return out, nil
}

// Pending lists the migrations Migrate would run, oldest first.
func (db *DB) Pending(ctx context.Context) ([]Migration, error) {
	all, err := db.Migrations(ctx)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, m := range all {
		if !m.Applied {
			out = append(out, m)
		}
	}
	return out, nil
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
