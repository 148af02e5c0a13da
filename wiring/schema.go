package wiring

import (
	"context"
	"fmt"
	"strings"

	"hub/storage"
)

// Schema is what New does with the schema of the database it opens.
type Schema int

const (
	// SchemaMigrate (the zero value) brings the schema up to date first.
	SchemaMigrate Schema = iota
	// SchemaCheck refuses a database whose schema is behind the binary
	// unless config.Config.Migrate says to migrate: `hub api` and `hub
	// worker`, so a rolling deploy never has two versions racing to migrate.
	SchemaCheck
)

func prepareSchema(ctx context.Context, db *storage.DB, s Schema, migrate bool) error {
	if s == SchemaMigrate || migrate {
		return db.Migrate(ctx)
	}
	pending, err := db.Pending(ctx)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return nil
	}
	names := make([]string, len(pending))
	for i, m := range pending {
		names[i] = m.Name
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 { // a database never migrated: the first and the last
		list = names[0] + " … " + names[len(names)-1]
	}
	return fmt.Errorf("the database schema is behind this binary: %d migration(s) pending (%s); run `hub migrate` first (`hub migrate status` lists them), or start with --migrate (HUB_MIGRATE=1) to migrate from this process",
		len(pending), list)
}
