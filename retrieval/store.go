package retrieval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"hub/storage"
)

// Index states of a file (storage.File.IndexStatus).
const (
	StatusQueued   = "queued"
	StatusIndexing = "indexing"
	StatusIndexed  = "indexed"
	StatusFailed   = "failed"
)

// Chunk is one piece of a file's text as it is indexed: its place, the
// heading it sits under, its text and the SHA-256 of both in hex.
type Chunk struct {
	Ord     int
	Section string
	Text    string
	Hash    string
}

// ErrStale: the file was replaced or deleted since this indexing run
// started; the run has nothing left to do.
var ErrStale = errors.New("the file changed since its indexing started")

// Store keeps the passages and the files' index states.
type Store struct {
	db *storage.DB
	// Embedder, when set, makes the semantic index: passages get vectors
	// and a topic search fuses both rankings (semantic.go).
	Embedder Embedder
}

// NewStore builds the store.
func NewStore(db *storage.DB) *Store { return &Store{db: db} }

// Version is one version of a file, being indexed.
type Version struct {
	FileID      string
	SpaceID     string
	UploaderID  string
	Name        string
	ContentType string
	Gen         int
	Status      string
	CreatedAt   time.Time
}

func toVersion(f storage.File) Version {
	return Version{FileID: f.ID, SpaceID: f.SpaceID, UploaderID: f.UploaderID, Name: f.Name, ContentType: f.ContentType,
		Gen: f.IndexGen, Status: f.IndexStatus, CreatedAt: f.CreatedAt}
}

// Begin marks version gen of a file as being indexed; ErrStale when the
// file is gone or has a later version.
func (s *Store) Begin(ctx context.Context, fileID string, gen int) (Version, error) {
	var f storage.File
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		res := s.db.Q(ctx).Model(&storage.File{}).Where("id = ? AND index_gen = ?", fileID, gen).
			Updates(map[string]any{"index_status": StatusIndexing, "index_error": ""})
		if res.Error != nil {
			return fmt.Errorf("begin indexing: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return ErrStale
		}
		return s.db.Q(ctx).Where("id = ?", fileID).Take(&f).Error
	})
	return toVersion(f), err
}

// SaveDrafts stores a file version's chunks as drafts, replacing the
// drafts of an earlier attempt or version; ErrStale when a later version
// exists (its drafts are left alone). A chunk the file's published
// passages already have (the same hash) is not written again: that
// passage joins this version as it is, in its new place, and Publish
// keeps it. A chunk whose text the space already has embedded by model
// takes that vector, so an unchanged chunk is never sent to the embeddings
// endpoint again. It returns how many drafts still need a vector (0
// without a model).
func (s *Store) SaveDrafts(ctx context.Context, f Version, chunks []Chunk, model string) (int, error) {
	need := 0
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.current(ctx, f.FileID, f.Gen); err != nil {
			return err
		}
		if err := s.db.Q(ctx).Where("file_id = ? AND NOT live", f.FileID).Delete(&storage.Passage{}).Error; err != nil {
			return fmt.Errorf("drop old drafts: %w", err)
		}
		kept, chunks, err := s.keep(ctx, f, chunks)
		if err != nil {
			return err
		}
		if err := s.rejoin(ctx, f, kept); err != nil {
			return err
		}
		vectors := map[string][]byte{}
		if model != "" && len(chunks) > 0 {
			var known []storage.Passage
			if err := s.db.Q(ctx).Select("hash", "vector").
				Where("space_id = ? AND vector_model = ? AND hash <> '' AND vector IS NOT NULL", f.SpaceID, model).
				Find(&known).Error; err != nil {
				return fmt.Errorf("read known vectors: %w", err)
			}
			for _, k := range known {
				vectors[k.Hash] = k.Vector
			}
		}
		rows := make([]storage.Passage, len(chunks))
		for i, c := range chunks {
			fileID := f.FileID
			rows[i] = storage.Passage{SpaceID: f.SpaceID, Source: "file", SourceID: f.FileID, FileID: &fileID, Gen: f.Gen,
				Ord: c.Ord, Title: f.Name, Section: c.Section, Body: c.Text, Hash: c.Hash}
			if v, ok := vectors[c.Hash]; ok {
				rows[i].Vector, rows[i].VectorModel = v, model
			} else if model != "" {
				need++
			}
		}
		if len(rows) == 0 {
			return nil
		}
		if err := s.db.Q(ctx).CreateInBatches(rows, 200).Error; err != nil {
			return fmt.Errorf("save drafts: %w", err)
		}
		return nil
	})
	return need, err
}

// keepRef is a published passage a new version keeps, and its new place.
type keepRef struct {
	ID  int64
	Ord int
}

// keep splits a version's chunks into those the file's published passages
// already have (one passage each, by hash) and the rest.
func (s *Store) keep(ctx context.Context, f Version, chunks []Chunk) ([]keepRef, []Chunk, error) {
	var live []storage.Passage
	if err := s.db.Q(ctx).Select("id", "hash").Where("file_id = ? AND live", f.FileID).Order("id").
		Find(&live).Error; err != nil {
		return nil, nil, fmt.Errorf("read published passages: %w", err)
	}
	byHash := map[string][]int64{}
	for _, p := range live {
		byHash[p.Hash] = append(byHash[p.Hash], p.ID)
	}
	var kept []keepRef
	rest := chunks[:0:0]
	for _, c := range chunks {
		if ids := byHash[c.Hash]; len(ids) > 0 {
			byHash[c.Hash] = ids[1:]
			kept = append(kept, keepRef{ID: ids[0], Ord: c.Ord})
			continue
		}
		rest = append(rest, c)
	}
	return kept, rest, nil
}

// rejoin moves kept passages to version f (its generation and their new
// places, and the file's name when it changed), a batch per statement.
func (s *Store) rejoin(ctx context.Context, f Version, kept []keepRef) error {
	const batch = 200
	for start := 0; start < len(kept); start += batch {
		part := kept[start:min(start+batch, len(kept))]
		values := make([]string, len(part))
		args := make([]any, 0, 2*len(part)+1)
		ids := make([]int64, len(part))
		for i, k := range part {
			values[i] = "(CAST(? AS INTEGER), CAST(? AS INTEGER))"
			args = append(args, k.ID, k.Ord)
			ids[i] = k.ID
		}
		err := s.db.Q(ctx).Exec(`WITH v (id, ord) AS (VALUES `+strings.Join(values, ", ")+`)
UPDATE passages SET gen = ?, ord = (SELECT v.ord FROM v WHERE v.id = passages.id) WHERE id IN (SELECT id FROM v)`,
			append(args, f.Gen)...).Error
		if err != nil {
			return fmt.Errorf("keep unchanged passages: %w", err)
		}
		if err := s.db.Q(ctx).Model(&storage.Passage{}).Where("id IN ? AND title <> ?", ids, f.Name).
			Update("title", f.Name).Error; err != nil {
			return fmt.Errorf("rename kept passages: %w", err)
		}
	}
	return nil
}

// Publish makes version gen's drafts the file's passages in one
// transaction, so a search sees the old version or the new, never a mix;
// ErrStale (and the drafts dropped) when the file changed meanwhile.
func (s *Store) Publish(ctx context.Context, fileID string, gen int) error {
	return s.db.InTx(ctx, func(ctx context.Context) error {
		res := s.db.Q(ctx).Model(&storage.File{}).Where("id = ? AND index_gen = ?", fileID, gen).
			Updates(map[string]any{"index_status": StatusIndexed, "index_error": ""})
		if res.Error != nil {
			return fmt.Errorf("publish: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return ErrStale // the later version's SaveDrafts drops these drafts
		}
		// The passages this version kept (SaveDrafts) have its generation.
		if err := s.db.Q(ctx).Where("file_id = ? AND live AND gen <> ?", fileID, gen).Delete(&storage.Passage{}).Error; err != nil {
			return fmt.Errorf("drop the published passages: %w", err)
		}
		if err := s.db.Q(ctx).Model(&storage.Passage{}).Where("file_id = ? AND gen = ? AND NOT live", fileID, gen).
			Update("live", true).Error; err != nil {
			return fmt.Errorf("publish the drafts: %w", err)
		}
		return nil
	})
}

// current locks the file's row and answers ErrStale unless gen is its
// version: a version's drafts are written only while it is the latest.
func (s *Store) current(ctx context.Context, fileID string, gen int) error {
	res := s.db.Q(ctx).Model(&storage.File{}).Where("id = ? AND index_gen = ?", fileID, gen).Update("index_gen", gen)
	if res.Error != nil {
		return fmt.Errorf("check version: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrStale
	}
	return nil
}

// Fail marks version gen of a file failed, saying why in words a person
// can act on, and drops its drafts; the passages of an earlier version
// stay searchable. ErrStale when gen is not the file's version.
func (s *Store) Fail(ctx context.Context, fileID string, gen int, why string) error {
	return s.db.InTx(ctx, func(ctx context.Context) error {
		res := s.db.Q(ctx).Model(&storage.File{}).Where("id = ? AND index_gen = ?", fileID, gen).
			Updates(map[string]any{"index_status": StatusFailed, "index_error": why})
		if res.Error != nil {
			return fmt.Errorf("mark failed: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return ErrStale
		}
		if err := s.db.Q(ctx).Where("file_id = ? AND NOT live", fileID).Delete(&storage.Passage{}).Error; err != nil {
			return fmt.Errorf("drop drafts: %w", err)
		}
		return nil
	})
}

// Version reads a file's current version; ErrStale when it is gone.
func (s *Store) Version(ctx context.Context, fileID string) (Version, error) {
	var rows []storage.File
	if err := s.db.Q(ctx).Where("id = ?", fileID).Limit(1).Find(&rows).Error; err != nil {
		return Version{}, fmt.Errorf("read file %s: %w", fileID, err)
	}
	if len(rows) == 0 {
		return Version{}, ErrStale
	}
	return toVersion(rows[0]), nil
}

// Waiting lists up to limit file versions queued or being indexed, oldest
// first: for the sweeper to start (workflows.StartIndex runs one once)
// and, of one uploader's in spaces they can open (uploaderID not ""), for
// their top bar.
func (s *Store) Waiting(ctx context.Context, uploaderID string, limit int) ([]Version, error) {
	var rows []storage.File
	q := s.db.Q(ctx).Select("id", "space_id", "uploader_id", "name", "content_type", "index_gen", "index_status", "created_at").
		Where("index_status IN ?", []string{StatusQueued, StatusIndexing})
	if uploaderID != "" { // in spaces they can still open
		q = q.Where("uploader_id = ? AND EXISTS (SELECT 1 FROM memberships m WHERE m.space_id = files.space_id AND m.person_id = ?)",
			uploaderID, uploaderID)
	}
	if err := q.Order("created_at").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list waiting files: %w", err)
	}
	out := make([]Version, len(rows))
	for i, f := range rows {
		out[i] = toVersion(f)
	}
	return out, nil
}

// Requeue makes a file's next version to index (a failed or stopped one
// indexed again) and returns it.
func (s *Store) Requeue(ctx context.Context, fileID string) (Version, error) {
	var f storage.File
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.db.Q(ctx).Model(&storage.File{}).Where("id = ?", fileID).
			Updates(map[string]any{"index_gen": gorm.Expr("index_gen + 1"), "index_status": StatusQueued, "index_error": ""}).Error; err != nil {
			return fmt.Errorf("requeue: %w", err)
		}
		return s.db.Q(ctx).Where("id = ?", fileID).Take(&f).Error
	})
	return toVersion(f), err
}
