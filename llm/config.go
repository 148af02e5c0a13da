package llm

import (
	"cmp"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Environment variable names, the OpenAI ecosystem's, so any compatible
// endpoint is configured the way its documentation says.
const (
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvModel   = "HUB_MODEL"
	EnvTimeout = "HUB_MODEL_TIMEOUT"
	// EnvEmbeddingsModel names the embeddings model of a Hub without
	// HUB_MODELS (a catalog names its own, "embeddings").
	EnvEmbeddingsModel = "HUB_EMBEDDINGS_MODEL"
)

// DefaultModel is used when HUB_MODEL is unset.
const DefaultModel = "gpt-4.1-mini"

// Limits of one model call (README.md, "Environment"): the bounds keep a
// typo from cutting every answer short or leaving a turn waiting for hours.
const (
	DefaultTimeout = 15 * time.Minute
	MinTimeout     = 30 * time.Second
	MaxTimeout     = 30 * time.Minute
)

// Config says which model endpoint to call. The zero value is valid but not
// Configured: Stream then answers KindUnavailable instead of calling
// api.openai.com without a key.
type Config struct {
	BaseURL string        // the endpoint's /v1 URL; empty means OpenAI's
	APIKey  string        // sent as a bearer token; never logged (String)
	Model   string        // the model name sent with every request
	Timeout time.Duration // bounds one call; 0 means DefaultTimeout
	// EmbeddingsModel, when set (HUB_EMBEDDINGS_MODEL), embeds passages
	// for search on the same endpoint: DefaultCatalog's embeddings.
	EmbeddingsModel string
}

// ConfigFromEnv fills a Config from the Env* variables. A timeout that does
// not parse or is out of range is an error, not replaced: that would hide
// the operator's mistake.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		BaseURL: strings.TrimSpace(getenv(EnvBaseURL)),
		APIKey:  strings.TrimSpace(getenv(EnvAPIKey)),
		Model:   cmp.Or(strings.TrimSpace(getenv(EnvModel)), DefaultModel),
		Timeout: DefaultTimeout,

		EmbeddingsModel: strings.TrimSpace(getenv(EnvEmbeddingsModel)),
	}
	// A Go duration ("15m") or whole seconds ("900"), within the limits.
	if raw := strings.TrimSpace(getenv(EnvTimeout)); raw != "" {
		d, err := time.ParseDuration(raw)
		if err != nil {
			secs, convErr := strconv.Atoi(raw)
			if convErr != nil {
				return Config{}, fmt.Errorf("%s: %q is not a duration (like 15m) or a number of seconds", EnvTimeout, raw)
			}
			d = time.Duration(secs) * time.Second
		}
		if d < MinTimeout || d > MaxTimeout {
			return Config{}, fmt.Errorf("%s: %s is outside the allowed %s to %s", EnvTimeout, d, MinTimeout, MaxTimeout)
		}
		cfg.Timeout = d
	}
	return cfg, nil
}

// Configured reports whether an endpoint was named at all: a local server
// needs only a base URL, OpenAI only a key.
func (c Config) Configured() bool {
	return c.BaseURL != "" || c.APIKey != ""
}

// UnavailableMessage is the sentence shown when no model is configured.
const UnavailableMessage = "No model is configured: set " + EnvAPIKey +
	" (and " + EnvBaseURL + " for an OpenAI-compatible endpoint such as vLLM, Ollama or `hub fakemodel`)."

// String masks the API key.
func (c Config) String() string {
	return fmt.Sprintf("{BaseURL:%s APIKey:%s Model:%s Timeout:%s}",
		c.baseURLOrDefault(), maskKey(c.APIKey), c.Model, c.timeout())
}

// LogValue masks the API key in structured logs.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("baseURL", c.baseURLOrDefault()),
		slog.String("apiKey", maskKey(c.APIKey)),
		slog.String("model", c.Model),
		slog.Duration("timeout", c.timeout()),
	)
}

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

// maskKey keeps the last four characters of a long key, so an operator can
// tell which key is in use.
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
