// Package wiring is the one place that builds Hub's parts from a config, and
// from them the api handler, the Temporal worker and the sweeper. cmd/hub and
// hubtest both call it, so a test runs what production runs.
//
// New builds what every role shares; a process then takes the roles it
// plays: API or ServeAPI (`hub api`), Worker, RunSweeper or RunWorker
// (`hub worker`), or both (`hub dev`, hubtest).
package wiring

import (
	"cmp"
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
	"hub/retrieval"
	"hub/storage"
	"hub/stream"
	"hub/tools"
	"hub/traces"
	"hub/turns"
	"hub/usage"
	"hub/web"
	"hub/worker"
	"hub/workflows"
	"hub/workspace"
)

// Options are what the configuration does not say; what an operator can
// set is in config.Config, and tests vary it there.
type Options struct {
	// DB is an open, migrated database to build on; Close leaves it open.
	// Nil: New opens cfg.DatabaseURL and migrates it or checks it (Schema).
	DB     *storage.DB
	Schema Schema    // what New does with the schema of the database it opens
	Test   TestKnobs // zero in production
}

// TestKnobs vary what production never varies; each is nil or zero there.
type TestKnobs struct {
	// Fault fails an Apply activity at a named point (activities.Fault*):
	// the stand-in for a worker killed there.
	Fault      func(point string) error
	Verifier   assistant.Verifier  // checks final answers
	ExtraTools []*tools.Definition // registered beside Hub's
	// APITemporal wraps the Temporal client the api uses (a failing
	// workflow service); the worker keeps the client as it is.
	APITemporal func(client.Client) client.Client
	MCPTimeout  time.Duration // one listing or call of an MCP server; 0: mcpapps' defaults
	SweepEvery  time.Duration // the sweeper's interval; 0 is SweepInterval
	// Tracer replaces the tracing cfg.Tracing asks for.
	Tracer *traces.Tracer
	// Price replaces the catalog's prices (activities.Activities.Price).
	Price func(model string) llm.Price
	Now   func() time.Time // the sweeper's clock; nil is time.Now
	// FailureLimits raise the api's failed sign-in limits; zero fields are the defaults.
	FailureLimits api.FailureLimits
}

// Hub is one process's parts, built from one config by New; its fields are
// for reading.
type Hub struct {
	Config    config.Config
	DB        *storage.DB
	Workspace *workspace.Service
	Chat      *chat.Store
	Files     *files.Service
	Retrieval *retrieval.Store // the spaces' passages and their search
	// Models are the operator's model catalog with a client per endpoint.
	Models *llm.Models
	// Notifier wakes the process's followers of both feeds (a turn's
	// frames, a person's activity) from its one listener and poll.
	Notifier   *notify.Notifier
	Frames     *stream.Bus
	Apps       *apps.Client
	MCP        *mcpapps.Catalog // the spaces' MCP servers' tools
	Web        *web.Reader      // reads pages, through the apps guard
	Tools      *tools.Registry
	Playbooks  []playbooks.Playbook
	Activities *activities.Activities
	Usage      *usage.Store // model calls' usage and the spaces' budgets
	// Metrics is the registry of the worker's series (per model, the
	// Temporal SDK's), exported on the api's /metrics and on WorkerHTTP.
	Metrics *prometheus.Registry
	Tracer  *traces.Tracer // the process's spans (off without an OTLP endpoint)
	// Interrupts is shared by the api and the worker of one process, so a
	// Stop there closes the model call at once.
	Interrupts *stream.Interrupts

	test        TestKnobs
	ownDB       bool
	workerOnce  sync.Once // the interrupt subscription, with the first worker
	leaversOnce sync.Once // followLeavers' subscription, with the first api or worker
	sweepMu     sync.Mutex

	workerRunning   atomic.Bool                       // RunWorker's worker is started (/readyz)
	starter         atomic.Pointer[workflows.Starter] // the first worker's client: the sweeper starts indexing with it
	temporalMetrics client.MetricsHandler             // the SDK's metrics, on Metrics
}

// New builds a Hub from cfg: it opens and migrates the database (unless
// o.DB is given) and builds every shared part. Close it when done.
func New(ctx context.Context, cfg config.Config, o Options) (_ *Hub, err error) {
	// On an error, what was built is closed, last first.
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
	passages := retrieval.NewStore(db)
	// No search provider, no web tools: the instructions say so.
	extra := append(tools.Web(web.NewSearcher(cfg.WebSearch), reader), tools.SearchFiles(passages), tools.FindPhrase(passages))
	reg, books, err := assistant.NewRegistry(poster, extra...)
	if err != nil {
		return nil, fmt.Errorf("tools and playbooks: %w", err)
	}
	for _, d := range o.Test.ExtraTools {
		reg.Add(d)
	}
	cfg.TimeZone = cmp.Or(cfg.TimeZone, time.UTC)
	if cfg.ProposalTTL <= 0 { // a config not read by config.FromEnv
		cfg.ProposalTTL = config.DefaultProposalTTL
	}
	n := notify.New(db)
	frames := stream.NewBus(db, n)
	h := &Hub{Config: cfg, DB: db, Notifier: n, Workspace: workspace.NewService(db), Chat: chat.NewStore(db, frames), Frames: frames,
		Retrieval: passages, Apps: poster, Web: reader, Tools: reg, Playbooks: books, Interrupts: stream.NewInterrupts(), test: o.Test, ownDB: ownDB}
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
	// Without HUB_MODELS the catalog is the one model of OPENAI_*/HUB_MODEL.
	cat := cfg.Models
	if len(cat.Models) == 0 {
		cat = llm.DefaultCatalog(cfg.Model)
	}
	h.Models = llm.NewModels(cat, model.Timeout(), modelHTTP)
	if e, ok := h.Models.Embedder(); ok {
		h.Retrieval.Embedder = e
	}
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
		Workspace: h.Workspace, Chat: h.Chat, Files: h.Files, Retrieval: h.Retrieval, Tools: h.Tools, MCP: h.MCP, Frames: h.Frames, Playbooks: h.Playbooks,
		Model: model, ModelConfigured: h.Models.Configured(), Models: h.Models, ModelTimeout: model.Timeout(),
		Location: cfg.TimeZone, Interrupts: h.Interrupts, ContextTokens: cfg.ContextTokens,
		Verifier: o.Test.Verifier, Fault: o.Test.Fault,
		Usage: h.Usage, Metrics: usage.NewMetrics(h.Metrics), Work: activities.NewWorkMetrics(h.Metrics), Price: o.Test.Price,
		// A firing's turn is saved as the api saves a message's; the
		// firing workflow starts it.
		Scheduler: &turns.Service{Workspace: h.Workspace, Chat: h.Chat, Files: h.Files, TurnTimeout: cfg.TurnTimeout},
	}
	return h, nil
}

// Close stops the shared parts and closes the database when New opened it.
// Stop the roles first: they use them.
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

// traceStatements makes a span of every SQL statement run in a trace.
func traceStatements(db *storage.DB, t *traces.Tracer) error {
	if !t.On() {
		return nil
	}
	_, err := db.Observe("traces", storage.Observer{Before: t.StatementStart,
		After: func(span any, st storage.Statement) { traces.StatementEnd(span, st.SQL, st.Rows, st.Err) }})
	return err
}
