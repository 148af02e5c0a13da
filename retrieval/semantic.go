package retrieval

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"hub/storage"
)

// Embedder embeds texts for the semantic index (llm.Embedder).
type Embedder interface {
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

const (
	// embedBatch is the most passages one embeddings request carries
	// (llm.MaxEmbedBatch).
	embedBatch = 64
	// maxSemanticCandidates bounds the passages whose vectors one search
	// compares, the space's newest first: similarity is computed exactly,
	// in Hub, over the passages the person may open (Debian's Postgres has
	// no vector index). Past it, older passages are found by words only;
	// docs/retrieval.md says what a larger deployment should use.
	maxSemanticCandidates = 4000
	// rrfK is reciprocal rank fusion's constant: a passage's fused score is
	// the sum over both rankings of 1/(rrfK + rank).
	rrfK = 60
	// fusedDepth is how many of each ranking fusion reads per wanted hit.
	fusedDepth = 4
)

// EmbeddingsModel names the model vectors are made with ("": none).
func (s *Store) EmbeddingsModel() string {
	if s.Embedder == nil {
		return ""
	}
	return s.Embedder.Model()
}

// EmbedBatch embeds up to one request's worth of passages that have no
// vector by the current model: a file version's drafts (fileID set), or
// any published passage (fileID "": the sweeper's catch-up after a failed
// request or a change of model). It returns how many it embedded; 0 when
// none is left.
func (s *Store) EmbedBatch(ctx context.Context, fileID string, gen int) (int, error) {
	model := s.EmbeddingsModel()
	if model == "" {
		return 0, nil
	}
	q := s.db.Q(ctx).Select("id", "title", "section", "body").Where("vector_model <> ?", model)
	if fileID != "" {
		q = q.Where("file_id = ? AND gen = ? AND NOT live", fileID, gen)
	} else {
		q = q.Where("live")
	}
	var rows []storage.Passage
	if err := q.Order("id").Limit(embedBatch).Find(&rows).Error; err != nil {
		return 0, fmt.Errorf("passages to embed: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.Title + "\n" + r.Section + "\n" + r.Body
	}
	vectors, err := s.Embedder.Embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context) error {
		for i, r := range rows {
			if err := s.db.Q(ctx).Model(&storage.Passage{}).Where("id = ?", r.ID).
				Updates(map[string]any{"vector": encodeVector(vectors[i]), "vector_model": model}).Error; err != nil {
				return fmt.Errorf("save vector: %w", err)
			}
		}
		return nil
	})
	return len(rows), err
}

// ranked with fusion: the lexical ranking and, when an embeddings model is
// configured and answers, the semantic one, fused by reciprocal rank.
func (s *Store) fused(ctx context.Context, personID, spaceID, text string, lexical []Hit, limit int) ([]Hit, error) {
	if s.Embedder == nil {
		return lexical[:min(len(lexical), limit)], nil
	}
	vs, err := s.Embedder.Embed(ctx, []string{text})
	if err != nil {
		slog.WarnContext(ctx, "embed a query; searching by words only", "error", err)
		return lexical[:min(len(lexical), limit)], nil
	}
	semantic, err := s.semantic(ctx, personID, spaceID, vs[0], limit*fusedDepth)
	if err != nil {
		return nil, err
	}
	scores := map[int64]float64{}
	byID := map[int64]Hit{}
	for _, list := range [][]Hit{lexical, semantic} {
		for i, h := range list {
			scores[h.PassageID] += 1 / float64(rrfK+i+1)
			byID[h.PassageID] = h
		}
	}
	out := make([]Hit, 0, len(byID))
	for id, h := range byID {
		h.Score = scores[id]
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.PassageID, b.PassageID)
	})
	return out[:min(len(out), limit)], nil
}

// semantic ranks the newest maxSemanticCandidates passages of the space
// the person may open by cosine similarity to q, and reads the best n.
func (s *Store) semantic(ctx context.Context, personID, spaceID string, q []float32, n int) ([]Hit, error) {
	var cands []struct {
		ID     int64
		Vector []byte
	}
	err := s.db.Q(ctx).Raw(`SELECT p.id, p.vector FROM passages p WHERE p.vector_model = ? AND `+allowed+`
ORDER BY p.id DESC LIMIT ?`, s.EmbeddingsModel(), spaceID, personID, maxSemanticCandidates).Scan(&cands).Error
	if err != nil {
		return nil, fmt.Errorf("semantic candidates: %w", err)
	}
	type scored struct {
		id    int64
		score float64
	}
	best := make([]scored, 0, len(cands))
	for _, c := range cands {
		best = append(best, scored{c.ID, cosine(q, c.Vector)})
	}
	slices.SortFunc(best, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	best = best[:min(len(best), n)]
	if len(best) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(best))
	for i, b := range best {
		ids[i] = b.id
	}
	var hits []Hit
	if err := s.db.Q(ctx).Raw(`SELECT `+hitColumns+`, 0 AS score FROM passages p WHERE p.id IN ? AND `+allowed,
		ids, spaceID, personID).Scan(&hits).Error; err != nil {
		return nil, fmt.Errorf("semantic hits: %w", err)
	}
	rank := map[int64]int{}
	for i, id := range ids {
		rank[id] = i
	}
	slices.SortFunc(hits, func(a, b Hit) int { return rank[a.PassageID] - rank[b.PassageID] })
	for i := range hits {
		hits[i].Score = best[rank[hits[i].PassageID]].score
	}
	return hits, nil
}

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// cosine is the cosine similarity of q and a stored vector; 0 for one of
// another length (a model changed mid-way) or of zero length.
func cosine(q []float32, stored []byte) float64 {
	if len(stored) != 4*len(q) {
		return 0
	}
	var dot, nq, ns float64
	for i, x := range q {
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(stored[4*i:])))
		dot += float64(x) * y
		nq += float64(x) * float64(x)
		ns += y * y
	}
	if nq == 0 || ns == 0 {
		return 0
	}
	return dot / math.Sqrt(nq*ns)
}
