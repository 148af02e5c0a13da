package fakemodel

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// EmbeddingDims is the length of the fake embeddings.
const EmbeddingDims = 256

// Embed is the deterministic vector the fake embeddings endpoint gives a
// text: each word (letters and digits, lowercased, but for the commonest
// English words, which would make every text alike) and each of its
// character trigrams hashed into EmbeddingDims signed buckets, normalized.
// Texts that share words or word stems ("penalty", "penalties") lie close,
// which is what a test of fused ranking needs; it knows no synonyms.
func Embed(text string) []float32 {
	v := make([]float64, EmbeddingDims)
	add := func(feature string, weight float64) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(feature))
		sum := h.Sum64()
		sign := 1.0
		if sum&1 == 1 {
			sign = -1
		}
		v[(sum>>1)%EmbeddingDims] += sign * weight
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if commonWords[w] {
			continue
		}
		add("w:"+w, 1)
		r := []rune("^" + w + "$")
		for i := 0; i+3 <= len(r); i++ {
			add("t:"+string(r[i:i+3]), 0.5)
		}
	}
	norm := 0.0
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, EmbeddingDims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// commonWords are left out of Embed's features.
var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be by can do does for from has have how i in is it its
me my not of on or our the their there this to was we what when where which who why will with you your`) {
		m[w] = true
	}
	return m
}()

// EmbeddingStats counts the embeddings requests answered and the texts
// they carried, so a test can tell that nothing was embedded again.
type EmbeddingStats struct {
	Requests, Texts int
}

// Embeddings returns the counts so far.
func (s *Server) Embeddings() EmbeddingStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embeddings
}

// FailEmbeddings makes the embeddings endpoint answer 503 (on) or work
// again (off): an outage of the provider.
func (s *Server) FailEmbeddings(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embeddingsDown = on
}

// handleEmbeddings answers POST /v1/embeddings with Embed's vectors.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the body is not JSON: "+err.Error(), "")
		return
	}
	var texts []string
	if err := json.Unmarshal(req.Input, &texts); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "input must be a string or a list of strings", "")
			return
		}
		texts = []string{one}
	}
	s.mu.Lock()
	down := s.embeddingsDown
	if !down {
		s.embeddings.Requests++
		s.embeddings.Texts += len(texts)
	}
	s.mu.Unlock()
	if down {
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the embeddings endpoint is down (FailEmbeddings)", "")
		return
	}
	data := make([]map[string]any, len(texts))
	tokens := 0
	for i, t := range texts {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embed(t)}
		tokens += len(strings.Fields(t))
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// Embedder embeds with Embed in process, as the endpoint would: the
// retrieval evaluation's fused figures use it (retrieval.Embedder).
type Embedder struct{}

// Model names the fake embeddings model.
func (Embedder) Model() string { return "fakemodel-embeddings" }

// Embed returns Embed of each text.
func (Embedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = Embed(t)
	}
	return out, nil
}
