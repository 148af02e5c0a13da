package storage

import "time"

// File is an attached file of a space: its name, type and size here, its
// bytes in the blob store under BlobKey. UploaderID is who sent it.
type File struct {
	ID          string `gorm:"primaryKey"`
	SpaceID     string
	UploaderID  string
	Name        string
	ContentType string
	Size        int64
	BlobKey     string
	CreatedAt   time.Time
	// IndexStatus is queued, indexing, indexed or failed (IndexError says
	// why); IndexGen counts the file's versions, one indexing run each.
	IndexStatus string `gorm:"default:queued"`
	IndexError  string
	IndexGen    int `gorm:"default:1"`
	// Summary and Keywords (a JSON array) are what a summarize_file
	// completion made of version IndexGen ("" and "" or "[]": none).
	Summary  string
	Keywords string
}

// Passage is a searchable piece of a space: a chunk of a file (FileID
// set; a draft until Live) or the text of a task or project (Source).
// Hash is a file chunk's SHA-256 in hex, which names it in citations;
// Vector its embedding by VectorModel, little-endian float32s.
type Passage struct {
	ID          int64 `gorm:"primaryKey"`
	SpaceID     string
	Source      string
	SourceID    string
	FileID      *string
	Gen         int
	Live        bool
	Ord         int
	Title       string
	Section     string
	Body        string
	Hash        string
	Vector      []byte
	VectorModel string
}

// Retrieval is one search a tool made (package retrieval): Results and
// Cited are JSON.
type Retrieval struct {
	ID               int64 `gorm:"primaryKey"`
	CallID           *string
	SpaceID          string
	PersonID         string
	Tool             string
	Query            string
	CandidatesBefore int
	CandidatesAfter  int
	Results          string
	Cited            string
	TookMS           int64 `gorm:"column:took_ms"`
	CreatedAt        time.Time
}
