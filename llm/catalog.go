package llm

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Environment variables of the model catalog (README.md, "Environment"):
// the catalog as JSON inline, or the path of a file holding it.
const (
	EnvModels     = "HUB_MODELS"
	EnvModelsFile = "HUB_MODELS_FILE"
)

// Efforts are the reasoning efforts a catalog model may take.
var Efforts = []string{"none", "minimal", "low", "medium", "high"}

// Endpoint is one OpenAI-compatible provider endpoint of the catalog.
type Endpoint struct {
	Name    string `json:"name"`
	BaseURL string `json:"baseUrl"` // the /v1 URL; empty means OpenAI's
	// APIKeyEnv names the variable holding the endpoint's key ("": none);
	// the catalog never holds the key itself.
	APIKeyEnv string `json:"apiKeyEnv"`
	// APIKey is read from APIKeyEnv at start; never marshalled or printed.
	APIKey string `json:"-"`
}

// String keeps the key out of anything printed.
func (e Endpoint) String() string {
	return fmt.Sprintf("{Name:%s BaseURL:%s APIKey:%s}", e.Name, Config{BaseURL: e.BaseURL}.baseURLOrDefault(), maskKey(e.APIKey))
}

// Model is one model of the catalog: what a person may choose.
type Model struct {
	// ID is what the api, settings and turns call the model; empty in JSON: Name.
	ID       string `json:"id"`
	Name     string `json:"name"`     // sent to the provider
	Endpoint string `json:"endpoint"` // the catalog endpoint that serves it
	// ContextWindow is in tokens; 0: the family's known window or HUB_MODEL_CONTEXT_TOKENS.
	ContextWindow int      `json:"contextWindow"`
	Efforts       []string `json:"efforts"` // none: no effort is sent
	// Images and Files say whether the model takes image and file parts.
	Images bool  `json:"images"`
	Files  bool  `json:"files"`
	Price  Price `json:"price"`
	// Default marks the model a turn uses when neither the turn nor the
	// person's settings choose one (the first, when none is marked).
	Default bool `json:"default"`
	// Tier is the model's class ("fast", "strong": the operator's words;
	// "" none): a message may ask for a tier instead of a model.
	Tier string `json:"tier,omitempty"`
}

// TakesEffort tells whether effort is one the model takes; "" (no effort
// chosen) always is.
func (m Model) TakesEffort(effort string) bool {
	return effort == "" || slices.Contains(m.Efforts, effort)
}

// Catalog is the operator's list of endpoints and models.
type Catalog struct {
	Endpoints []Endpoint `json:"endpoints"`
	Models    []Model    `json:"models"`
	// Embeddings is the model that embeds passages for search (nil: none,
	// search is lexical only).
	Embeddings *EmbeddingsModel `json:"embeddings,omitempty"`
}

// EmbeddingsModel is a model an endpoint serves on /v1/embeddings.
type EmbeddingsModel struct {
	Name     string `json:"name"`     // sent to the provider
	Endpoint string `json:"endpoint"` // the catalog endpoint that serves it
}

// Lookup finds a model by its id.
func (c Catalog) Lookup(id string) (Model, bool) {
	return find(c.Models, func(m Model) bool { return m.ID == id })
}

// Default is the catalog's default model (zero for an empty catalog).
func (c Catalog) Default() Model {
	if m, ok := find(c.Models, func(m Model) bool { return m.Default }); ok || len(c.Models) == 0 {
		return m
	}
	return c.Models[0]
}

// DefaultModel is the default model's id.
func (c Catalog) DefaultModel() string { return c.Default().ID }

// find is the first element of s that f accepts.
func find[T any](s []T, f func(T) bool) (T, bool) {
	if i := slices.IndexFunc(s, f); i >= 0 {
		return s[i], true
	}
	var zero T
	return zero, false
}

// CheckChoice says what is wrong with a person choosing model and effort:
// the field at fault ("model" or "effort") and why, or "" when the choice
// is allowed. An empty model stands for the default model.
func (c Catalog) CheckChoice(model, effort string) (field, problem string) {
	m := c.Default()
	if model != "" {
		var ok bool
		if m, ok = c.Lookup(model); !ok {
			return "model", fmt.Sprintf("%q is not a model of this Hub; GET /api/models lists them (%s)", model, strings.Join(c.ids(), ", "))
		}
	}
	if !m.TakesEffort(effort) {
		if len(m.Efforts) == 0 {
			return "effort", fmt.Sprintf("%s takes no reasoning effort", m.ID)
		}
		return "effort", fmt.Sprintf("%s takes the efforts %s, not %q", m.ID, strings.Join(m.Efforts, ", "), effort)
	}
	return "", ""
}

// TierModel is the model a message asking for tier runs: preferred (the
// person's default) when it is of that tier, else the tier's first model.
// An unknown tier says which there are.
func (c Catalog) TierModel(tier, preferred string) (id, problem string) {
	if m, ok := c.Lookup(preferred); ok && preferred != "" && m.Tier == tier {
		return m.ID, ""
	}
	if m, ok := find(c.Models, func(m Model) bool { return m.Tier == tier }); ok {
		return m.ID, ""
	}
	var tiers []string
	for _, m := range c.Models {
		if m.Tier != "" && !slices.Contains(tiers, m.Tier) {
			tiers = append(tiers, m.Tier)
		}
	}
	if len(tiers) == 0 {
		return "", "this Hub's models have no tiers; choose a model (GET /api/models)"
	}
	return "", fmt.Sprintf("%q is not a tier of this Hub's models (%s)", tier, strings.Join(tiers, ", "))
}

func (c Catalog) ids() []string {
	out := make([]string, len(c.Models))
	for i, m := range c.Models {
		out[i] = m.ID
	}
	return out
}

// DefaultCatalog is the catalog of a Hub without HUB_MODELS: the one model
// of cfg, taking images and files, no effort, priced at zero.
func DefaultCatalog(cfg Config) Catalog {
	name := cmp.Or(cfg.Model, DefaultModel)
	return Catalog{
		Endpoints: []Endpoint{{Name: "default", BaseURL: cfg.BaseURL, APIKeyEnv: EnvAPIKey, APIKey: cfg.APIKey}},
		Models:    []Model{{ID: name, Name: name, Endpoint: "default", Images: true, Files: true, Default: true}},
		Embeddings: func() *EmbeddingsModel {
			if cfg.EmbeddingsModel == "" {
				return nil
			}
			return &EmbeddingsModel{Name: cfg.EmbeddingsModel, Endpoint: "default"}
		}(),
	}
}

// CatalogFromEnv reads HUB_MODELS or the file HUB_MODELS_FILE names, reads
// each endpoint's key from the variable it names, and validates the
// catalog. Neither set: an empty catalog (the caller uses DefaultCatalog).
func CatalogFromEnv(getenv func(string) string, readFile func(string) ([]byte, error)) (Catalog, error) {
	inline, path := strings.TrimSpace(getenv(EnvModels)), strings.TrimSpace(getenv(EnvModelsFile))
	data, src := []byte(inline), EnvModels
	switch {
	case inline != "" && path != "":
		return Catalog{}, fmt.Errorf("set %s or %s, not both", EnvModels, EnvModelsFile)
	case path != "":
		b, err := readFile(path)
		if err != nil {
			return Catalog{}, fmt.Errorf("%s: %w", EnvModelsFile, err)
		}
		data, src = b, EnvModelsFile+" "+path
	case inline == "":
		return Catalog{}, nil
	}
	cat, err := ParseCatalog(data)
	if err != nil {
		return Catalog{}, fmt.Errorf("%s: %w", src, err)
	}
	for i, e := range cat.Endpoints {
		if e.APIKeyEnv == "" {
			continue
		}
		key := strings.TrimSpace(getenv(e.APIKeyEnv))
		if key == "" {
			return Catalog{}, fmt.Errorf("%s: endpoints[%d].apiKeyEnv: %s is not set", src, i, e.APIKeyEnv)
		}
		cat.Endpoints[i].APIKey = key
	}
	return cat, nil
}

// ParseCatalog reads a catalog's JSON (unknown fields are an error: a
// misspelt "efort" must not pass as "takes no effort") and validates it.
func ParseCatalog(data []byte) (Catalog, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cat Catalog
	if err := dec.Decode(&cat); err != nil {
		return Catalog{}, fmt.Errorf("not a model catalog: %w", err)
	}
	if dec.More() {
		return Catalog{}, fmt.Errorf("not a model catalog: more than one JSON value")
	}
	for i := range cat.Models {
		if cat.Models[i].ID == "" {
			cat.Models[i].ID = cat.Models[i].Name
		}
	}
	if err := cat.Validate(); err != nil {
		return Catalog{}, err
	}
	return cat, nil
}

var tierName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// Validate checks the catalog, naming the field at fault.
func (c Catalog) Validate() error {
	if len(c.Endpoints) == 0 {
		return fmt.Errorf("endpoints: at least one endpoint is needed")
	}
	if len(c.Models) == 0 {
		return fmt.Errorf("models: at least one model is needed")
	}
	names := map[string]bool{}
	for i, e := range c.Endpoints {
		at := fmt.Sprintf("endpoints[%d]", i)
		switch u, err := url.Parse(e.BaseURL); {
		case strings.TrimSpace(e.Name) == "":
			return fmt.Errorf("%s.name: an endpoint needs a name", at)
		case names[e.Name]:
			return fmt.Errorf("%s.name: endpoint %q is listed twice", at, e.Name)
		case e.BaseURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == ""):
			return fmt.Errorf("%s.baseUrl: want an http(s) URL like https://api.openai.com/v1, not %q", at, e.BaseURL)
		case e.BaseURL == "" && e.APIKeyEnv == "":
			return fmt.Errorf("%s: an endpoint needs a baseUrl, an apiKeyEnv, or both", at)
		}
		names[e.Name] = true
	}
	ids := map[string]bool{}
	defaults := 0
	for i, m := range c.Models {
		at := fmt.Sprintf("models[%d]", i)
		switch {
		case strings.TrimSpace(m.Name) == "":
			return fmt.Errorf("%s.name: a model needs the name its provider knows it by", at)
		case ids[m.ID]:
			return fmt.Errorf("%s.id: model %q is listed twice", at, m.ID)
		case !names[m.Endpoint]:
			return fmt.Errorf("%s.endpoint: %q is not one of the endpoints", at, m.Endpoint)
		case m.ContextWindow < 0:
			return fmt.Errorf("%s.contextWindow: must not be negative", at)
		case m.Tier != "" && !tierName.MatchString(m.Tier):
			return fmt.Errorf("%s.tier: a tier is a lower-case word like fast or strong (letters, digits, -; at most 32), not %q", at, m.Tier)
		}
		ids[m.ID] = true
		for j, e := range m.Efforts {
			if !slices.Contains(Efforts, e) {
				return fmt.Errorf("%s.efforts[%d]: %q is not an effort (%s)", at, j, e, strings.Join(Efforts, ", "))
			}
			if slices.Contains(m.Efforts[:j], e) {
				return fmt.Errorf("%s.efforts[%d]: %q is listed twice", at, j, e)
			}
		}
		for _, p := range []struct {
			field string
			v     float64
		}{{"input", m.Price.Input}, {"cachedInput", m.Price.CachedInput}, {"output", m.Price.Output}} {
			if p.v < 0 || math.IsNaN(p.v) || math.IsInf(p.v, 0) {
				return fmt.Errorf("%s.price.%s: must be a number of dollars per million tokens, not below zero", at, p.field)
			}
		}
		if m.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return fmt.Errorf("models: %d models are marked default; mark one", defaults)
	}
	if e := c.Embeddings; e != nil && (strings.TrimSpace(e.Name) == "" || !names[e.Endpoint]) {
		return fmt.Errorf("embeddings: want a name and one of the endpoints, not %q at %q", e.Name, e.Endpoint)
	}
	return nil
}

// LogValue logs the catalog with its keys masked.
func (c Catalog) LogValue() slog.Value {
	eps := make([]string, len(c.Endpoints))
	for i, e := range c.Endpoints {
		eps[i] = e.String()
	}
	return slog.GroupValue(slog.Any("endpoints", eps), slog.Any("models", c.ids()))
}
