package storage

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations
var migrations embed.FS

// Migrate brings the schema up to date with the embedded SQL migrations
// (one folder per engine, same versions). On Postgres a session lock lets
// several processes start at once.
func (db *DB) Migrate(ctx context.Context) error {
	p, err := db.migrator()
	if err != nil {
		return err
	}
	// Nothing pending: done without queueing for the lock (an error means "run").
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
	Version   int64
	Name      string // its file name, 00024_example.sql
	Applied   bool
	AppliedAt time.Time // zero while pending
}

// versionTable is goose's table of applied versions.
const versionTable = "goose_db_version"

// Migrations lists the binary's migrations, oldest first, each applied or
// pending, changing nothing. Versions only the database has (a newer
// binary's) are not listed.
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
	return slices.DeleteFunc(all, func(m Migration) bool { return m.Applied }), nil
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
		// Poll the lock every second, not goose's 5 s, for 5 minutes at most.
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
