package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"hub/dbtest"
	"hub/storage"
)

// tables are the tables the migrations create; a test below checks each one
// exists on both engines.
var tables = []string{
	"spaces", "people", "memberships", "api_tokens", "settings", "projects", "tasks",
	"conversations", "messages", "turns", "turn_steps", "tool_calls", "frames", "frame_heads",
	"undo_groups", "undo_entries", "connections", "receipts", "workflow_steps", "skills", "record_changes", "files", "audit_events", "oidc_subjects",
}

func open(t *testing.T, url string) *storage.DB {
	t.Helper()
	db, err := storage.Open(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestMigrateUpOnBothEngines(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := t.Context()
		db := open(t, url)
		require.Equal(t, storage.DialectOf(url), db.Dialect)

		current, latest, err := db.SchemaVersion(ctx)
		require.NoError(t, err)
		require.Zero(t, current, "a fresh database has no migration applied")
		files, err := os.ReadDir(filepath.Join("migrations", string(db.Dialect)))
		require.NoError(t, err)
		newest, err := strconv.Atoi(strings.SplitN(files[len(files)-1].Name(), "_", 2)[0])
		require.NoError(t, err)
		require.EqualValues(t, newest, latest, "the newest embedded migration is the last file")

		require.NoError(t, db.Migrate(ctx))
		current, latest, err = db.SchemaVersion(ctx)
		require.NoError(t, err)
		require.Equal(t, latest, current)

		for _, table := range tables {
			require.True(t, db.Migrator().HasTable(table), "table %s", table)
		}

		// Running it again finds nothing to do.
		require.NoError(t, db.Migrate(ctx))
		again, _, err := db.SchemaVersion(ctx)
		require.NoError(t, err)
		require.Equal(t, current, again)
		require.NoError(t, db.Ping(ctx))
	})
}

// Several processes start at once against one Postgres database: the session
// lock lets one migrate while the others wait and find nothing left to do.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		if storage.DialectOf(url) == storage.SQLite {
			t.Skip("one process owns a SQLite file")
		}
		var g errgroup.Group
		for range 4 {
			db := open(t, url)
			g.Go(func() error { return db.Migrate(t.Context()) })
		}
		require.NoError(t, g.Wait())
		current, latest, err := open(t, url).SchemaVersion(t.Context())
		require.NoError(t, err)
		require.Equal(t, latest, current)
	})
}

// The one-unfinished-turn rule is a partial unique index on both engines.
func TestOneRunningTurnIndex(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := t.Context()
		db := open(t, url)
		require.NoError(t, db.Migrate(ctx))
		q := db.WithContext(ctx)
		require.NoError(t, q.Create(&storage.Space{ID: "s", Name: "S"}).Error)
		require.NoError(t, q.Create(&storage.Person{ID: "p", Name: "P"}).Error)
		require.NoError(t, q.Create(&storage.Conversation{ID: "c", SpaceID: "s", PersonID: "p"}).Error)
		turn := func(id string) *storage.Turn {
			return &storage.Turn{ID: id, ConversationID: "c", SpaceID: "s", PersonID: "p", UserMessageID: "m", ReplyMessageID: "r",
				Status: "queued", OfferedTools: "[]", HistoryIDs: "[]"}
		}
		require.NoError(t, q.Create(turn("t1")).Error)
		err := q.Create(turn("t2")).Error
		require.ErrorIs(t, err, gorm.ErrDuplicatedKey, "a second unfinished turn in one conversation")
		require.NoError(t, q.Model(&storage.Turn{}).Where("id = ?", "t1").Update("finished_at", db.NowFunc()).Error)
		require.NoError(t, q.Create(turn("t2")).Error, "once the first has finished")
	})
}

func TestDialectOf(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]storage.Dialect{
		"postgres://u:p@h/db":   storage.Postgres,
		"postgresql://u@h/db":   storage.Postgres,
		"/tmp/hub.db":           storage.SQLite,
		"sqlite:/tmp/hub.db":    storage.SQLite,
		"file:hub.db":           storage.SQLite,
		".hub/hub.db?_pragma=x": storage.SQLite,
	} {
		require.Equal(t, want, storage.DialectOf(url), url)
	}
}

func TestOpenEmptyURL(t *testing.T) {
	t.Parallel()
	_, err := storage.Open(context.Background(), "")
	require.ErrorContains(t, err, "DATABASE_URL is empty")
}

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				id := storage.NewID("task")
				mu.Lock()
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, seen, 4000, "ids never repeat")
	for id := range seen {
		require.True(t, strings.HasPrefix(id, "task_"), id)
		require.Len(t, id, len("task_")+16, "80 bits in base32")
		require.Equal(t, strings.ToLower(id), id)
		break
	}
}

// TestBothEnginesHaveTheSameMigrations: a schema change is written for
// Postgres and SQLite alike, with the same version numbers.
func TestBothEnginesHaveTheSameMigrations(t *testing.T) {
	t.Parallel()
	names := func(dialect string) []string {
		files, err := os.ReadDir(filepath.Join("migrations", dialect))
		require.NoError(t, err)
		var out []string
		for _, f := range files {
			out = append(out, f.Name())
		}
		return out
	}
	require.Equal(t, names("postgres"), names("sqlite"))
}

// Migrations lists every embedded migration as pending on a fresh database
// without creating anything there, and as applied, with its time, after
// Migrate; Pending is what is left.
func TestMigrationsListsAppliedAndPending(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := t.Context()
		db := open(t, url)
		files, err := os.ReadDir(filepath.Join("migrations", string(db.Dialect)))
		require.NoError(t, err)

		all, err := db.Migrations(ctx)
		require.NoError(t, err)
		require.Len(t, all, len(files))
		for i, m := range all {
			require.Equal(t, files[i].Name(), m.Name)
			require.False(t, m.Applied)
			require.True(t, m.AppliedAt.IsZero())
		}
		require.False(t, db.Migrator().HasTable("goose_db_version"), "listing changed nothing")
		pending, err := db.Pending(ctx)
		require.NoError(t, err)
		require.Equal(t, all, pending)

		require.NoError(t, db.Migrate(ctx))
		all, err = db.Migrations(ctx)
		require.NoError(t, err)
		for _, m := range all {
			require.True(t, m.Applied, m.Name)
			require.WithinDuration(t, time.Now(), m.AppliedAt, time.Hour)
		}
		pending, err = db.Pending(ctx)
		require.NoError(t, err)
		require.Empty(t, pending)

		// The newest one's row gone (a binary newer than the schema): it
		// alone is pending.
		last := all[len(all)-1]
		require.NoError(t, db.Exec("DELETE FROM goose_db_version WHERE version_id = ?", last.Version).Error)
		pending, err = db.Pending(ctx)
		require.NoError(t, err)
		require.Len(t, pending, 1)
		require.Equal(t, last.Name, pending[0].Name)
	})
}

// Migration 00027 gives the once-per-attempt frames stored before it their
// attempt: the first of each type in the turn's current attempt belongs to
// it; an earlier attempt's and a second one a past race stored are in none
// (NULL), so the unique index can be made and holds from then on, and a
// frame stored by an older binary (no attempt) is never refused.
func TestOnceFramesGetTheirAttempt(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := t.Context()
		db := open(t, url)
		require.NoError(t, db.Migrate(ctx))
		// Back to before 00027 (and whatever came after it).
		require.NoError(t, db.MigrateDownTo(ctx, 26))
		q := db.WithContext(ctx)
		require.NoError(t, q.Create(&storage.Space{ID: "s", Name: "S"}).Error)
		require.NoError(t, q.Create(&storage.Person{ID: "p", Name: "P"}).Error)
		// agent_id is a later migration's column.
		require.NoError(t, q.Omit("AgentID").Create(&storage.Conversation{ID: "c", SpaceID: "s", PersonID: "p"}).Error)
		// A turn reset once: its second attempt starts after frame 4.
		require.NoError(t, q.Omit("AgentID", "Purpose", "ReferenceContext", "ScheduleID", "ScheduleRun", "WritePolicy").Create(&storage.Turn{ID: "t1", ConversationID: "c", SpaceID: "s", PersonID: "p", UserMessageID: "m",
			ReplyMessageID: "r", Status: "done", OfferedTools: "[]", HistoryIDs: "[]", AttemptSeq: 4, FrameSeq: 9}).Error)
		frames := []struct {
			turn string
			seq  int64
			typ  string
		}{
			{"t1", 1, "refs"}, {"t1", 2, "error"}, {"t1", 3, "status"}, {"t1", 4, "status"}, // the first attempt, its old done a status frame now
			{"t1", 5, "refs"}, {"t1", 6, "text"}, {"t1", 7, "done"}, {"t1", 8, "done"}, {"t1", 9, "refs"}, // the second, with a past race's doubles
			{"gone", 1, "refs"}, {"gone", 2, "done"}, // a turn since deleted
		}
		for _, f := range frames {
			require.NoError(t, db.Exec("INSERT INTO turn_frames (turn_id, seq, type, data, created_at) VALUES (?, ?, ?, '{}', ?)",
				f.turn, f.seq, f.typ, time.Now().UTC()).Error)
		}
		require.NoError(t, db.Migrate(ctx))
		var rows []storage.Frame
		require.NoError(t, q.Order("log, seq").Find(&rows).Error)
		got := map[string]int64{}
		for _, r := range rows {
			if r.Attempt != nil {
				got[r.Log+"/"+strconv.FormatInt(r.Seq, 10)] = *r.Attempt
			}
		}
		require.Equal(t, map[string]int64{"gone/1": 0, "gone/2": 0, "t1/5": 4, "t1/7": 4}, got,
			"the first of each type in the current attempt; the others in none")
		err := db.Exec("INSERT INTO frames (log, seq, type, data, created_at, attempt) VALUES ('t1', 10, 'done', '{}', ?, 4)", time.Now().UTC()).Error
		require.True(t, storage.IsUniqueViolation(err), "a second done in the attempt: %v", err)
		require.NoError(t, db.Exec("INSERT INTO frames (log, seq, type, data, created_at, attempt) VALUES ('t1', 10, 'text', '{}', ?, 4)", time.Now().UTC()).Error)
		require.NoError(t, db.Exec("INSERT INTO frames (log, seq, type, data, created_at) VALUES ('t1', 11, 'done', '{}', ?)", time.Now().UTC()).Error,
			"an older binary's done frame, in no attempt")
	})
}

// Migration 00035 moves the frames of turns and persons into one table,
// numbered per log, and its Down puts them back.
func TestFramesMoveIntoOneTableAndBack(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, url string) {
		t.Parallel()
		ctx := t.Context()
		db := open(t, url)
		require.NoError(t, db.Migrate(ctx))
		require.NoError(t, db.MigrateDownTo(ctx, 34))
		q := db.WithContext(ctx)
		require.NoError(t, q.Create(&storage.Person{ID: "p", Name: "P"}).Error)
		now := time.Now().UTC()
		require.NoError(t, db.Exec("INSERT INTO turn_frames (turn_id, seq, type, data, created_at, attempt) VALUES ('t1', 1, 'done', '{}', ?, 0)", now).Error)
		require.NoError(t, db.Exec("INSERT INTO activity_heads (person_id, seq) VALUES ('p', 7)").Error)
		require.NoError(t, db.Exec("INSERT INTO activity_frames (person_id, seq, data, created_at) VALUES ('p', 7, '{\"id\":\"x\"}', ?)", now).Error)

		require.NoError(t, db.Migrate(ctx))
		var frames []storage.Frame
		require.NoError(t, q.Order("log, seq").Find(&frames).Error)
		var got []string
		for _, f := range frames {
			got = append(got, f.Log+"/"+strconv.FormatInt(f.Seq, 10)+"/"+f.Type)
		}
		require.Equal(t, []string{"t1/1/done", "work:p/7/work"}, got)
		require.NotNil(t, frames[0].Attempt)
		var head storage.FrameHead
		require.NoError(t, q.Take(&head, "log = ?", "work:p").Error)
		require.EqualValues(t, 7, head.Seq)

		require.NoError(t, db.MigrateDownTo(ctx, 34))
		var turnFrames, activityFrames, heads int64
		require.NoError(t, q.Table("turn_frames").Where("turn_id = 't1' AND attempt = 0").Count(&turnFrames).Error)
		require.NoError(t, q.Table("activity_frames").Where("person_id = 'p' AND seq = 7").Count(&activityFrames).Error)
		require.NoError(t, q.Table("activity_heads").Where("person_id = 'p' AND seq = 7").Count(&heads).Error)
		require.Equal(t, []int64{1, 1, 1}, []int64{turnFrames, activityFrames, heads})
	})
}
