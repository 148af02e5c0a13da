// Package config reads Hub's configuration from the environment, with
// defaults, into one struct. Names follow the ecosystem: OPENAI_*,
// TEMPORAL_*, DATABASE_URL; Hub's own start with HUB_.
package config

import (
	"cmp"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"hub/api"
	"hub/apps"
	"hub/assistant"
	"hub/files"
	"hub/identity"
	"hub/llm"
	"hub/traces"
	"hub/web"
	"hub/workflows"
)

// Config is everything a Hub process is configured with.
type Config struct {
	HTTPAddr          string // HUB_HTTP_ADDR, default :8080
	DatabaseURL       string // DATABASE_URL: postgres://… or a SQLite file path
	TemporalAddress   string // TEMPORAL_ADDRESS, default 127.0.0.1:7233
	TemporalNamespace string // TEMPORAL_NAMESPACE, default "default"
	// TaskQueue is the task queue Hub's workers poll and its api starts
	// turns on (HUB_TASK_QUEUE, default "hub"); two Hubs may share a
	// namespace on queues of their own.
	TaskQueue     string
	Tracing       traces.Settings // the standard OTEL_* variables; off without an OTLP endpoint
	TemporalUIURL string          // HUB_TEMPORAL_UI_URL, for links to a turn's workflow; empty: no links
	CORSOrigins   []string        // HUB_CORS_ORIGINS, comma-separated; none by default
	TimeZone      *time.Location
	Model         llm.Config
	Models        llm.Catalog // HUB_MODELS or HUB_MODELS_FILE; empty: the one model of Model
	// AppsAllow lists private addresses connected apps and web pages may
	// reach anyway (HUB_APPS_ALLOW); by default only public addresses.
	AppsAllow []string
	// TrustedProxies (HUB_TRUSTED_PROXIES, comma-separated IPs or CIDRs)
	// may name the client in X-Forwarded-For or X-Real-IP; by default the
	// client is the connection's peer.
	TrustedProxies []string
	// SecretKey seals connection secrets in the database (HUB_SECRET_KEY:
	// 32 random bytes, base64); without one, no secret can be stored.
	SecretKey []byte
	// WebSearch is the search provider (HUB_WEB_SEARCH_*); the zero value
	// is none, and then the web tools are not offered.
	WebSearch      web.SearchConfig
	ProposalTTL    time.Duration   // how long a held write waits for Apply (HUB_PROPOSAL_TTL)
	ContextTokens  int             // HUB_MODEL_CONTEXT_TOKENS; 0: the window known for the model
	TurnTimeout    time.Duration   // bounds a whole turn's wall time (HUB_TURN_TIMEOUT)
	HTTP           api.Limits      // what a client can hold of the api (HUB_HTTP_*)
	Files          files.Config    // where attached files are kept and how large (HUB_FILES_*)
	WorkerHTTPAddr string          // `hub worker`'s /metrics, /healthz and /readyz (HUB_WORKER_HTTP_ADDR)
	Log            Log             // HUB_LOG_FORMAT, HUB_LOG_LEVEL
	Temporal       TemporalClient  // TemporalFromEnv; `hub dev` embeds its server instead
	Migrate        bool            // HUB_MIGRATE=1: `hub api` and `hub worker` migrate at start (wiring.SchemaCheck)
	PprofAddr      string          // HUB_PPROF_ADDR, see pprofAddr; "" is off
	OIDC           identity.Config // HUB_OIDC_*: the provider whose tokens sign people in too; no issuer: off
}

// DefaultProposalTTL is how long a held write waits for Apply when
// HUB_PROPOSAL_TTL is not set.
const DefaultProposalTTL = 7 * 24 * time.Hour

// FromEnv reads the configuration; getenv is os.Getenv outside tests. A
// value that is present but wrong is an error, never silently replaced.
func FromEnv(getenv func(string) string) (Config, error) {
	useOS := getenv == nil
	if useOS {
		getenv = os.Getenv
	}
	var err error
	c := Config{
		HTTPAddr:       cmp.Or(getenv("HUB_HTTP_ADDR"), ":8080"),
		WorkerHTTPAddr: getenv("HUB_WORKER_HTTP_ADDR"),
		DatabaseURL:    getenv("DATABASE_URL"),
		TemporalUIURL:  strings.TrimRight(getenv("HUB_TEMPORAL_UI_URL"), "/"),
		TaskQueue:      cmp.Or(strings.TrimSpace(getenv("HUB_TASK_QUEUE")), workflows.DefaultTaskQueue),
		TimeZone:       time.UTC,
	}
	if c.Tracing, err = traces.FromEnv(getenv); err != nil {
		return Config{}, err
	}
	c.CORSOrigins, c.TrustedProxies = list(getenv("HUB_CORS_ORIGINS")), list(getenv("HUB_TRUSTED_PROXIES"))
	for _, p := range c.TrustedProxies {
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			return Config{}, fmt.Errorf("HUB_TRUSTED_PROXIES: %q is neither an IP nor a CIDR", p)
		}
	}
	if tz := getenv("HUB_TIME_ZONE"); tz != "" {
		if c.TimeZone, err = time.LoadLocation(tz); err != nil {
			return Config{}, fmt.Errorf("HUB_TIME_ZONE: %w", err)
		}
	}
	if c.Log, err = LogFromEnv(getenv); err != nil {
		return Config{}, err
	}
	if c.Temporal, err = TemporalFromEnv(getenv, useOS); err != nil {
		return Config{}, err
	}
	// TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE win over a profile; the
	// profile's fill in what they leave unset.
	o := &c.Temporal.Options
	c.TemporalAddress = cmp.Or(getenv("TEMPORAL_ADDRESS"), o.HostPort, "127.0.0.1:7233")
	c.TemporalNamespace = cmp.Or(getenv("TEMPORAL_NAMESPACE"), o.Namespace, "default")
	o.HostPort, o.Namespace = c.TemporalAddress, c.TemporalNamespace
	switch v := strings.TrimSpace(getenv("HUB_MIGRATE")); strings.ToLower(v) {
	case "", "0", "false":
	case "1", "true":
		c.Migrate = true
	default:
		return Config{}, fmt.Errorf("HUB_MIGRATE: want 1 or 0, not %q", v)
	}
	c.OIDC = identity.Config{Issuer: strings.TrimSpace(getenv("HUB_OIDC_ISSUER")), // as the provider's iss, a trailing slash and all
		ClientID:     strings.TrimSpace(getenv("HUB_OIDC_CLIENT_ID")),
		Audience:     cmp.Or(strings.TrimSpace(getenv("HUB_OIDC_AUDIENCE")), strings.TrimSpace(getenv("HUB_OIDC_CLIENT_ID"))),
		ClientSecret: strings.TrimSpace(getenv("HUB_OIDC_CLIENT_SECRET")),
		RedirectURL:  strings.TrimSpace(getenv("HUB_OIDC_REDIRECT_URL"))}
	if err := c.OIDC.Check(); err != nil {
		return Config{}, err
	}
	c.AppsAllow = apps.AllowFromEnv(getenv)
	if v := getenv(apps.EnvSecretKey); v != "" {
		if c.SecretKey, err = apps.ParseSecretKey(v); err != nil {
			return Config{}, err
		}
	}
	if c.WebSearch, err = web.SearchConfigFromEnv(getenv); err != nil {
		return Config{}, err
	}
	c.ProposalTTL = DefaultProposalTTL
	if v := getenv("HUB_PROPOSAL_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Minute {
			return Config{}, fmt.Errorf("HUB_PROPOSAL_TTL: want a duration of a minute or more, like 168h, not %q", v)
		}
		c.ProposalTTL = d
	}
	if c.Files, err = files.ConfigFromEnv(getenv); err != nil {
		return Config{}, err
	}
	if c.HTTP, err = api.LimitsFromEnv(getenv); err != nil {
		return Config{}, err
	}
	if c.ContextTokens, err = assistant.ParseContextTokens(getenv(assistant.ContextTokensEnv)); err != nil {
		return Config{}, fmt.Errorf("%s: %w", assistant.ContextTokensEnv, err)
	}
	if c.Model, err = llm.ConfigFromEnv(getenv); err != nil {
		return Config{}, err
	}
	if c.Models, err = llm.CatalogFromEnv(getenv, os.ReadFile); err != nil {
		return Config{}, err
	}
	if c.PprofAddr, err = pprofAddr(getenv("HUB_PPROF_ADDR")); err != nil {
		return Config{}, err
	}
	c.TurnTimeout = workflows.DefaultTurnTimeout(c.Model.Timeout)
	if v := getenv("HUB_TURN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Minute || d > 48*time.Hour {
			return Config{}, fmt.Errorf("HUB_TURN_TIMEOUT: want a duration from 1m to 48h, like 2h10m, not %q", v)
		}
		c.TurnTimeout = d
	}
	return c, nil
}

// LogValue keeps secrets out of logs.
func (c Config) LogValue() slog.Value {
	db := c.DatabaseURL
	if i := strings.Index(db, "@"); i > 0 && strings.Contains(db, "://") {
		db = db[:strings.Index(db, "://")+3] + "…" + db[i:]
	}
	return slog.GroupValue(
		slog.String("http", c.HTTPAddr), slog.String("database", db),
		slog.String("temporal", c.TemporalAddress), slog.String("namespace", c.TemporalNamespace),
		slog.String("taskQueue", c.TaskQueue),
		slog.Bool("temporalTLS", c.Temporal.Options.ConnectionOptions.TLS != nil), slog.Bool("temporalAPIKey", c.Temporal.APIKey),
		slog.Any("model", c.Model), slog.Any("models", c.Models), slog.String("webSearch", c.WebSearch.String()),
	)
}

// pprofAddr reads HUB_PPROF_ADDR: "" is off; a bare port ("6060") or
// ":6060" listens on loopback, so profiles reach the network only where
// the operator names a host; host:port is used as given.
func pprofAddr(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if !strings.Contains(v, ":") {
		v = ":" + v
	}
	host, port, err := net.SplitHostPort(v)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("HUB_PPROF_ADDR: want a port or host:port, like 6060 or 127.0.0.1:6060, not %q", v)
	}
	return net.JoinHostPort(cmp.Or(host, "127.0.0.1"), port), nil
}

// list is a comma-separated value's non-empty items, trimmed.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
