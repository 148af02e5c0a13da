package llm_test

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/llm"
)

// catalogJSON is a valid catalog of two endpoints with the models edited
// in by each case.
func catalogJSON(models string) string {
	return `{"endpoints": [
	  {"name": "openai", "baseUrl": "https://api.openai.com/v1", "apiKeyEnv": "OPENAI_API_KEY"},
	  {"name": "local", "baseUrl": "http://127.0.0.1:11434/v1"}],
	 "models": [` + models + `]}`
}

func TestParseCatalog(t *testing.T) {
	t.Parallel()
	cat, err := llm.ParseCatalog([]byte(catalogJSON(`
	  {"name": "gpt-5", "endpoint": "openai", "contextWindow": 400000, "efforts": ["minimal", "low", "medium", "high"],
	   "images": true, "files": true, "price": {"input": 1.25, "cachedInput": 0.125, "output": 10}},
	  {"id": "llama", "name": "llama3.1:8b", "endpoint": "local", "default": true}`)))
	require.NoError(t, err)
	require.Len(t, cat.Models, 2)
	gpt, ok := cat.Lookup("gpt-5")
	require.True(t, ok, "an id defaults to the name")
	require.Equal(t, llm.Price{Input: 1.25, CachedInput: 0.125, Output: 10}, gpt.Price)
	require.True(t, gpt.TakesEffort("high"))
	require.True(t, gpt.TakesEffort(""), "no effort is always allowed")
	require.False(t, gpt.TakesEffort("none"))
	llama, ok := cat.Lookup("llama")
	require.True(t, ok)
	require.Equal(t, "llama3.1:8b", llama.Name)
	require.False(t, llama.TakesEffort("low"))
	_, ok = cat.Lookup("llama3.1:8b")
	require.False(t, ok, "looked up by id, not the provider's name")
	require.Equal(t, "llama", cat.Default().ID, "the marked default")
	require.Equal(t, int64(11_250), gpt.Price.Cost(llm.Usage{InputTokens: 1000, CachedInputTokens: 0, OutputTokens: 1000}))

	field, problem := cat.CheckChoice("gpt-9", "")
	require.Equal(t, "model", field)
	require.Contains(t, problem, "gpt-5, llama", "names the models there are")
	field, _ = cat.CheckChoice("gpt-5", "none")
	require.Equal(t, "effort", field)
	field, problem = cat.CheckChoice("", "low")
	require.Equal(t, "effort", field, "an empty model is the default, which takes no effort")
	require.Contains(t, problem, "takes no reasoning effort")
	field, _ = cat.CheckChoice("gpt-5", "medium")
	require.Empty(t, field)

	first, err := llm.ParseCatalog([]byte(catalogJSON(`{"name": "a", "endpoint": "local"}, {"name": "b", "endpoint": "local"}`)))
	require.NoError(t, err)
	require.Equal(t, "a", first.Default().ID, "no default marked: the first")
}

func TestParseCatalogRefusesMistakes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, json, want string }{
		{"not JSON", `{"endpoints": [`, "not a model catalog"},
		{"unknown field", catalogJSON(`{"name": "a", "endpoint": "local", "efort": ["low"]}`), `unknown field "efort"`},
		{"two values", catalogJSON(`{"name": "a", "endpoint": "local"}`) + ` {}`, "more than one JSON value"},
		{"no endpoints", `{"endpoints": [], "models": [{"name": "a", "endpoint": "x"}]}`, "endpoints: at least one"},
		{"no models", `{"endpoints": [{"name": "x", "baseUrl": "http://x/v1"}], "models": []}`, "models: at least one"},
		{"endpoint without name", `{"endpoints": [{"baseUrl": "http://x/v1"}], "models": [{"name": "a", "endpoint": ""}]}`, "endpoints[0].name"},
		{"endpoint twice", `{"endpoints": [{"name": "x", "baseUrl": "http://x/v1"}, {"name": "x", "baseUrl": "http://y/v1"}], "models": [{"name": "a", "endpoint": "x"}]}`, `endpoints[1].name: endpoint "x" is listed twice`},
		{"bad base URL", `{"endpoints": [{"name": "x", "baseUrl": "ftp://x"}], "models": [{"name": "a", "endpoint": "x"}]}`, "endpoints[0].baseUrl"},
		{"endpoint with neither", `{"endpoints": [{"name": "x"}], "models": [{"name": "a", "endpoint": "x"}]}`, "endpoints[0]: an endpoint needs a baseUrl"},
		{"unknown endpoint", catalogJSON(`{"name": "a", "endpoint": "azure"}`), `models[0].endpoint: "azure" is not one of the endpoints`},
		{"model without name", catalogJSON(`{"id": "a", "endpoint": "local"}`), "models[0].name"},
		{"duplicate model", catalogJSON(`{"name": "a", "endpoint": "local"}, {"name": "a", "endpoint": "openai"}`), `models[1].id: model "a" is listed twice`},
		{"duplicate id", catalogJSON(`{"id": "a", "name": "x", "endpoint": "local"}, {"name": "a", "endpoint": "openai"}`), `models[1].id`},
		{"bad effort", catalogJSON(`{"name": "a", "endpoint": "local", "efforts": ["low", "max"]}`), `models[0].efforts[1]: "max" is not an effort`},
		{"bad tier", catalogJSON(`{"name": "a", "endpoint": "local", "tier": "Fast lane"}`), `models[0].tier: a tier is a lower-case word`},
		{"effort twice", catalogJSON(`{"name": "a", "endpoint": "local", "efforts": ["low", "low"]}`), `models[0].efforts[1]: "low" is listed twice`},
		{"negative input price", catalogJSON(`{"name": "a", "endpoint": "local", "price": {"input": -1}}`), "models[0].price.input"},
		{"negative cached price", catalogJSON(`{"name": "a", "endpoint": "local", "price": {"cachedInput": -0.1}}`), "models[0].price.cachedInput"},
		{"negative output price", catalogJSON(`{"name": "a", "endpoint": "local"}, {"name": "b", "endpoint": "local", "price": {"output": -3}}`), "models[1].price.output"},
		{"negative window", catalogJSON(`{"name": "a", "endpoint": "local", "contextWindow": -5}`), "models[0].contextWindow"},
		{"two defaults", catalogJSON(`{"name": "a", "endpoint": "local", "default": true}, {"name": "b", "endpoint": "local", "default": true}`), "2 models are marked default"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := llm.ParseCatalog([]byte(c.json))
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestCatalogFromEnv(t *testing.T) {
	t.Parallel()
	inline := catalogJSON(`{"name": "gpt-5", "endpoint": "openai"}`)
	files := map[string]string{"/etc/hub/models.json": inline}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}

	cat, err := llm.CatalogFromEnv(env(), read)
	require.NoError(t, err)
	require.Empty(t, cat.Models, "no catalog set: the composition root uses DefaultCatalog")

	cat, err = llm.CatalogFromEnv(env(llm.EnvModels, inline, "OPENAI_API_KEY", "sk-secret-key-1234"), read)
	require.NoError(t, err)
	e := cat.Endpoints[0] // openai
	require.Equal(t, "sk-secret-key-1234", e.APIKey, "the key comes from the variable the catalog names")
	require.NotContains(t, fmt.Sprint(e), "sk-secret", "never printed")
	require.NotContains(t, fmt.Sprintf("%v %+v", cat, cat), "sk-secret")
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("start", "models", cat)
	require.NotContains(t, logged.String(), "sk-secret", "never logged")
	require.Contains(t, logged.String(), "gpt-5")

	cat, err = llm.CatalogFromEnv(env(llm.EnvModelsFile, "/etc/hub/models.json", "OPENAI_API_KEY", "k"), read)
	require.NoError(t, err)
	require.Equal(t, "gpt-5", cat.Default().ID)

	_, err = llm.CatalogFromEnv(env(llm.EnvModels, inline), read)
	require.ErrorContains(t, err, "endpoints[0].apiKeyEnv: OPENAI_API_KEY is not set")
	_, err = llm.CatalogFromEnv(env(llm.EnvModels, inline, llm.EnvModelsFile, "/etc/hub/models.json"), read)
	require.ErrorContains(t, err, "not both")
	_, err = llm.CatalogFromEnv(env(llm.EnvModelsFile, "/nope.json"), read)
	require.True(t, errors.Is(err, fs.ErrNotExist))
	require.True(t, strings.HasPrefix(err.Error(), llm.EnvModelsFile))
	_, err = llm.CatalogFromEnv(env(llm.EnvModels, `{"endpoints": []}`), read)
	require.ErrorContains(t, err, llm.EnvModels+": endpoints: at least one")

	def := llm.DefaultCatalog(llm.Config{BaseURL: "http://127.0.0.1:9/v1", APIKey: "k", Model: "fakemodel"})
	require.NoError(t, def.Validate())
	m := def.Default()
	require.Equal(t, "fakemodel", m.ID)
	require.True(t, m.Images && m.Files, "today's behaviour: every part is tried")
	require.Empty(t, m.Efforts)
}

// The model check a turn makes before it spends anything: a catalog of 50
// models, the last one chosen with an effort (the bound for every
// pre-spend check of a turn together is 1 ms).
func BenchmarkCatalogCheckChoice(b *testing.B) {
	var models []string
	for i := range 50 {
		models = append(models, fmt.Sprintf(`{"name": "m%d", "endpoint": "local", "efforts": ["low", "medium", "high"]}`, i))
	}
	cat, err := llm.ParseCatalog([]byte(catalogJSON(strings.Join(models, ","))))
	require.NoError(b, err)
	for b.Loop() {
		if field, _ := cat.CheckChoice("m49", "high"); field != "" {
			b.Fatal(field)
		}
	}
}
