package llm

import (
	"context"
	"net/http"
	"time"
)

// Models are the catalog's models ready to call: one Client (its own
// go-openai client and key) per endpoint, shared by that endpoint's models.
type Models struct {
	Catalog Catalog
	clients map[string]*Client
}

// NewModels builds a client per endpoint of cat; every call is bounded by
// timeout (HUB_MODEL_TIMEOUT). hc is as for New.
func NewModels(cat Catalog, timeout time.Duration, hc *http.Client) *Models {
	m := &Models{Catalog: cat, clients: map[string]*Client{}}
	for _, e := range cat.Endpoints {
		first, _ := find(cat.Models, func(m Model) bool { return m.Endpoint == e.Name })
		m.clients[e.Name] = New(Config{BaseURL: e.BaseURL, APIKey: e.APIKey, Model: first.Name, Timeout: timeout}, hc)
	}
	return m
}

// Configured reports whether the default model's endpoint is Configured.
func (m *Models) Configured() bool {
	c := m.clients[m.Catalog.Default().Endpoint]
	return c != nil && c.cfg.Configured()
}

// For is the model to call for id, with effort: the catalog's default
// model when id is empty or no longer in the catalog, and no effort the
// model does not take.
func (m *Models) For(id, effort string) Bound {
	mdl, ok := m.Catalog.Lookup(id)
	if !ok {
		mdl = m.Catalog.Default()
	}
	if !mdl.TakesEffort(effort) {
		effort = ""
	}
	return Bound{Model: mdl, Effort: effort, client: m.clients[mdl.Endpoint]}
}

// Bound is one catalog model with the effort chosen for it, on its
// endpoint's client.
type Bound struct {
	Model  Model
	Effort string
	client *Client
}

// Stream calls the model (Client.Stream) with its name and effort.
func (b Bound) Stream(ctx context.Context, req Request, onChunk func(Chunk) error) (Result, error) {
	if b.client == nil {
		return Result{}, &Error{Kind: KindUnavailable, Message: UnavailableMessage}
	}
	req.Model, req.Effort = b.Model.Name, b.Effort
	return b.client.Stream(ctx, req, onChunk)
}
