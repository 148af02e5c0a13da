package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"hub/storage"
)

// Retrieval is what one search a tool made found, as the run inspector
// shows it.
type Retrieval struct {
	CallID string
	Tool   string
	Query  string
	// CandidatesBefore counts the index's matches in every space,
	// CandidatesAfter those the person could open in the searched space.
	CandidatesBefore int
	CandidatesAfter  int
	Results          []RecordedHit
	// Cited are the links of Results the reply cited.
	Cited  []string
	TookMS int64
	At     time.Time
}

// RecordedHit is one returned passage as recorded.
type RecordedHit struct {
	Rank      int
	Link      string
	Source    string
	PassageID int64
	Score     float64
}

// Link is how a reply cites a hit: a file's passage by the file and its
// key, which a later version keeps when the passage is unchanged; a task
// or project by its record link.
func (h Hit) Link() string {
	link := "hub://" + h.Source + "/" + h.SourceID
	if h.Source == "file" {
		link += "#" + PassageKey(h.Hash)
	}
	return link
}

// record saves what a tool's search found, with the counts of matches
// before and after the person's access.
func (s *Store) record(ctx context.Context, personID, spaceID string, q Query, m match, res Result) error {
	var counts struct{ NBefore, NAfter int }
	err := s.db.Q(ctx).Raw(`SELECT count(*) AS n_before, coalesce(sum(CASE WHEN `+allowed+` THEN 1 ELSE 0 END), 0) AS n_after
FROM `+m.from+` WHERE `+m.where+` AND p.live`, spaceID, personID, m.arg).Scan(&counts).Error
	if err != nil {
		return fmt.Errorf("count candidates: %w", err)
	}
	hits := make([]RecordedHit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = RecordedHit{Rank: h.Rank, Link: h.Link(), Source: h.Source, PassageID: h.PassageID, Score: h.Score}
	}
	results, err := json.Marshal(hits)
	if err != nil {
		return err
	}
	row := storage.Retrieval{SpaceID: spaceID, PersonID: personID, Tool: q.Tool, Query: q.Text,
		CandidatesBefore: counts.NBefore, CandidatesAfter: counts.NAfter, Results: string(results), Cited: "[]",
		TookMS: res.Took.Milliseconds(), CreatedAt: time.Now().UTC()}
	if q.CallID != "" {
		row.CallID = &q.CallID
	}
	if err := s.db.Q(ctx).Create(&row).Error; err != nil {
		return fmt.Errorf("record retrieval: %w", err)
	}
	return nil
}

// MarkCited records which of the passages a turn's searches returned its
// reply cites by link.
func (s *Store) MarkCited(ctx context.Context, turnID, reply string) error {
	var rows []storage.Retrieval
	if err := s.db.Q(ctx).Where("call_id IN (SELECT id FROM tool_calls WHERE turn_id = ?)", turnID).
		Find(&rows).Error; err != nil {
		return fmt.Errorf("read retrievals: %w", err)
	}
	for _, r := range rows {
		var hits []RecordedHit
		if err := json.Unmarshal([]byte(r.Results), &hits); err != nil {
			return fmt.Errorf("retrieval %d: %w", r.ID, err)
		}
		cited := []string{}
		for _, h := range hits {
			if strings.Contains(reply, h.Link) {
				cited = append(cited, h.Link)
			}
		}
		if len(cited) == 0 {
			continue
		}
		data, _ := json.Marshal(cited)
		if err := s.db.Q(ctx).Model(&storage.Retrieval{}).Where("id = ?", r.ID).Update("cited", string(data)).Error; err != nil {
			return fmt.Errorf("mark cited: %w", err)
		}
	}
	return nil
}

// Retrievals lists the searches of a turn's tool calls, oldest first.
func (s *Store) Retrievals(ctx context.Context, turnID string) ([]Retrieval, error) {
	var rows []storage.Retrieval
	if err := s.db.Q(ctx).Where("call_id IN (SELECT id FROM tool_calls WHERE turn_id = ?)", turnID).
		Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read retrievals: %w", err)
	}
	out := make([]Retrieval, len(rows))
	for i, r := range rows {
		out[i] = Retrieval{CallID: *r.CallID, Tool: r.Tool, Query: r.Query, CandidatesBefore: r.CandidatesBefore,
			CandidatesAfter: r.CandidatesAfter, TookMS: r.TookMS, At: r.CreatedAt}
		if err := json.Unmarshal([]byte(r.Results), &out[i].Results); err != nil {
			return nil, fmt.Errorf("retrieval %d: %w", r.ID, err)
		}
		if err := json.Unmarshal([]byte(r.Cited), &out[i].Cited); err != nil {
			return nil, fmt.Errorf("retrieval %d: %w", r.ID, err)
		}
	}
	return out, nil
}
