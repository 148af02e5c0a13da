// Package hubtest starts a whole Hub in a test: an embedded Temporal server
// (on a free port; one for the whole test process, each stack on a task
// queue of its own, when the package's TestMain runs through Main), a real
// database (Postgres from dbtest, or a SQLite
// file), the scripted model over real HTTP, and the parts package wiring
// builds for `hub dev` — the worker, the sweeper, and the api behind an
// httptest server with the limits of `hub api`. Tests then talk
// to Hub only through its HTTP api, as a client would. Everything started
// is stopped at test cleanup.
package hubtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"

	"hub/activities"
	"hub/api"
	"hub/apps"
	"hub/assistant"
	"hub/chat"
	"hub/config"
	"hub/dbtest"
	"hub/fakemodel"
	"hub/llm"
	"hub/notify"
	"hub/storage"
	"hub/stream"
	"hub/temporal"
	"hub/tools"
	"hub/traces"
	"hub/wiring"
	"hub/workflows"
	"hub/workspace"
)

// Options choose the parts. What `hub api` and `hub worker` read from
// the environment is read the same way (config.FromEnv) from Env, then the
// fields below override it.
type Options struct {
	// SQLite runs on a SQLite file instead of Postgres.
	SQLite bool
	// Env is the environment as an operator would set it (HUB_TIME_ZONE,
	// HUB_PROPOSAL_TTL, …); the test process's own environment is not
	// read, so the machine's variables never change a test.
	Env map[string]string
	// Script is the model's script; NoModel leaves the model unconfigured.
	Script  fakemodel.Script
	NoModel bool
	// ModelTimeout bounds one model call (default 15 minutes); the turn's
	// default bound follows from it as in config.FromEnv.
	ModelTimeout time.Duration
	// CORSOrigins may call the api from a browser.
	CORSOrigins []string
	// AppsAllow lets connected apps reach these private addresses (a
	// test's own httptest server).
	AppsAllow []string
	// Verifier checks final answers (a surface's verify hook).
	Verifier assistant.Verifier
	// ExtraTools are registered beside Hub's (a test's large registry).
	ExtraTools []*tools.Definition
	// ContextTokens overrides the model's context window.
	ContextTokens int
	// Fault fails an Apply activity at a named point (activities.Fault*).
	Fault func(point string) error
	// TurnTimeout bounds a whole turn's wall time (0: the default).
	TurnTimeout time.Duration
	// HTTPLimits bound the api's connections (zero fields: the defaults of
	// `hub api`).
	HTTPLimits api.Limits
	// APITemporal wraps the Temporal client the api uses (a test's failing
	// workflow service); nil: the api uses Stack.Temporal as it is.
	APITemporal func(client.Client) client.Client
	// Price is what a model costs (wiring.TestKnobs.Price); nil: free.
	Price func(model string) llm.Price
	// Tracer traces the Hub (api, Temporal client and worker, database,
	// model calls) into a test's provider (traces.With); nil: off.
	Tracer *traces.Tracer
	// MCPTimeout bounds one listing or call of an MCP server (0: the
	// defaults of `hub api`).
	MCPTimeout time.Duration
	// OwnTemporal starts an embedded Temporal server for this stack alone
	// even when the package shares one (Main): for a test that needs the
	// server to itself (it lists or counts the namespace's workflows, or
	// measures the server). The stack then polls the default task queue.
	OwnTemporal bool
	// FailureLimits raise the api's failed sign-in limits (api.FailureLimits;
	// zero fields: the defaults of `hub api`), for a test that sends many
	// bad tokens from one address on purpose.
	FailureLimits api.FailureLimits
	// SweepEvery is how often the stack's sweeper runs (0: every
	// wiring.SweepInterval, as in `hub worker`). A test that needs a sweep
	// at a moment of its own calls Stack.Sweep.
	SweepEvery time.Duration
}

// Stack is a running Hub.
type Stack struct {
	URL       string // the api's base URL
	Token     string // the owner's bearer token
	SpaceID   string // the owner's space, "Team"
	OwnerID   string
	Model     *fakemodel.Server
	DB        *storage.DB
	Workspace *workspace.Service
	Temporal  client.Client
	HTTP      *http.Client
	// Chat and Activities let benchmarks run the turn loop without Temporal.
	Chat       *chat.Store
	Activities *activities.Activities
	// Notifier wakes the Hub's followers; a test stretches its poll to
	// prove a frame came another way.
	Notifier *notify.Notifier

	hub      *wiring.Hub
	dbURL    string
	workerMu sync.Mutex
	worker   sdkworker.Worker // nil while stopped
}

// Start runs a Hub for the test, built by package wiring as `hub dev`
// builds one: the worker, the api and the sweeper of one process.
func Start(t testing.TB, o Options) *Stack {
	t.Helper()
	ctx := context.Background()
	url := ""
	if o.SQLite {
		url = dbtest.SQLite(t)
	} else {
		url = dbtest.Postgres(t)
	}
	db := dbtest.Open(t, url)

	ts, queue := sharedTemporal(t, o)
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	interceptors, err := o.Tracer.TemporalInterceptors()
	require.NoError(t, err)
	c, err := client.Dial(client.Options{HostPort: ts.FrontendHostPort(), Namespace: ts.Namespace(),
		Logger: sdklog.NewStructuredLogger(quiet), Interceptors: interceptors})
	require.NoError(t, err)
	t.Cleanup(c.Close)

	s := &Stack{DB: db, Temporal: c, HTTP: &http.Client{}, dbURL: url}
	// Runs once Hub stopped, before the database closes.
	t.Cleanup(func() { noIDsInToolErrors(t, db) })
	cfg := s.config(t, o, url)
	if queue != "" {
		cfg.TaskQueue = queue
	}
	s.hub, err = wiring.New(ctx, cfg, wiring.Options{DB: db, Test: wiring.TestKnobs{Fault: o.Fault, Verifier: o.Verifier,
		ExtraTools: o.ExtraTools, APITemporal: o.APITemporal, SweepEvery: o.SweepEvery, MCPTimeout: o.MCPTimeout, Price: o.Price,
		Tracer: o.Tracer, FailureLimits: o.FailureLimits}})
	require.NoError(t, err)
	t.Cleanup(s.hub.Close) // after the api, the sweeper and the worker stop (cleanups run last first)
	s.Workspace, s.Chat, s.Activities, s.Notifier = s.hub.Workspace, s.hub.Chat, s.hub.Activities, s.hub.Notifier
	s.StartWorker(t)
	t.Cleanup(s.StopWorker)
	sctx, stopSweeper := context.WithCancel(ctx)
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		s.hub.RunSweeper(sctx)
	}()
	t.Cleanup(func() { stopSweeper(); <-swept })

	srv := serveAPI(s.hub.HTTPServer(c))
	t.Cleanup(srv.Close)
	s.URL = srv.URL

	s.SpaceID, s.OwnerID, err = s.Workspace.EnsureMember(ctx, "Team", "Mira Chen", workspace.RoleOwner)
	require.NoError(t, err)
	s.Token, err = s.Workspace.CreateToken(ctx, s.OwnerID, "", 0)
	require.NoError(t, err)
	return s
}

// shared is the embedded Temporal server the stacks of a test process share
// when its TestMain runs through Main: started by the first Start that
// wants it, stopped by Main after the last test.
var shared struct {
	on   bool // Main runs the tests
	once sync.Once
	dir  string
	ts   *temporal.Server
	err  error
}

// Main runs a test package's tests with one embedded Temporal server for
// every Stack that does not ask for its own (Options.OwnTemporal), and
// stops it after the last; each Stack then runs on a task queue of its own
// in the server's default namespace, so one test's workers never take
// another's turns. Call it from TestMain in place of m.Run:
//
//	func TestMain(m *testing.M) { os.Exit(hubtest.Main(m)) }
//
// Without it, every Start starts a server of its own.
func Main(m *testing.M) int {
	shared.on = true
	code := m.Run()
	if shared.ts != nil {
		if err := shared.ts.Stop(); err != nil {
			slog.Warn("stop the shared Temporal server", "error", err)
		}
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	return code
}

// sharedTemporal returns the Temporal server the stack uses and the task
// queue it runs on: the process's shared server and a queue of its own
// (Main), or a server of the test's own and "" (the configured queue).
func sharedTemporal(t testing.TB, o Options) (*temporal.Server, string) {
	t.Helper()
	if !shared.on || o.OwnTemporal {
		ts, err := startTemporal(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(func() { _ = ts.Stop() })
		return ts, ""
	}
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "hubtest-temporal-"); shared.err != nil {
			return
		}
		shared.ts, shared.err = startTemporal(shared.dir)
	})
	require.NoError(t, shared.err, "the shared Temporal server")
	return shared.ts, storage.NewID("hub")
}

// startTemporal starts an embedded Temporal server with Hub's search
// attributes on a free port. It keeps its data in a SQLite file in dir, as
// in `hub dev`: under many concurrent requests the in-memory
// (shared-cache) database let a history read see a half-written batch
// ("premature end of stream").
func startTemporal(dir string) (*temporal.Server, error) {
	return temporal.Start(context.Background(), temporal.Options{FrontendAddr: "127.0.0.1:0", SearchAttributes: workflows.SearchAttributes(),
		DatabaseFile: filepath.Join(dir, "temporal.db")})
}

// config is the stack's configuration: o.Env read as `hub api` reads the
// environment, the model pointed at the scripted one (started here unless
// o.NoModel), then the options that override it.
func (s *Stack) config(t testing.TB, o Options, databaseURL string) config.Config {
	t.Helper()
	cfg, err := config.FromEnv(func(k string) string { return o.Env[k] })
	require.NoError(t, err)
	cfg.DatabaseURL = databaseURL
	if cfg.Files.Dir == "" && !cfg.Files.S3.Configured() {
		// Files are kept as in `hub dev`: a local directory.
		cfg.Files.Dir = filepath.Join(t.TempDir(), "files")
	}
	cfg.Model.Model, cfg.Model.BaseURL, cfg.Model.APIKey = "fakemodel", "", ""
	if !o.NoModel {
		s.Model = fakemodel.New(o.Script)
		base, err := s.Model.Start("127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Model.Close() })
		cfg.Model.BaseURL, cfg.Model.APIKey = base, "test"
	}
	if o.ModelTimeout > 0 {
		cfg.Model.Timeout = o.ModelTimeout
		if o.Env["HUB_TURN_TIMEOUT"] == "" {
			cfg.TurnTimeout = workflows.DefaultTurnTimeout(o.ModelTimeout)
		}
	}
	if o.TurnTimeout > 0 {
		cfg.TurnTimeout = o.TurnTimeout
	}
	if o.ContextTokens > 0 {
		cfg.ContextTokens = o.ContextTokens
	}
	cfg.CORSOrigins = append(cfg.CORSOrigins, o.CORSOrigins...)
	cfg.AppsAllow = append(cfg.AppsAllow, o.AppsAllow...)
	if cfg.SecretKey == nil {
		// Connection secrets are sealed as in production, with a key of
		// the test's own (HUB_SECRET_KEY in Env replaces it).
		key, err := apps.ParseSecretKey(apps.NewSecretKey())
		require.NoError(t, err)
		cfg.SecretKey = key
	}
	l := o.HTTPLimits
	for _, f := range []struct{ from, into *time.Duration }{
		{&l.ReadHeader, &cfg.HTTP.ReadHeader}, {&l.Body, &cfg.HTTP.Body}, {&l.Idle, &cfg.HTTP.Idle}, {&l.SSEKeepAlive, &cfg.HTTP.SSEKeepAlive},
	} {
		if *f.from > 0 {
			*f.into = *f.from
		}
	}
	if l.MaxConns > 0 {
		cfg.HTTP.MaxConns = l.MaxConns
	}
	return cfg
}

// serveAPI serves the api's server (wiring.Hub.HTTPServer: the timeouts
// and connection cap of `hub api`) on a loopback port.
func serveAPI(hs *api.HTTPServer) *httptest.Server {
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = hs.Server
	srv.Listener = hs.Listener(srv.Listener)
	srv.Start()
	return srv
}

// Sweep runs one sweep of the stack's sweeper now, as of the clock time
// now (frames and proposals age against it; tokens against the real
// clock), and returns what it removed. The background sweeper may have
// removed some of it already: assert what is left, not the counts.
func (s *Stack) Sweep(t testing.TB, now time.Time) wiring.Swept {
	t.Helper()
	swept, err := s.hub.Sweep(context.Background(), now)
	require.NoError(t, err)
	return swept
}

// Config is the configuration the stack was built from.
func (s *Stack) Config() config.Config { return s.hub.Config }

// Member adds a person with a role to a space (created if missing) and
// returns their token and space id.
func (s *Stack) Member(t testing.TB, space, person string, role workspace.Role) (token, spaceID string) {
	t.Helper()
	spaceID, personID, err := s.Workspace.EnsureMember(context.Background(), space, person, role)
	require.NoError(t, err)
	token, err = s.Workspace.CreateToken(context.Background(), personID, "", 0)
	require.NoError(t, err)
	return token, spaceID
}

// Response is an HTTP answer with its body read.
type Response struct {
	Status int
	Body   []byte
	Header http.Header
}

// JSON decodes the body into a generic value.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &v), "body: %s", r.Body)
	return v
}

// Decode decodes the body into v.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.Body, v), "body: %s", r.Body)
}

// Do sends a request with the token (none when token is ""); body is sent
// as is when it is a string or []byte, else as JSON.
func (s *Stack) Do(t testing.TB, token, method, path string, body any) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return Response{Status: resp.StatusCode, Body: raw, Header: resp.Header}
}

// Conversation creates a conversation in the owner's space.
func (s *Stack) Conversation(t testing.TB) string {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/assistant/conversations", map[string]any{"spaceId": s.SpaceID, "title": "test"})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)["id"].(string)
}

// Started is the 202 answer to a new turn.
type Started struct {
	TurnID         string `json:"turnId"`
	MessageID      string `json:"messageId"`
	ReplyMessageID string `json:"replyMessageId"`
	StreamURL      string `json:"streamUrl"`
}

// Ask posts a message and returns the started turn.
func (s *Stack) Ask(t testing.TB, conversationID, text string) Started {
	t.Helper()
	r := s.Do(t, s.Token, "POST", "/api/assistant/conversations/"+conversationID+"/turns", map[string]any{"text": text})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	var st Started
	r.Decode(t, &st)
	return st
}

// Event is one SSE event.
type Event struct {
	ID   int64
	Type string
	Data map[string]any
}

// Stream reads a turn's events from the stream URL (after lastEventID when
// it is > 0) until the done event, or until stopAfter events when it is > 0
// (then it disconnects). It fails the test after a minute.
func (s *Stack) Stream(t testing.TB, streamURL string, lastEventID int64, stopAfter int) []Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+streamURL, nil)
	require.NoError(t, err)
	if lastEventID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastEventID, 10))
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var events []Event
	var cur Event
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Type == "" {
				continue
			}
			events = append(events, cur)
			if cur.Type == stream.TypeDone || (stopAfter > 0 && len(events) == stopAfter) {
				return events
			}
			cur = Event{}
		case strings.HasPrefix(line, "id: "):
			cur.ID, err = strconv.ParseInt(line[4:], 10, 64)
			require.NoError(t, err)
		case strings.HasPrefix(line, "event: "):
			cur.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			require.NoError(t, json.Unmarshal([]byte(line[6:]), &cur.Data), "data: %s", line)
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("stream ended without a done event after %d events", len(events))
	return nil
}

// Text joins the text deltas of events, dropping the partial text of a
// failed model attempt when a status event says to discard it (the text
// since the status event before it, not counting paused and stopping), and all of
// it at a status event with "reset" (a reset run's new attempt): what a
// client does.
func Text(events []Event) string {
	var b strings.Builder
	stepStart := 0
	for _, e := range events {
		switch e.Type {
		case "status":
			if st := e.Data["status"]; st == "paused" || st == "stopping" {
				continue // the person's pause or stop: the step's text goes on
			}
			if r, _ := e.Data["reset"].(bool); r {
				b.Reset()
				stepStart = 0
				continue
			}
			if d, _ := e.Data["discard"].(bool); d {
				s := b.String()[:stepStart]
				b.Reset()
				b.WriteString(s)
			}
			stepStart = b.Len()
		case "text":
			b.WriteString(e.Data["delta"].(string))
		}
	}
	return b.String()
}

// AwaitStatus polls the turn until it reaches a final status and returns it.
func (s *Stack) AwaitStatus(t testing.TB, turnID string) map[string]any {
	t.Helper()
	var last map[string]any
	require.Eventually(t, func() bool {
		r := s.Do(t, s.Token, "GET", "/api/assistant/turns/"+turnID, nil)
		last = r.JSON(t)
		st := chat.Status(last["status"].(string))
		return st.Final()
	}, time.Minute, 20*time.Millisecond)
	return last
}

// StartWorker starts a worker for the stack's task queue (Start starts
// one); with StopWorker it stands for a worker process being replaced.
func (s *Stack) StartWorker(t testing.TB) {
	t.Helper()
	s.workerMu.Lock()
	defer s.workerMu.Unlock()
	require.Nil(t, s.worker, "a worker is running already")
	w := s.hub.Worker(s.Temporal)
	require.NoError(t, w.Start())
	s.worker = w
}

// StopWorker stops the running worker, as a deploy or a crash of the
// worker process would: the model call it runs is cut off (its context
// ends) and the activity is retried on whatever worker polls next. It
// does nothing when no worker runs.
func (s *Stack) StopWorker() {
	s.workerMu.Lock()
	defer s.workerMu.Unlock()
	if s.worker != nil {
		s.worker.Stop()
		s.worker = nil
	}
}

// API is a further api server over the stack's database and Temporal, as
// another api process would be: built by wiring from the stack's
// configuration, with its own connection pool, frame bus and in-process
// interrupts (which reach no model call: no worker runs there).
type API struct {
	URL  string
	srv  *httptest.Server
	hub  *wiring.Hub
	once sync.Once
}

// StartAPI starts another api server; it stops at test cleanup or on Kill.
func (s *Stack) StartAPI(t testing.TB) *API {
	t.Helper()
	h, err := wiring.New(context.Background(), s.hub.Config, wiring.Options{DB: dbtest.Open(t, s.dbURL)})
	require.NoError(t, err)
	a := &API{hub: h}
	a.srv = serveAPI(h.HTTPServer(s.Temporal))
	a.URL = a.srv.URL
	t.Cleanup(a.Kill)
	return a
}

// Kill ends the api server the way a crash does: every connection is cut
// where it is (an SSE client sees its stream break, not end), then the
// server and its bus stop.
func (a *API) Kill() {
	a.once.Do(func() {
		a.srv.CloseClientConnections()
		a.srv.Close()
		a.hub.Close()
	})
}

// EventStream is an open Server-Sent Events response, read event by event,
// for tests that need more than Stream: a stream that breaks, one that
// never sends done (the activity stream), a server other than the stack's.
type EventStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

// OpenEvents opens the SSE endpoint at url, sending token as the bearer
// token and lastEventID as Last-Event-ID (each unless ""). It stops
// reading when ctx ends; Close it when done.
func (s *Stack) OpenEvents(ctx context.Context, t testing.TB, url, token, lastEventID string) *EventStream {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := s.HTTP.Do(req)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return &EventStream{resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// Next returns the next event, or an error when the stream breaks or
// ends (io.EOF) first.
func (e *EventStream) Next() (Event, error) {
	var cur Event
	for e.sc.Scan() {
		line := e.sc.Text()
		switch {
		case line == "":
			if cur.Type != "" {
				return cur, nil
			}
		case strings.HasPrefix(line, "id: "):
			n, err := strconv.ParseInt(line[4:], 10, 64)
			if err != nil {
				return Event{}, err
			}
			cur.ID = n
		case strings.HasPrefix(line, "event: "):
			cur.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &cur.Data); err != nil {
				return Event{}, err
			}
		}
	}
	if err := e.sc.Err(); err != nil {
		return Event{}, err
	}
	return Event{}, io.EOF
}

// Close ends the request.
func (e *EventStream) Close() { _ = e.resp.Body.Close() }

// hubID is a Hub id (storage.NewID).
var hubID = regexp.MustCompile(`\b[a-z]+_[a-z2-7]{16}\b`)

// noIDsInToolErrors sweeps what a test's turns and Applies saved of tool
// errors (the calls' messages and what the model was sent back, receipts,
// workflow steps): the model and the person read them, and they name no ids
// (seed 000 §4.1).
func noIDsInToolErrors(t testing.TB, db *storage.DB) {
	if t.Failed() {
		return
	}
	var texts []string
	q := db.WithContext(context.Background())
	for _, sql := range []string{
		"SELECT error_message FROM tool_calls WHERE error_message <> ''",
		"SELECT result FROM tool_calls WHERE status = 'failed' AND result <> ''",
		"SELECT error_message FROM receipts WHERE error_message <> ''",
		"SELECT error_message FROM workflow_steps WHERE error_message <> ''",
	} {
		var got []string
		if err := q.Raw(sql).Scan(&got).Error; err != nil {
			t.Errorf("sweep tool errors: %s: %v", sql, err)
			return
		}
		texts = append(texts, got...)
	}
	for _, text := range texts {
		if id := hubID.FindString(text); id != "" {
			t.Errorf("a tool error names the id %s: %s", id, text)
		}
	}
}
