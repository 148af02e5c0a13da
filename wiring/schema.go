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
	// SchemaMigrate (the zero value) brings the schema up to date first:
	// `hub dev`, `hub migrate` and `hub token create`, and any caller that
	// says nothing.
	SchemaMigrate Schema = iota
	// SchemaCheck refuses a database whose schema is behind the binary,
	// naming the pending migrations, unless config.Config.Migrate
	// (HUB_MIGRATE=1, --migrate) says to migrate: `hub api` and `hub
	// worker`. A rolling deploy then never has two versions racing to
	// migrate; `hub migrate` (a one-shot step before them) does it.
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
