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
}
