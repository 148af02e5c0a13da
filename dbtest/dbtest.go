// Package dbtest gives tests a fresh database of their own, on Postgres and on SQLite.
//
// Postgres comes from the server that scripts/test.sh (`make test`) starts and names in
// HUB_TEST_DATABASE_URL; every call makes a new database on it, so tests may run in parallel
// and several test binaries may share one server. SQLite needs nothing: a file in t.TempDir().
//
// URLs follow Hub's DATABASE_URL convention: postgres:// or postgresql:// is Postgres,
// anything else is a SQLite file path.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Environment variables read by Postgres; scripts/test.sh sets both.
const (
	// urlEnv names the test server. Its own database is only used to create and drop others.
	urlEnv = "HUB_TEST_DATABASE_URL"
	// requireEnv, set to 1, turns a missing urlEnv into a failure instead of a skip,
	// so that CI cannot pass by skipping every database test.
	requireEnv = "HUB_REQUIRE_POSTGRES"
)

// adminTimeout bounds each CREATE or DROP DATABASE. Creating a database copies template1,
// which takes well under a second; a minute means the server is gone or stuck.
const adminTimeout = time.Minute

// Postgres returns the URL of a new, empty database on the test server (HUB_TEST_DATABASE_URL),
// dropped when the test ends.
//
// Without HUB_TEST_DATABASE_URL it skips the test with a message saying to run `make test`,
// unless HUB_REQUIRE_POSTGRES=1, then it fails.
//
// The database is dropped WITH (FORCE) in t.Cleanup, which ends any connection still open to it;
// close pools in a cleanup registered after this call (cleanups run last-in, first-out) to
// close them first.
func Postgres(t testing.TB) string {
	t.Helper()
	server := os.Getenv(urlEnv)
	if server == "" {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("dbtest: %s is not set but %s=1; run the tests with `make test` (scripts/test.sh starts Postgres)", urlEnv, requireEnv)
		}
		t.Skipf("dbtest: skipping a Postgres test: %s is not set; run `make test` (scripts/test.sh starts a throwaway Postgres server)", urlEnv)
	}
	if !IsPostgres(server) {
		t.Fatalf("dbtest: %s must be a postgres:// URL, got %q", urlEnv, redact(server))
	}

	name, err := databaseName(t.Name())
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	databaseURL, err := withDatabase(server, name)
	if err != nil {
		t.Fatalf("dbtest: %s: %v", urlEnv, err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), adminTimeout)
	defer cancel()
	if err := createDatabase(ctx, server, name); err != nil {
		t.Fatalf("dbtest: create database %s on %s: %v", name, redact(server), err)
	}
	t.Cleanup(func() {
		// t.Context() is already cancelled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		if err := dropDatabase(ctx, server, name); err != nil {
			t.Errorf("dbtest: drop database %s: %v", name, err)
		}
	})
	return databaseURL
}

// SQLite returns a path for a new SQLite database file in t.TempDir(). The file does not exist
// yet; the driver creates it on first open, and the directory is removed when the test ends.
func SQLite(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "hub.db")
}

// Each runs fn as a subtest once per engine ("postgres", "sqlite") with that engine's fresh
// database URL. The postgres subtest skips (or fails under HUB_REQUIRE_POSTGRES=1) exactly as
// Postgres does; the sqlite one always runs.
func Each(t *testing.T, fn func(t *testing.T, databaseURL string)) {
	t.Helper()
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
}

// IsPostgres reports whether databaseURL names a Postgres database under Hub's DATABASE_URL
// convention (postgres:// or postgresql://); anything else is a SQLite file path.
func IsPostgres(databaseURL string) bool {
	lower := strings.ToLower(databaseURL)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// maxNameLen is Postgres's identifier limit (NAMEDATALEN-1); longer names are cut silently,
// which could make two names collide.
const maxNameLen = 63

// databaseName makes a database name from the test's name (to find it in pg_stat_activity
// while debugging) and 64 random bits (so parallel tests and concurrent test binaries never
// collide).
func databaseName(testName string) (string, error) {
	var random [8]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", fmt.Errorf("random database name: %w", err)
	}
	suffix := "_" + hex.EncodeToString(random[:])
	var b strings.Builder
	b.WriteString("hubtest_")
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= maxNameLen-len(suffix) {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String() + suffix, nil
}

// withDatabase returns server with its database (the URL path) replaced by name.
func withDatabase(server, name string) (string, error) {
	u, err := url.Parse(server)
	if err != nil {
		// url.Error repeats the whole URL, password included; keep only the reason.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return "", fmt.Errorf("parse URL: %w", err)
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// createDatabase runs CREATE DATABASE, retrying while another session holds the template
// database (SQLSTATE 55006, which concurrent CREATE DATABASE calls can briefly cause).
func createDatabase(ctx context.Context, server, name string) error {
	stmt := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	for attempt := 1; ; attempt++ {
		err := exec(ctx, server, stmt)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || attempt == 10 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
}

// dropDatabase drops name, ending the connections still open to it (Postgres 13 and later).
func dropDatabase(ctx context.Context, server, name string) error {
	return exec(ctx, server, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

// exec runs one statement on its own connection to server. CREATE and DROP DATABASE cannot run
// inside a transaction, and a fresh connection keeps nothing open between tests.
func exec(ctx context.Context, server, stmt string) error {
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}

// redact hides the password in a URL (or in text containing one) for error messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
