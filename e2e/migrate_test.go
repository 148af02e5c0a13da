//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/dbtest"
	"hub/storage"
	"hub/temporal"
)

// TestMigrateStatusDryRunAndStartWithoutMigrating drives the binary as a
// rolling deploy would: on a fresh Postgres database `hub migrate status`
// lists every migration pending and `hub migrate --dry-run` the same ones
// as what would run, both changing nothing; `hub api` and `hub worker`
// refuse to start, naming the pending migrations; `hub migrate` applies
// them; then both start. A binary newer than the schema (the newest
// migration's row removed) is refused again, naming just that one.
func TestMigrateStatusDryRunAndStartWithoutMigrating(t *testing.T) {
	t.Parallel()
	db := dbtest.Postgres(t)
	ts, err := temporal.Start(context.Background(), temporal.Options{FrontendAddr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ts.Stop() })
	env := []string{"DATABASE_URL=" + db, "TEMPORAL_ADDRESS=" + ts.FrontendHostPort(), "TEMPORAL_NAMESPACE=" + ts.Namespace(),
		"HUB_HTTP_ADDR=127.0.0.1:0", "HUB_MIGRATE=", "TEMPORAL_CONFIG_FILE=", "TEMPORAL_PROFILE="}
	files, err := os.ReadDir(filepath.Join("..", "storage", "migrations", "postgres"))
	require.NoError(t, err)
	first, newest := files[0].Name(), files[len(files)-1].Name()

	status := output(t, env, "migrate", "status")
	require.Contains(t, status, "pending  "+first)
	require.Contains(t, status, "pending  "+newest)
	require.Contains(t, status, "0 applied, "+strconv.Itoa(len(files))+" pending")
	dry := output(t, env, "migrate", "--dry-run")
	require.Contains(t, dry, "would run  "+first)
	require.Contains(t, dry, "would run  "+newest)
	require.Contains(t, dry, "would register search attributes HubActorID")
	require.Contains(t, dry, "nothing changed")
	require.Equal(t, status, output(t, env, "migrate", "status"), "the dry run changed nothing")

	for _, role := range []string{"api", "worker"} {
		out, code := runExit(t, env, role)
		require.Equal(t, 1, code, "%s", out)
		require.Contains(t, out, "the database schema is behind this binary: "+strconv.Itoa(len(files))+" migration(s) pending ("+first)
		require.Contains(t, out, newest)
		require.Contains(t, out, "run `hub migrate` first")
		require.NotContains(t, out, "listening on")
	}
	require.Equal(t, status, output(t, env, "migrate", "status"), "a refused start changed nothing")

	require.Contains(t, output(t, env, "migrate"), "search attributes registered")
	status = output(t, env, "migrate", "status")
	require.Regexp(t, regexp.MustCompile(`(?m)^applied  `+regexp.QuoteMeta(newest)+`  \d{4}-\d\d-\d\dT`), status)
	require.Contains(t, status, strconv.Itoa(len(files))+" applied, 0 pending")
	require.Contains(t, output(t, env, "migrate", "--dry-run", "--skip-temporal"), "no migration would run")
	start(t, env, "api").await(t, apiLine)
	start(t, env, "worker").await(t, regexp.MustCompile(`hub worker polling`))

	// A new binary on the old schema: the newest migration looks pending.
	m, err := storage.Open(context.Background(), db)
	require.NoError(t, err)
	version := strings.SplitN(newest, "_", 2)[0]
	require.NoError(t, m.Exec("DELETE FROM goose_db_version WHERE version_id = ?", strings.TrimLeft(version, "0")).Error)
	require.NoError(t, m.Close())
	out, code := runExit(t, env, "worker")
	require.Equal(t, 1, code, "%s", out)
	require.Contains(t, out, "1 migration(s) pending ("+newest+")")
}

// TestStartWithMigrate: `hub worker --migrate` and `hub api` with
// HUB_MIGRATE=1 migrate a fresh database themselves and start.
func TestStartWithMigrate(t *testing.T) {
	t.Parallel()
	ts, err := temporal.Start(context.Background(), temporal.Options{FrontendAddr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ts.Stop() })
	dir := t.TempDir()
	env := func(db string) []string {
		return []string{"DATABASE_URL=" + filepath.Join(dir, db), "TEMPORAL_ADDRESS=" + ts.FrontendHostPort(), "TEMPORAL_NAMESPACE=" + ts.Namespace(),
			"HUB_HTTP_ADDR=127.0.0.1:0", "TEMPORAL_CONFIG_FILE=", "TEMPORAL_PROFILE="}
	}
	start(t, env("worker.db"), "worker", "--migrate").await(t, regexp.MustCompile(`hub worker polling`))
	require.Contains(t, output(t, env("worker.db"), "migrate", "status"), " applied, 0 pending")
	start(t, append(env("api.db"), "HUB_MIGRATE=1"), "api").await(t, apiLine)
	require.Contains(t, output(t, env("api.db"), "migrate", "status"), " applied, 0 pending")
}
