package dbtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPostgres makes a database, uses it, leaves a connection open, and checks that the cleanup
// dropped the database anyway.
func TestPostgres(t *testing.T) {
	var name string
	var leftOpen *pgx.Conn
	t.Run("use", func(t *testing.T) {
		databaseURL := Postgres(t)
		if !IsPostgres(databaseURL) {
			t.Fatalf("Postgres returned %q, not a postgres:// URL", redact(databaseURL))
		}
		name = databaseFromURL(t, databaseURL)

		conn := connect(t, databaseURL)
		var current string
		var tables int
		err := conn.QueryRow(t.Context(),
			`SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')`,
		).Scan(&current, &tables)
		if err != nil {
			t.Fatalf("query: %v", err)
		}
		if current != name {
			t.Errorf("connected to database %q, want %q", current, name)
		}
		if tables != 0 {
			t.Errorf("new database has %d tables in public, want 0", tables)
		}
		if _, err := conn.Exec(t.Context(), `CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)`); err != nil {
			t.Fatalf("create table: %v", err)
		}
		if _, err := conn.Exec(t.Context(), `INSERT INTO notes VALUES (1, 'kept until cleanup')`); err != nil {
			t.Fatalf("insert: %v", err)
		}

		// Still open when the subtest's cleanup runs: DROP ... WITH (FORCE) must end it.
		leftOpen, err = pgx.Connect(t.Context(), databaseURL)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
	})
	if name == "" {
		t.Skip("no database was made (see the subtest)")
	}
	defer leftOpen.Close(context.Background())

	if databaseExists(t, name) {
		t.Errorf("database %s still exists after the test that made it ended", name)
	}
}

// TestPostgresParallel makes databases from parallel subtests, as packages using t.Parallel() do.
func TestPostgresParallel(t *testing.T) {
	const n = 6
	var mu sync.Mutex
	names := map[string]bool{}
	t.Run("group", func(t *testing.T) {
		for i := range n {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				databaseURL := Postgres(t)
				conn := connect(t, databaseURL)
				if _, err := conn.Exec(t.Context(), `CREATE TABLE same_name_everywhere (id int)`); err != nil {
					t.Fatalf("create table: %v", err)
				}
				mu.Lock()
				names[databaseFromURL(t, databaseURL)] = true
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	if len(names) == 0 {
		t.Skip("no database was made (see the subtests)")
	}
	if len(names) != n {
		t.Errorf("%d parallel tests got %d distinct databases: %v", n, len(names), names)
	}
	for name := range names {
		if databaseExists(t, name) {
			t.Errorf("database %s still exists after its test ended", name)
		}
	}
}

// TestPostgresWithoutServer checks the message when HUB_TEST_DATABASE_URL is missing: a skip
// that says how to run the suite, or a failure under HUB_REQUIRE_POSTGRES=1.
func TestPostgresWithoutServer(t *testing.T) {
	t.Setenv(urlEnv, "")

	t.Setenv(requireEnv, "")
	got := runOutcome(t, func(tb testing.TB) { Postgres(tb) })
	if got.kind != "skip" || !strings.Contains(got.message, "make test") || !strings.Contains(got.message, urlEnv) {
		t.Errorf("without %s: got %s %q, want a skip naming %s and `make test`", urlEnv, got.kind, got.message, urlEnv)
	}

	t.Setenv(requireEnv, "1")
	got = runOutcome(t, func(tb testing.TB) { Postgres(tb) })
	if got.kind != "fatal" || !strings.Contains(got.message, requireEnv) {
		t.Errorf("with %s=1: got %s %q, want a failure naming %s", requireEnv, got.kind, got.message, requireEnv)
	}

	t.Setenv(urlEnv, "/tmp/not-a-server.db")
	got = runOutcome(t, func(tb testing.TB) { Postgres(tb) })
	if got.kind != "fatal" {
		t.Errorf("with a SQLite path in %s: got %s %q, want a failure", urlEnv, got.kind, got.message)
	}
}

func TestSQLite(t *testing.T) {
	first, second := SQLite(t), SQLite(t)
	if first == second {
		t.Errorf("two calls returned the same path %q", first)
	}
	for _, path := range []string{first, second} {
		if IsPostgres(path) || !filepath.IsAbs(path) {
			t.Errorf("SQLite returned %q, want an absolute file path", path)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: want no file yet, stat says %v", path, err)
		}
		if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
			t.Errorf("%s: parent directory missing: %v", path, err)
		}
	}
}

func TestEach(t *testing.T) {
	seen := map[string]string{}
	Each(t, func(t *testing.T, databaseURL string) {
		seen[t.Name()[strings.LastIndex(t.Name(), "/")+1:]] = databaseURL
	})
	if url, ok := seen["sqlite"]; !ok || IsPostgres(url) {
		t.Errorf("sqlite subtest: ran=%v url=%q, want a run with a file path", ok, url)
	}
	if os.Getenv(urlEnv) != "" {
		if url, ok := seen["postgres"]; !ok || !IsPostgres(url) {
			t.Errorf("postgres subtest: ran=%v url=%q, want a run with a postgres:// URL", ok, redact(url))
		}
	}
	if len(seen) > 2 {
		t.Errorf("Each ran %d engines, want 2: %v", len(seen), seen)
	}
}

func TestIsPostgres(t *testing.T) {
	for url, want := range map[string]bool{
		"postgres://u:p@localhost:5432/hub?sslmode=disable": true,
		"postgresql://localhost/hub":                        true,
		"POSTGRES://localhost/hub":                          true,
		"hub.db":                                            false,
		"/var/lib/hub/hub.db":                               false,
		"file:hub.db?_pragma=busy_timeout(5000)":            false,
		"postgres.db":                                       false,
		"":                                                  false,
	} {
		if got := IsPostgres(url); got != want {
			t.Errorf("IsPostgres(%q) = %v, want %v", url, got, want)
		}
	}
}

func TestDatabaseName(t *testing.T) {
	long := "TestSomething/" + strings.Repeat("very long subtest name ", 10)
	a, err := databaseName(long)
	if err != nil {
		t.Fatal(err)
	}
	b, err := databaseName(long)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("two names for the same test are equal: %s", a)
	}
	for _, name := range []string{a, b} {
		if len(name) > maxNameLen {
			t.Errorf("%s is %d bytes, Postgres keeps %d", name, len(name), maxNameLen)
		}
		if strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("%s has characters outside [a-z0-9_]", name)
		}
		if !strings.HasPrefix(name, "hubtest_testsomething_very_long") {
			t.Errorf("%s does not start with the test's name", name)
		}
	}
}

func TestRedact(t *testing.T) {
	got := redact("postgres://hub:s3cret@127.0.0.1:5432/postgres")
	if strings.Contains(got, "s3cret") {
		t.Errorf("redact kept the password: %s", got)
	}
	if _, err := withDatabase("postgres://hub:s3cret@host:5432/x\x7f", "y"); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("withDatabase on a bad URL: err = %v, want an error without the password", err)
	}
}

// connect opens a connection closed at the end of the test (before the database is dropped).
func connect(t *testing.T, databaseURL string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), databaseURL)
	if err != nil {
		t.Fatalf("connect to %s: %v", redact(databaseURL), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func databaseFromURL(t *testing.T, databaseURL string) string {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatalf("parse %s: %v", redact(databaseURL), err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// databaseExists asks the test server (HUB_TEST_DATABASE_URL) whether name exists.
func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	conn := connect(t, os.Getenv(urlEnv))
	var exists bool
	if err := conn.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		t.Fatalf("look up database %s: %v", name, err)
	}
	return exists
}

// outcome is how a function given a recordingTB ended: "return", "skip" or "fatal".
type outcome struct {
	kind    string
	message string
}

// recordingTB stands in for a testing.TB to observe Skipf and Fatalf without ending the real
// test. Like the real ones, they stop the calling goroutine.
type recordingTB struct {
	testing.TB
	got outcome
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Skipf(format string, args ...any) {
	r.got = outcome{"skip", fmt.Sprintf(format, args...)}
	runtime.Goexit()
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.got = outcome{"fatal", fmt.Sprintf(format, args...)}
	runtime.Goexit()
}

func runOutcome(t *testing.T, fn func(testing.TB)) outcome {
	r := &recordingTB{TB: t, got: outcome{kind: "return"}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r.got
}
