package llm

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// MaxEmbedBatch is the most texts one embeddings request carries.
const MaxEmbedBatch = 64

// Embedder embeds texts with the catalog's embeddings model.
type Embedder struct {
	name   string
	client *Client
}

// Embedder is the catalog's embeddings model on its endpoint's client;
// false when the catalog names none.
func (m *Models) Embedder() (Embedder, bool) {
	e := m.Catalog.Embeddings
	if e == nil || m.clients[e.Endpoint] == nil {
		return Embedder{}, false
	}
	return Embedder{name: e.Name, client: m.clients[e.Endpoint]}, true
}

// Model names the embeddings model: vectors are stored with it, so a
// change of model embeds again.
func (e Embedder) Model() string { return e.name }

// Embed returns one vector per text, in order: at most MaxEmbedBatch texts,
// bounded by the endpoint's call timeout.
func (e Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > MaxEmbedBatch {
		return nil, fmt.Errorf("embed %d texts: at most %d a request", len(texts), MaxEmbedBatch)
	}
	ctx, cancel := context.WithTimeout(ctx, e.client.Timeout())
	defer cancel()
	res, err := e.client.oc.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(e.name)})
	if err != nil {
		return nil, fmt.Errorf("embeddings from %s: %w", e.name, err)
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		if d.Index < 0 || d.Index >= len(out) || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings from %s: an answer without a vector for text %d", e.name, d.Index)
		}
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("embeddings from %s: no vector for text %d", e.name, i)
		}
	}
	return out, nil
}
