// Package wiring is the one place that builds Hub's parts from a config:
// the database, the workspace service, the chat store, the frame bus, the
// connected-apps client, the web reader and search provider, the tools and
// playbooks, the activities, and from them the api handler, the Temporal
// worker and the sweeper. cmd/hub (every process role) and hubtest (a whole
// Hub in a test) both call it, so a test runs what production runs,
// subscriptions and sweeps included.
//
// New builds what every role shares; a process then takes the roles it
// plays: API or ServeAPI (`hub api`), Worker, RunSweeper or RunWorker
// (`hub worker`), or both (`hub dev`, hubtest).
package wiring

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"

	"hub/activities"
	"hub/api"
	"hub/apps"
	"hub/assistant"
	"hub/chat"
	"hub/config"
	"hub/files"
	"hub/llm"
	"hub/mcpapps"
	"hub/notify"
	"hub/playbooks"
	"hub/storage"
	"hub/stream"
	"hub/tools"
	"hub/traces"
	"hub/usage"
	"hub/web"
	"hub/worker"
	"hub/workspace"
)

// Options are what the configuration does not say. What an operator can
// set — the model endpoint, the context window, the turn timeout, CORS
// origins, the apps allowlist, the HTTP limits, the time zone, the
// proposal TTL — is in config.Config, and tests vary it there.
type Options struct {
	// DB is an open, migrated database to build on; Close leaves it open.
	// Nil: New opens cfg.DatabaseURL and migrates it or checks it (Schema).
	DB *storage.DB
	// Schema says what New does with the schema of the database it opens:
	// migrate it (the zero value) or only check it.
	Schema Schema
	// Test holds the knobs only tests turn; production leaves it zero.
	Test TestKnobs
}

// TestKnobs vary what production never varies. Each is nil or zero in
// `hub api`, `hub worker` and `hub dev`.
type TestKnobs struct {
	// Fault fails an Apply activity at a named point (activities.Fault*):
	// the stand-in for a worker killed there.
	Fault func(point string) error
	// Verifier checks final answers (a surface's verify hook).
	Verifier assistant.Verifier
	// ExtraTools are registered beside Hub's (a large registry).
	ExtraTools []*tools.Definition
	// APITemporal wraps the Temporal client the api uses (a failing
	// workflow service); the worker keeps the client as it is.
	APITemporal func(client.Client) client.Client
	// MCPTimeout bounds one listing or call of an MCP server (0:
	// mcpapps.DefaultTimeout for listings and reads,
	// mcpapps.DefaultCallTimeout for writes).
	MCPTimeout time.Duration
	// SweepEvery is the sweeper's interval; 0 is SweepInterval.
	SweepEvery time.Duration
	// Tracer replaces the tracing cfg.Tracing asks for (a test's
	// in-memory provider, traces.With).
	Tracer *traces.Tracer
	// Price replaces the catalog's prices (activities.Activities.Price);
	// nil: the catalog's, zero for a model without a price.
	Price func(model string) llm.Price
	// Now is the sweeper's clock (frame retention and proposal expiry are
	// measured from it); nil is time.Now.
	Now func() time.Time
	// FailureLimits raise the api's failed sign-in limits (a test that
	// sends many bad tokens on purpose); zero fields are the defaults.
	FailureLimits api.FailureLimits
}

// Hub is one process's parts, built from one config. Its fields are for
// reading (a role's own wiring, a test's look inside); New sets them.
type Hub struct {
	Config    config.Config
	DB        *storage.DB
	Workspace *workspace.Service
	Chat      *chat.Store
	Files     *files.Service
	// Models are the operator's model catalog with a client per endpoint
	// (config.Config.Models, or the one model of config.Config.Model).
	Models *llm.Models
	// Notifier wakes the process's followers of both feeds (a turn's
	// frames, a person's activity): its one listener on Postgres, its one
	// poll. Frames and Chat register with it.
	Notifier *notify.Notifier
	Frames   *stream.Bus
	Apps     *apps.Client
	// MCP lists and calls the spaces' MCP servers' tools.
	MCP *mcpapps.Catalog
	// Web reads pages for hub_read_web_page, through the apps guard.
	Web        *web.Reader
	Tools      *tools.Registry
	Playbooks  []playbooks.Playbook
	Activities *activities.Activities
	// Usage keeps every model call's usage and the spaces' budgets.
	Usage *usage.Store
	// Metrics is the registry of the worker's series (the per-model
	// usage.Metrics, the Temporal SDK's of the clients DialTemporal
	// makes); the api of the same process exports it on /metrics beside
	// its own, `hub worker` on its HTTP listener (WorkerHTTP).
	Metrics *prometheus.Registry
	// Tracer makes the process's spans (off without an OTLP endpoint):
	// the api's requests, the database's statements, the model's calls;
	// the Temporal client takes its interceptors (DialTemporal).
	Tracer *traces.Tracer
	// Interrupts is shared by the api and the worker of one process, so a
	// Stop in `hub dev` (or a test) closes the model call at once.
	Interrupts *stream.Interrupts

	test       TestKnobs
	ownDB      bool
	workerOnce sync.Once // the interrupt subscription, with the first worker
	// leaversOnce: the removals' subscription (followLeavers), with the
	// first api or worker.
	leaversOnce sync.Once
	sweepMu     sync.Mutex

	// workerRunning: RunWorker's worker is started (WorkerHTTP's /readyz).
	workerRunning atomic.Bool
	// temporalMetrics reports the Temporal SDK's metrics of the clients
	// DialTemporal makes on Metrics.
	temporalMetrics client.MetricsHandler
}

// New builds a Hub from cfg: it opens and migrates the database (unless
// o.DB is given) and builds every shared part. Close it when done.
func New(ctx context.Context, cfg config.Config, o Options) (_ *Hub, err error) {
	// On an error, what was built so far is closed, last first.
	var built []func()
	defer func() {
		if err != nil {
			for _, undo := range slices.Backward(built) {
				undo()
			}
		}
	}()
	db, ownDB := o.DB, o.DB == nil
	if ownDB {
		if cfg.DatabaseURL == "" {
			return nil, errors.New("DATABASE_URL is not set: give a postgres:// URL or a SQLite file path")
		}
		if db, err = storage.Open(ctx, cfg.DatabaseURL); err != nil {
			return nil, err
		}
		built = append(built, func() { _ = db.Close() })
		if err := prepareSchema(ctx, db, o.Schema, cfg.Migrate); err != nil {
			return nil, err
		}
	}
	poster, err := apps.New(apps.Options{Allow: cfg.AppsAllow})
	if err != nil {
		return nil, err
	}
	built = append(built, poster.Close)
	reader, err := web.NewReader(web.ReaderOptions{Allow: cfg.AppsAllow})
	if err != nil {
		return nil, err
	}
	built = append(built, reader.Close)
	// No search provider, no web tools: the instructions say so.
	reg, books, err := assistant.NewRegistry(poster, tools.Web(web.NewSearcher(cfg.WebSearch, nil), reader)...)
	if err != nil {
		return nil, fmt.Errorf("tools and playbooks: %w", err)
	}
	for _, d := range o.Test.ExtraTools {
		reg.Add(d)
	}
	if cfg.TimeZone == nil {
		cfg.TimeZone = time.UTC
	}
	if cfg.ProposalTTL <= 0 { // a config not read by config.FromEnv
		cfg.ProposalTTL = config.DefaultProposalTTL
	}
	n := notify.New(db)
	h := &Hub{Config: cfg, DB: db, Notifier: n, Workspace: workspace.NewService(db), Chat: chat.NewStore(db, n), Frames: stream.NewBus(db, n),
		Apps: poster, Web: reader, Tools: reg, Playbooks: books, Interrupts: stream.NewInterrupts(), test: o.Test, ownDB: ownDB}
	guard, err := apps.NewGuard(cfg.AppsAllow)
	if err != nil {
		return nil, err
	}
	box, err := apps.NewSecretBox(cfg.SecretKey)
	if err != nil {
		return nil, err
	}
	h.MCP = mcpapps.New(h.Workspace, mcpapps.Options{Guard: guard, Box: box, Timeout: o.Test.MCPTimeout, CallTimeout: o.Test.MCPTimeout})
	built = append(built, h.MCP.Close)
	h.Workspace.SetAppConnector(h.MCP)
	store, err := files.NewStore(cfg.Files)
	if err != nil {
		return nil, err
	}
	h.Files = files.NewService(db, h.Workspace, store, cfg.Files.MaxBytes)
	h.Tracer = o.Test.Tracer
	if h.Tracer == nil {
		if h.Tracer, err = traces.Start(ctx, cfg.Tracing); err != nil {
			return nil, err
		}
	}
	if err := traceStatements(db, h.Tracer); err != nil {
		return nil, err
	}
	var modelHTTP *http.Client // nil: llm's own
	if h.Tracer.On() {
		modelHTTP = &http.Client{Transport: h.Tracer.Transport(http.DefaultTransport.(*http.Transport).Clone())}
	}
	model := llm.New(cfg.Model, modelHTTP)
	// Without HUB_MODELS the catalog is the one model of OPENAI_BASE_URL,
	// OPENAI_API_KEY and HUB_MODEL.
	cat := cfg.Models
	if len(cat.Models) == 0 {
		cat = llm.DefaultCatalog(cfg.Model)
	}
	h.Models = llm.NewModels(cat, model.Timeout(), modelHTTP)
	h.Workspace.SetModels(cat)
	h.Usage, h.Metrics = usage.NewStore(db), prometheus.NewRegistry()
	if err := h.Frames.Register(h.Metrics); err != nil {
		return nil, err
	}
	if err := h.Notifier.Register(h.Metrics); err != nil {
		return nil, err
	}
	h.temporalMetrics = worker.NewMetricsHandler(h.Metrics)
	h.Activities = &activities.Activities{
		Workspace: h.Workspace, Chat: h.Chat, Files: h.Files, Tools: h.Tools, MCP: h.MCP, Frames: h.Frames, Playbooks: h.Playbooks,
		Model: model, ModelConfigured: h.Models.Configured(), Models: h.Models, ModelTimeout: model.Timeout(),
		Location: cfg.TimeZone, Interrupts: h.Interrupts, ContextTokens: cfg.ContextTokens,
		Verifier: o.Test.Verifier, Fault: o.Test.Fault,
		Usage: h.Usage, Metrics: usage.NewMetrics(h.Metrics), Work: activities.NewWorkMetrics(h.Metrics), Price: o.Test.Price,
	}
	return h, nil
}

// Close stops the notifier (its listener, its poll, the followers it
// wakes), the frame bus and the apps client, and closes the database when
// New opened it. Stop the roles first: the api's streams and the worker's
// activities use them.
func (h *Hub) Close() {
	h.Notifier.Close()
	h.Frames.Close()
	h.Apps.Close()
	h.MCP.Close()
	h.Web.Close()
	if h.ownDB {
		_ = h.DB.Close()
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Tracer.Shutdown(sctx) // the spans not yet exported, within 5 s
}

// traceStatements makes a span of every SQL statement run on db in a trace
// (traces.Tracer.StatementStart), when tracing is on.
func traceStatements(db *storage.DB, t *traces.Tracer) error {
	if !t.On() {
		return nil
	}
	_, err := db.Observe("traces", storage.Observer{Before: t.StatementStart,
		After: func(span any, st storage.Statement) { traces.StatementEnd(span, st.SQL, st.Rows, st.Err) }})
	return err
}
