package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/singleflight"

	"hub/chat"
	"hub/files"
	"hub/identity"
	"hub/llm"
	"hub/mcpapps"
	"hub/retrieval"
	"hub/stream"
	"hub/traces"
	"hub/turns"
	"hub/usage"
	"hub/workspace"
)

// workflowClient is the part of the Temporal client the api uses.
type workflowClient interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
	CheckHealth(ctx context.Context, request *client.CheckHealthRequest) (*client.CheckHealthResponse, error)
	UpdateWithStartWorkflow(ctx context.Context, options client.UpdateWithStartWorkflowOptions) (client.WorkflowUpdateHandle, error)
	NewWithStartWorkflowOperation(options client.StartWorkflowOptions, workflow any, args ...any) client.WithStartWorkflowOperation
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
}

// Deps are what the api needs.
type Deps struct {
	// Ping checks the database for /readyz; nil: never ready.
	Ping      func(context.Context) error
	Workspace *workspace.Service
	Chat      *chat.Store
	Turns     *turns.Service
	Files     *files.Service
	// Retrieval shows the passages replies cite (nil: none).
	Retrieval *retrieval.Store
	// MCP lists a server's tools on connect and refresh (nil: at a turn's start only).
	MCP      *mcpapps.Catalog
	Frames   *stream.Bus
	Temporal workflowClient
	// TaskQueue is where turns and Applies start; "": workflows.DefaultTaskQueue.
	TaskQueue string
	// CORSOrigins may call the api from a browser; none by default.
	CORSOrigins []string
	// Metrics, when set, is exported on /metrics beside the api's own (`hub dev`: the worker's).
	Metrics prometheus.Gatherer
	// Usage answers /api/usage and keeps the spaces' monthly budgets.
	Usage *usage.Store
	// Interrupts closes model calls at once on Stop and Pause (nil: only the signal does).
	Interrupts *stream.Interrupts
	// Models is the catalog GET /api/models lists (keys and endpoints left out).
	Models llm.Catalog
	// TemporalNamespace and TemporalUI (base URL; "": none) link the run inspector to a workflow.
	TemporalNamespace string
	TemporalUI        string
	// Tracer makes a span of each request (nil or off: none).
	Tracer *traces.Tracer
	// TrustedProxies (IPs or CIDRs) may name the client, which the failed sign-in limiter keys
	// on, in X-Forwarded-For or X-Real-IP; none by default: the client is the connection's peer.
	TrustedProxies []string
	// FailureLimits bound failed sign-ins (limiter.go); only tests set it.
	FailureLimits FailureLimits
	// Identity verifies the identity provider's tokens; nil: only Hub's own tokens and sessions sign in.
	Identity *identity.Verifier
}

// Server is Hub's HTTP api.
type Server struct {
	Deps
	// applies joins identical Apply requests in flight (see apply).
	applies        singleflight.Group
	metrics        *metrics
	metricsHandler http.Handler
	failures       *failureLimiter
}

// New builds the router.
func New(d Deps) http.Handler {
	reg := prometheus.NewRegistry()
	s := &Server{Deps: d, metrics: newMetrics(reg), failures: newFailureLimiter(d.FailureLimits)}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	// gin trusts every proxy unless told otherwise (config.FromEnv checked each entry).
	if err := r.SetTrustedProxies(d.TrustedProxies); err != nil {
		panic(fmt.Sprintf("api: HUB_TRUSTED_PROXIES: %v", err))
	}
	r.HandleMethodNotAllowed = true
	if mw := s.Tracer.Middleware(); mw != nil {
		r.Use(mw) // first: the access line and every later handler run inside the request's span
	}
	r.Use(s.accessLog, s.recovery, s.metrics.observe, s.cors, refuseBadBytes)
	r.NoRoute(func(c *gin.Context) {
		respondError(c, newError(http.StatusNotFound, codeNotFound, "", "no such endpoint"))
	})
	r.NoMethod(func(c *gin.Context) {
		respondError(c, newError(http.StatusMethodNotAllowed, "method_not_allowed", "", "this endpoint does not take "+c.Request.Method))
	})

	gatherers := prometheus.Gatherers{reg}
	if d.Metrics != nil {
		gatherers = append(gatherers, d.Metrics)
	}
	s.metricsHandler = promhttp.HandlerFor(gatherers, promhttp.HandlerOpts{})

	for _, rt := range s.routes() {
		h := rt.handler
		if rt.reply != nil {
			h = replying(rt.answers[0].status, rt.reply)
		}
		if rt.auth == authBearer {
			r.Handle(rt.method, rt.path, s.authenticate, h)
		} else {
			r.Handle(rt.method, rt.path, h)
		}
	}
	return r
}

func (s *Server) recovery(c *gin.Context) {
	defer func() {
		if p := recover(); p != nil {
			slog.ErrorContext(c.Request.Context(), "handler panicked", "path", c.FullPath(), "panic", p)
			respondError(c, newError(http.StatusInternalServerError, codeInternal, "", "Hub failed to handle this request; it has been logged"))
		}
	}()
	c.Next()
}

func (s *Server) cors(c *gin.Context) {
	origin := c.GetHeader("Origin")
	if origin == "" || !slices.Contains(s.CORSOrigins, origin) {
		c.Next()
		return
	}
	h := c.Writer.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Vary", "Origin")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
	h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS")
	if c.Request.Method == http.MethodOptions {
		c.AbortWithStatus(http.StatusNoContent)
		return
	}
	c.Next()
}

// The statuses of /healthz and /readyz, and of each check that passed.
const (
	healthOK          = "ok"
	healthUnavailable = "unavailable"
)

// healthDTO answers /healthz.
type healthDTO struct {
	Status string `json:"status"`
}

// readinessDTO answers /readyz: each check's "ok", or why it failed.
type readinessDTO struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks" doc:"database and temporal: ok, or the error"`
}

func (s *Server) healthz(*gin.Context) (any, error) { return healthDTO{Status: healthOK}, nil }

func (s *Server) prometheus(c *gin.Context) { s.metricsHandler.ServeHTTP(c.Writer, c.Request) }

func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	checks := map[string]string{"database": healthOK, "temporal": healthOK}
	ok := true
	if s.Ping == nil {
		checks["database"], ok = "no database check configured", false
	} else if err := s.Ping(ctx); err != nil {
		checks["database"], ok = err.Error(), false
	}
	if _, err := s.Temporal.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		checks["temporal"], ok = err.Error(), false
	}
	status, code := healthOK, http.StatusOK
	if !ok {
		status, code = healthUnavailable, http.StatusServiceUnavailable
	}
	c.JSON(code, readinessDTO{Status: status, Checks: checks})
}
