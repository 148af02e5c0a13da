package wiring_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"hub/chat"
	"hub/config"
	"hub/dbtest"
	"hub/storage"
	"hub/wiring"
	"hub/workspace"
)

// The sweeper `hub worker` runs removes the frames of turns that ended
// long enough ago, expired tokens and held writes past the proposal TTL,
// measuring age on its clock, and leaves the rest.
func TestSweeperRemovesWhatExpired(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, testSweeperRemovesWhatExpired)
}

func testSweeperRemovesWhatExpired(t *testing.T, databaseURL string) {
	ctx := context.Background()
	start := time.Now()
	later := start.Add(config.DefaultProposalTTL + time.Hour) // the sweeper's clock
	h, err := wiring.New(ctx, config.Config{DatabaseURL: databaseURL},
		wiring.Options{Test: wiring.TestKnobs{SweepEvery: 10 * time.Millisecond, Now: func() time.Time { return later }}})
	require.NoError(t, err)
	t.Cleanup(h.Close)

	spaceID, personID, err := h.Workspace.EnsureMember(ctx, "Team", "Mira Chen", workspace.RoleOwner)
	require.NoError(t, err)
	kept, err := h.Workspace.CreateToken(ctx, personID, "", 0)
	require.NoError(t, err)
	_, err = h.Workspace.CreateToken(ctx, personID, workspace.StreamScope("turn_x"), time.Hour)
	require.NoError(t, err)
	require.NoError(t, h.DB.Model(&storage.APIToken{}).Where("scope = ?", workspace.StreamScope("turn_x")).
		Update("expires_at", start.Add(-time.Second).UTC()).Error)

	conv, err := h.Chat.CreateConversation(ctx, personID, spaceID, "test", "")
	require.NoError(t, err)
	turn, err := h.Chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: personID, Text: "add two tasks"})
	require.NoError(t, err)
	require.NoError(t, h.DB.Model(&storage.Turn{}).Where("id = ?", turn.ID).
		Updates(map[string]any{"status": "done", "finished_at": start.UTC()}).Error)
	require.NoError(t, h.DB.Create(&storage.Frame{Log: turn.ID, Seq: 1, Type: "done", Data: "{}", CreatedAt: start.UTC()}).Error)
	require.NoError(t, h.DB.Create(&storage.ToolCall{ID: turn.ID + ".0.0", TurnID: turn.ID, Tool: "hub_create_task", Status: chat.CallHeld,
		HeldFor: chat.HeldForApply, CreatedAt: start.UTC(), UpdatedAt: start.UTC()}).Error)

	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); h.RunSweeper(sctx) }()
	t.Cleanup(func() { cancel(); <-done })

	require.Eventually(t, func() bool {
		var frames, tokens, held int64
		require.NoError(t, h.DB.Model(&storage.Frame{}).Where("log = ?", turn.ID).Count(&frames).Error)
		require.NoError(t, h.DB.Model(&storage.APIToken{}).Where("scope LIKE ?", "stream:%").Count(&tokens).Error)
		require.NoError(t, h.DB.Model(&storage.ToolCall{}).Where("status = ?", chat.CallHeld).Count(&held).Error)
		return frames == 0 && tokens == 0 && held == 0
	}, 10*time.Second, 10*time.Millisecond)
	var call storage.ToolCall
	require.NoError(t, h.DB.First(&call, "id = ?", turn.ID+".0.0").Error)
	require.Equal(t, chat.CallExpired, call.Status)
	_, err = h.Workspace.Authenticate(ctx, kept, "")
	require.NoError(t, err, "a token without expiry stays")
}

// One sweep on the real clock leaves what is young: a turn that just
// ended keeps its frames, a proposal made now stays held.
func TestSweepKeepsWhatIsYoung(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := wiring.New(ctx, config.Config{DatabaseURL: dbtest.SQLite(t)}, wiring.Options{})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	require.Equal(t, config.DefaultProposalTTL, h.Config.ProposalTTL, "a config without a TTL gets the default, not zero")
	require.NoError(t, h.DB.Create(&storage.Frame{Log: "turn_gone", Seq: 1, Type: "text", Data: "{}", CreatedAt: time.Now().UTC()}).Error)
	swept, err := h.Sweep(ctx, time.Now())
	require.NoError(t, err)
	require.Equal(t, wiring.Swept{}, swept)
	swept, err = h.Sweep(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, wiring.Swept{Frames: 1}, swept, "an orphan frame goes once older than the retention")
}

// healthyTemporal answers the readiness check; nothing else is called.
type healthyTemporal struct{ client.Client }

func (healthyTemporal) CheckHealth(context.Context, *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	return &client.CheckHealthResponse{}, nil
}

// /readyz asks the database the wiring opened: ready while it answers,
// 503 naming the database once it is closed.
func TestReadyzPingsTheDatabase(t *testing.T) {
	t.Parallel()
	h, err := wiring.New(context.Background(), config.Config{DatabaseURL: dbtest.SQLite(t)}, wiring.Options{})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h.API(healthyTemporal{}))
	t.Cleanup(srv.Close)
	ready := func() (int, map[string]any) {
		resp, err := http.Get(srv.URL + "/readyz")
		require.NoError(t, err)
		defer resp.Body.Close()
		var body struct{ Checks map[string]any }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		return resp.StatusCode, body.Checks
	}
	status, checks := ready()
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "ok", checks["database"])
	require.NoError(t, h.DB.Close())
	status, checks = ready()
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.NotEqual(t, "ok", checks["database"])
	require.Equal(t, "ok", checks["temporal"])
}

// A database handed in stays open after Close (its owner closes it), and
// the configured time zone reaches the activities.
func TestNewBuildsOnAnOpenDatabase(t *testing.T) {
	t.Parallel()
	db := dbtest.Open(t, dbtest.SQLite(t))
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	h, err := wiring.New(context.Background(), config.Config{TimeZone: berlin}, wiring.Options{DB: db})
	require.NoError(t, err)
	require.Same(t, db, h.DB)
	require.Equal(t, berlin, h.Activities.Location)
	require.False(t, h.Activities.ModelConfigured)
	h.Close()
	require.NoError(t, db.Ping(context.Background()))

	_, err = wiring.New(context.Background(), config.Config{}, wiring.Options{})
	require.ErrorContains(t, err, "DATABASE_URL is not set")
}

// A process that checks the schema (`hub api`, `hub worker`) refuses a
// database that is behind, naming what is pending, and changes nothing;
// with config.Config.Migrate (HUB_MIGRATE=1) it migrates and starts.
func TestNewChecksTheSchemaUnlessToldToMigrate(t *testing.T) {
	ctx := context.Background()
	url := dbtest.SQLite(t)
	_, err := wiring.New(ctx, config.Config{DatabaseURL: url}, wiring.Options{Schema: wiring.SchemaCheck})
	require.ErrorContains(t, err, "the database schema is behind this binary")
	require.ErrorContains(t, err, "00001_workspace.sql")
	require.ErrorContains(t, err, "run `hub migrate` first")
	db, err := storage.Open(ctx, url)
	require.NoError(t, err)
	pending, err := db.Pending(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, pending)
	all, err := db.Migrations(ctx)
	require.NoError(t, err)
	require.Equal(t, all, pending, "nothing was migrated")
	require.NoError(t, db.Close())

	h, err := wiring.New(ctx, config.Config{DatabaseURL: url, Migrate: true}, wiring.Options{Schema: wiring.SchemaCheck})
	require.NoError(t, err)
	h.Close()
	h, err = wiring.New(ctx, config.Config{DatabaseURL: url}, wiring.Options{Schema: wiring.SchemaCheck})
	require.NoError(t, err, "an up-to-date schema starts without migrating")
	h.Close()
}
