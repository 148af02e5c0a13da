package api

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.temporal.io/sdk/client"
	"golang.org/x/sync/singleflight"

	"hub/chat"
	"hub/files"
	"hub/llm"
	"hub/mcpapps"
	"hub/stream"
	"hub/traces"
	"hub/usage"
	"hub/workflows"
	"hub/workspace"
)

// workflowClient is the part of the Temporal client the api uses.
type workflowClient interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
	CheckHealth(ctx context.Context, request *client.CheckHealthRequest) (*client.CheckHealthResponse, error)
	UpdateWithStartWorkflow(ctx context.Context, options client.UpdateWithStartWorkflowOptions) (client.WorkflowUpdateHandle, error)
	NewWithStartWorkflowOperation(options client.StartWorkflowOptions, workflow any, args ...any) client.WithStartWorkflowOperation
}

// Deps are what the api needs.
type Deps struct {
	// Ping checks that the database answers, for /readyz (the wiring
	// passes models.DB.Ping); nil reports the database not ready.
	Ping      func(context.Context) error
	Workspace *workspace.Service
	Chat      *chat.Store
	// Files keeps the spaces' attached files.
	Files *files.Service
	// MCP lists an MCP server's tools when it is connected and refreshed
	// (nil: MCP servers are listed at a turn's start only).
	MCP      *mcpapps.Catalog
	Frames   *stream.Bus
	Temporal workflowClient
	// CORSOrigins may call the api from a browser; none by default.
	CORSOrigins []string
	// StreamTokenTTL is how long a turn's stream token is valid (≥ 1 hour).
	StreamTokenTTL time.Duration
	// Registry collects the api's metrics; nil uses a new one.
	Registry *prometheus.Registry
	// Metrics, when set, is exported on /metrics beside Registry: the
	// worker's per-model series in a process that runs both (`hub dev`).
	Metrics prometheus.Gatherer
	// Usage answers /api/usage and keeps the spaces' monthly budgets.
	Usage *usage.Store
	// Interrupts closes model calls at once on Stop and Pause (nil: only
	// the durable signal does).
	Interrupts *stream.Interrupts
	// TurnTimeout bounds a whole turn's wall time (HUB_TURN_TIMEOUT); 0
	// uses workflows.DefaultTurnTimeout.
	TurnTimeout time.Duration
	// Models is the operator's model catalog, listed by GET /api/models
	// (keys and endpoints left out).
	Models llm.Catalog
	// TemporalNamespace and TemporalUI (the UI's base URL; empty: none)
	// make the run inspector's link to a turn's workflow.
	TemporalNamespace string
	TemporalUI        string
	// Tracer makes a span of each request (nil or off: none).
	Tracer *traces.Tracer
}

// Server is Hub's HTTP api.
type Server struct {
	Deps
	// applies joins identical Apply requests in flight (see apply).
	applies singleflight.Group
	metrics *metrics
	routes  []route
}

// New builds the router.
func New(d Deps) http.Handler {
	if d.StreamTokenTTL < time.Hour {
		d.StreamTokenTTL = 2 * time.Hour
	}
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	s := &Server{Deps: d, metrics: newMetrics(d.Registry)}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	if mw := s.Tracer.Middleware(); mw != nil {
		r.Use(mw) // first: the access line and every later handler run inside the request's span
	}
	r.Use(s.accessLog, s.recovery, s.metrics.observe, s.cors, refuseBadBytes)
	r.NoRoute(func(c *gin.Context) {
		respondError(c, &apiError{status: http.StatusNotFound, detail: errorDetail{Code: codeNotFound, Message: "no such endpoint"}})
	})
	r.NoMethod(func(c *gin.Context) {
		respondError(c, &apiError{status: http.StatusMethodNotAllowed, detail: errorDetail{Code: "method_not_allowed", Message: "this endpoint does not take " + c.Request.Method}})
	})

	r.GET("/healthz", s.healthz)
	r.GET("/readyz", s.readyz)
	gatherers := prometheus.Gatherers{d.Registry}
	if d.Metrics != nil {
		gatherers = append(gatherers, d.Metrics)
	}
	r.GET("/metrics", gin.WrapH(promhttp.HandlerFor(gatherers, promhttp.HandlerOpts{})))

	api := r.Group("/api")
	api.GET("/openapi.json", s.openapi)
	// The stream authenticates itself: a browser's EventSource cannot send
	// a header, so it also takes the turn's stream token.
	api.GET("/assistant/turns/:turnId/stream", s.streamTurn)
	// The run inspector authenticates itself too: an operator token reads
	// any turn, a person's full token their own.
	s.handle(api, "GET", "/assistant/turns/:turnId/inspect", "What a turn's model saw and did (the run inspector)", s.inspectTurn)

	authed := api.Group("", s.authenticate)
	s.handle(authed, "GET", "/spaces", "List the spaces the person belongs to", s.listSpaces)
	s.handle(authed, "GET", "/spaces/:spaceId/tasks", "List tasks", s.listTasks)
	s.handle(authed, "POST", "/spaces/:spaceId/tasks", "Create a task", s.createTask)
	s.handle(authed, "GET", "/spaces/:spaceId/tasks/:id", "Get a task", s.getTask)
	s.handle(authed, "PATCH", "/spaces/:spaceId/tasks/:id", "Update a task", s.updateTask)
	s.handle(authed, "DELETE", "/spaces/:spaceId/tasks/:id", "Delete a task", s.deleteTask)
	s.handle(authed, "GET", "/spaces/:spaceId/projects", "List projects", s.listProjects)
	s.handle(authed, "POST", "/spaces/:spaceId/projects", "Create a project", s.createProject)
	s.handle(authed, "GET", "/spaces/:spaceId/projects/:id", "Get a project", s.getProject)
	s.handle(authed, "PATCH", "/spaces/:spaceId/projects/:id", "Update a project", s.updateProject)
	s.handle(authed, "DELETE", "/spaces/:spaceId/projects/:id", "Delete a project", s.deleteProject)
	s.handle(authed, "GET", "/spaces/:spaceId/people", "List the people of a space", s.listPeople)
	s.handle(authed, "POST", "/spaces/:spaceId/people", "Add a person to the space (owners only): a new one by name, or by personId someone from another of your spaces", s.addPerson)
	s.handle(authed, "GET", "/spaces/:spaceId/people/:id", "Get a person of the space", s.getPerson)
	s.handle(authed, "PATCH", "/spaces/:spaceId/people/:id", "Change a person's name, first name or role at their revision", s.updatePerson)
	s.handle(authed, "DELETE", "/spaces/:spaceId/people/:id", "Remove a person from the space (owners), or leave it (yourself)", s.deletePerson)
	s.handle(authed, "PATCH", "/spaces/:spaceId/members/:personId", "Change a member's role (owners only)", s.setMemberRole)
	s.handle(authed, "DELETE", "/spaces/:spaceId/members/:personId", "Remove a member from the space (owners), or leave it (yourself)", s.removeMember)
	s.handle(authed, "GET", "/spaces/:spaceId/connections", "List the space's connected apps", s.listConnections)
	s.handle(authed, "POST", "/spaces/:spaceId/connections", "Connect an app (a webhook or an MCP server) to the space", s.createConnection)
	s.handle(authed, "POST", "/spaces/:spaceId/connections/:id/refresh", "List a connected MCP server's tools again", s.refreshConnection)
	s.handle(authed, "DELETE", "/spaces/:spaceId/connections/:id", "Remove a connected app", s.deleteConnection)
	s.handle(authed, "GET", "/spaces/:spaceId/audit", "The space's audit log: connected apps, settings and people changed (owners)", s.listAudit)
	s.handle(authed, "POST", "/spaces/:spaceId/files", "Attach a file to the space (multipart, part file)", s.uploadFile)
	s.handle(authed, "GET", "/spaces/:spaceId/files", "List the space's files, newest first", s.listFiles)
	s.handle(authed, "GET", "/spaces/:spaceId/files/:id", "Get a file's name, type and size", s.getFile)
	s.handle(authed, "GET", "/spaces/:spaceId/files/:id/content", "Read a file's bytes", s.fileContent)
	s.handle(authed, "DELETE", "/spaces/:spaceId/files/:id", "Delete a file", s.deleteFile)
	s.handle(authed, "GET", "/models", "The models a person may choose for a turn or as their default", s.listModels)
	s.handle(authed, "GET", "/spaces/:spaceId/settings", "The space's settings: its monthly budget for model calls and this month's spend", s.getSpaceSettings)
	s.handle(authed, "PATCH", "/spaces/:spaceId/settings", "Change the space's settings (owners only): its monthly budget", s.updateSpaceSettings)
	s.handle(authed, "GET", "/usage", "Model usage and cost summed over a time range, by person, space, model or day", s.usage)
	s.handle(authed, "GET", "/me/settings", "The person's assistant settings", s.getSettings)
	s.handle(authed, "PATCH", "/me/settings", "Change the person's assistant settings", s.updateSettings)
	s.handle(authed, "GET", "/me/profile", "The person's profile: name, first name and persona", s.getProfile)
	s.handle(authed, "PATCH", "/me/profile", "Change the person's first name or persona (one sentence about their work)", s.updateProfile)
	s.handle(authed, "GET", "/me/skills", "The person's own skills", s.listSkills)
	s.handle(authed, "POST", "/me/skills", "Save a personal skill (enabled by default)", s.createSkill)
	s.handle(authed, "GET", "/me/skills/:id", "One of the person's skills", s.getSkill)
	s.handle(authed, "PATCH", "/me/skills/:id", "Change a personal skill at its version", s.updateSkill)
	s.handle(authed, "DELETE", "/me/skills/:id", "Delete a personal skill", s.deleteSkill)
	s.handle(authed, "POST", "/assistant/conversations", "Start a conversation", s.createConversation)
	s.handle(authed, "GET", "/assistant/conversations", "List conversations in a space", s.listConversations)
	s.handle(authed, "DELETE", "/assistant/conversations/:id", "Delete a conversation and end its running turn", s.deleteConversation)
	s.handle(authed, "GET", "/assistant/conversations/:id/messages", "A conversation's messages", s.listMessages)
	s.handle(authed, "POST", "/assistant/conversations/:id/turns", "Send a message: starts a turn", s.startTurn)
	s.handle(authed, "GET", "/assistant/turns/:turnId", "A turn's status", s.getTurn)
	s.handle(authed, "POST", "/assistant/turns/:turnId/retry", "Run a failed turn's message again", s.retryTurn)
	s.handle(authed, "POST", "/assistant/turns/:turnId/stop", "Stop a turn (keeps text, usage and receipts)", s.controlTurn(workflows.StopSignal))
	s.handle(authed, "POST", "/assistant/turns/:turnId/pause", "Pause a turn", s.controlTurn(workflows.PauseSignal))
	s.handle(authed, "POST", "/assistant/turns/:turnId/resume", "Resume a paused turn", s.controlTurn(workflows.ResumeSignal))
	s.handle(authed, "GET", "/agent/state", "The person's running work, for the top bar", s.agentState)
	// Like a turn's stream, the activity stream authenticates itself: the
	// bearer header, or a token from /agent/stream-token in the URL.
	s.handle(api, "GET", "/agent/stream", "The person's activity frames as Server-Sent Events: a snapshot of the top bar, then every change", s.agentStream)
	s.handle(authed, "POST", "/agent/stream-token", "A short-lived token that reads only the person's activity stream, for a URL (EventSource)", s.activityStreamToken)
	s.handle(authed, "POST", "/agent/stop", "Stop all of the person's running work", s.controlAll(workflows.StopSignal))
	s.handle(authed, "POST", "/agent/pause", "Pause all of the person's running work", s.controlAll(workflows.PauseSignal))
	s.handle(authed, "POST", "/agent/resume", "Resume all of the person's paused work", s.controlAll(workflows.ResumeSignal))
	s.handle(authed, "POST", "/assistant/undo", "Undo an Undo group: put its records back as they were", s.undo)
	s.handle(authed, "POST", "/assistant/redo", "Redo an undone Undo group", s.redo)
	s.handle(authed, "GET", "/assistant/needs-me", "Writes held for the person's Needs me list", s.needsMe)
	s.handle(authed, "GET", "/prompts", "Every prompt Hub sends the model, built with sample values, with its size and budget", s.listPrompts)
	s.handle(authed, "POST", "/assistant/apply", "Apply a reply's held writes; answers the receipts", s.apply)
	s.routes = append(s.routes, route{"GET", "/api/assistant/turns/:turnId/stream", "The turn's frames as Server-Sent Events"})
	return r
}

type route struct{ method, path, summary string }

func (s *Server) handle(g *gin.RouterGroup, method, path, summary string, h gin.HandlerFunc) {
	g.Handle(method, path, h)
	s.routes = append(s.routes, route{method, "/api" + path, summary})
}

func (s *Server) recovery(c *gin.Context) {
	defer func() {
		if p := recover(); p != nil {
			slog.ErrorContext(c.Request.Context(), "handler panicked", "path", c.FullPath(), "panic", p)
			respondError(c, &apiError{status: http.StatusInternalServerError, detail: errorDetail{Code: codeInternal, Message: "Hub failed to handle this request; it has been logged"}})
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

// What /healthz and /readyz answer as their status, and /readyz for each
// check that passed.
const (
	healthOK          = "ok"
	healthUnavailable = "unavailable"
)

func (s *Server) healthz(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": healthOK}) }

func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	checks := gin.H{"database": healthOK, "temporal": healthOK}
	ok := true
	if s.Ping == nil {
		checks["database"], ok = "no database check configured", false
	} else if err := s.Ping(ctx); err != nil {
		checks["database"], ok = err.Error(), false
	}
	if _, err := s.Temporal.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		checks["temporal"], ok = err.Error(), false
	}
	if !ok {
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": healthUnavailable, "checks": checks})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": healthOK, "checks": checks})
}

// openapi lists every endpoint with its summary: enough for a client to
// discover the api; docs/api.md is the contract.
func (s *Server) openapi(c *gin.Context) {
	paths := map[string]map[string]any{}
	for _, r := range s.routes {
		p := openapiPath(r.path)
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(r.method)] = map[string]any{"summary": r.summary, "responses": map[string]any{"default": map[string]any{"description": "See docs/api.md"}}}
	}
	c.JSON(http.StatusOK, gin.H{
		"openapi":    "3.1.0",
		"info":       gin.H{"title": "Hub", "version": "1"},
		"components": gin.H{"securitySchemes": gin.H{"bearer": gin.H{"type": "http", "scheme": "bearer"}}},
		"security":   []gin.H{{"bearer": []string{}}},
		"paths":      paths,
	})
}

func openapiPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}
