package dbtest

import (
	"context"
	"testing"

	"hub/storage"
)

// Open opens the database at url with Hub's schema migrated, and closes it
// when the test ends.
func Open(t testing.TB, url string) *storage.DB {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, url)
	if err != nil {
		t.Fatalf("open %s: %v", redact(url), err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", redact(url), err)
	}
	return db
}
