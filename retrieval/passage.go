package retrieval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"hub/storage"
)

// keyChars is how much of a passage's hash names it in a link: unique
// enough within one file, short enough for a model to copy.
const keyChars = 12

// PassageKey names a file's passage in a link (hub://file/<id>#<key>).
func PassageKey(hash string) string { return hash[:min(keyChars, len(hash))] }

// ErrNoPassage: the file has no published passage with that key (the file
// changed, or the key is wrong).
var ErrNoPassage = errors.New("no such passage")

// FilePassage reads the published passage key of a file, for a member of
// the file's space: what a citation shows.
func (s *Store) FilePassage(ctx context.Context, personID, spaceID, fileID, key string) (Hit, error) {
	if len(key) != keyChars || strings.Trim(key, "0123456789abcdef") != "" {
		return Hit{}, ErrNoPassage
	}
	var hits []Hit
	err := s.db.Q(ctx).Raw(`SELECT `+hitColumns+`, 0 AS score FROM passages p
WHERE p.file_id = ? AND p.hash LIKE ? AND `+allowed+` ORDER BY p.ord LIMIT 1`,
		fileID, key+"%", spaceID, personID).Scan(&hits).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return Hit{}, fmt.Errorf("read passage: %w", err)
	}
	if len(hits) == 0 {
		return Hit{}, ErrNoPassage
	}
	return hits[0], nil
}

// HasFiles tells whether a space has a searchable file, which puts the
// search tools in a turn's offer.
func (s *Store) HasFiles(ctx context.Context, spaceID string) (bool, error) {
	var found []int64
	err := s.db.Q(ctx).Model(&storage.Passage{}).Select("id").Where("space_id = ? AND source = 'file' AND live", spaceID).
		Limit(1).Find(&found).Error
	if err != nil {
		return false, fmt.Errorf("has searchable files: %w", err)
	}
	return len(found) > 0, nil
}
