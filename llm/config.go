package llm

import (
	"cmp"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Environment variable names. They follow the OpenAI ecosystem so that any
// OpenAI-compatible endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp
// server, Hub's own fakemodel) is configured the way its documentation says.
const (
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvModel   = "HUB_MODEL"
	EnvTimeout = "HUB_MODEL_TIMEOUT"
)

// DefaultModel is used when HUB_MODEL is unset. It is only a starting point:
// deployments name their model explicitly.
const DefaultModel = "gpt-4.1-mini"

// Limits of one model call (README.md, "Environment"): a call waits at most
// the configured timeout, 15 minutes unless HUB_MODEL_TIMEOUT says
// otherwise, and the setting must stay between 30 seconds and 30 minutes so
// a typo can neither cut every answer short nor leave a turn waiting for
// hours.
const (
	DefaultTimeout = 15 * time.Minute
	MinTimeout     = 30 * time.Second
	MaxTimeout     = 30 * time.Minute
)

// Config says which model endpoint to call. The zero value is valid but not
// Configured: Stream then answers KindUnavailable instead of calling
// api.openai.com without a key.
type Config struct {
	// BaseURL is the endpoint's /v1 URL (OPENAI_BASE_URL); empty means OpenAI's.
	BaseURL string
	// APIKey is sent as a bearer token (OPENAI_API_KEY). Never logged: see String.
	APIKey string
	// Model is the model name sent with every request (HUB_MODEL).
	Model string
	// Timeout bounds one call (HUB_MODEL_TIMEOUT); 0 means DefaultTimeout.
	Timeout time.Duration
}

// ConfigFromEnv fills a Config from OPENAI_API_KEY, OPENAI_BASE_URL, HUB_MODEL
// and HUB_MODEL_TIMEOUT. getenv is os.Getenv in production and a map lookup in
// tests. An unset model falls back to DefaultModel; an unset timeout to
// DefaultTimeout; a timeout that does not parse or is out of range is an
// error, because silently replacing it would hide the operator's mistake.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		BaseURL: strings.TrimSpace(getenv(EnvBaseURL)),
		APIKey:  strings.TrimSpace(getenv(EnvAPIKey)),
		Model:   cmp.Or(strings.TrimSpace(getenv(EnvModel)), DefaultModel),
		Timeout: DefaultTimeout,
	}
	if raw := strings.TrimSpace(getenv(EnvTimeout)); raw != "" {
		d, err := ParseTimeout(raw)
		if err != nil {
			return Config{}, fmt.Errorf("%s: %w", EnvTimeout, err)
		}
		cfg.Timeout = d
	}
	return cfg, nil
}

// ParseTimeout reads a model-call timeout written as a Go duration ("15m",
// "90s") or as whole seconds ("900"), and checks it lies within
// [MinTimeout, MaxTimeout].
func ParseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, convErr := strconv.Atoi(s)
		if convErr != nil {
			return 0, fmt.Errorf("%q is not a duration (like 15m) or a number of seconds", s)
		}
		d = time.Duration(secs) * time.Second
	}
	if d < MinTimeout || d > MaxTimeout {
		return 0, fmt.Errorf("%s is outside the allowed %s to %s", d, MinTimeout, MaxTimeout)
	}
	return d, nil
}

// Configured reports whether an endpoint was named at all. A local server
// (Ollama, vLLM, fakemodel) needs only a base URL; OpenAI needs only a key.
// When false, Hub answers "unavailable" and names OPENAI_API_KEY and
// OPENAI_BASE_URL (see UnavailableMessage) instead of failing every turn with
// an authentication error from api.openai.com.
func (c Config) Configured() bool {
	return c.BaseURL != "" || c.APIKey != ""
}

// UnavailableMessage is the sentence shown when no model is configured.
const UnavailableMessage = "No model is configured: set " + EnvAPIKey +
	" (and " + EnvBaseURL + " for an OpenAI-compatible endpoint such as vLLM, Ollama or `hub fakemodel`)."

// String masks the API key so that a Config printed with %v or logged never
// leaks the secret.
func (c Config) String() string {
	return fmt.Sprintf("{BaseURL:%s APIKey:%s Model:%s Timeout:%s}",
		c.baseURLOrDefault(), maskKey(c.APIKey), c.Model, c.timeout())
}

// LogValue masks the API key in structured logs (slog would otherwise print
// the struct's fields, key included).
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("baseURL", c.baseURLOrDefault()),
		slog.String("apiKey", maskKey(c.APIKey)),
		slog.String("model", c.Model),
		slog.Duration("timeout", c.timeout()),
	)
}

// openAIBaseURL is where go-openai sends requests when no base URL is set.
const openAIBaseURL = "https://api.openai.com/v1"

func (c Config) baseURLOrDefault() string {
	return cmp.Or(c.BaseURL, openAIBaseURL)
}

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// maskKey keeps the last four characters of a long key so an operator can
// tell which key is in use without it being readable.
func maskKey(k string) string {
	switch {
	case k == "":
		return "(unset)"
	case len(k) <= 8:
		return "****"
	default:
		return "****" + k[len(k)-4:]
	}
}
