package files

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Store keeps file contents by key. Keys are Hub's own ("<spaceID>/<fileID>"),
// never a client's. Implementations are safe for concurrent use.
type Store interface {
	// Put stores size bytes from r under key, replacing nothing that a
	// reader can see half-written.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Open reads what Put stored; a missing key is ErrNoBlob.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes the key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// ErrNoBlob is a key the store does not hold.
var ErrNoBlob = errors.New("no such blob")

// DirStore keeps blobs as files under a local directory (`hub dev`: .hub/files).
type DirStore struct{ root string }

// NewDirStore creates the directory if needed.
func NewDirStore(root string) (*DirStore, error) {
	if root == "" {
		return nil, errors.New("files: no directory given")
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	return &DirStore{root: root}, nil
}

// path maps a key to a file under root; a key that would leave it is refused.
func (d *DirStore) path(key string) (string, error) {
	if key == "" || strings.Contains(key, "..") || strings.HasPrefix(key, "/") || strings.ContainsAny(key, "\\\x00") {
		return "", fmt.Errorf("files: bad key %q", key)
	}
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
}

// Put writes to a temporary file beside the target and renames it into place,
// so a reader never sees part of a blob and a failed write leaves nothing.
func (d *DirStore) Put(ctx context.Context, key string, r io.Reader, size int64, _ string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".upload-*")
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	defer os.Remove(tmp.Name()) // harmless after the rename
	n, err := io.Copy(tmp, r)
	err = cmp.Or(err, tmp.Close())
	if err == nil && n != size {
		err = fmt.Errorf("wrote %d bytes, expected %d", n, size)
	}
	if err = cmp.Or(err, ctx.Err()); err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		return fmt.Errorf("files: put %s: %w", key, err)
	}
	return nil
}

// Open opens the blob's file.
func (d *DirStore) Open(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("files: %s: %w", key, ErrNoBlob)
	}
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	return f, nil
}

// Delete removes the blob's file.
func (d *DirStore) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("files: delete %s: %w", key, err)
	}
	return nil
}
