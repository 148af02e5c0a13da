package files_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/files"
)

func TestDirStorePutOpenDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "files")
	d, err := files.NewDirStore(root)
	require.NoError(t, err)

	require.NoError(t, d.Put(ctx, "space_1/file_1", strings.NewReader("hello"), 5, "text/plain"))
	rc, err := d.Open(ctx, "space_1/file_1")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, "hello", string(got))

	// A short write leaves nothing, not half a blob.
	require.Error(t, d.Put(ctx, "space_1/file_2", strings.NewReader("abc"), 10, "text/plain"))
	_, err = d.Open(ctx, "space_1/file_2")
	require.True(t, errors.Is(err, files.ErrNoBlob), "%v", err)
	entries, err := os.ReadDir(filepath.Join(root, "space_1"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")

	require.NoError(t, d.Delete(ctx, "space_1/file_1"))
	require.NoError(t, d.Delete(ctx, "space_1/file_1"), "deleting a missing blob is not an error")
	_, err = d.Open(ctx, "space_1/file_1")
	require.ErrorIs(t, err, files.ErrNoBlob)
}

// Keys never leave the store's directory.
func TestDirStoreRefusesKeysOutsideItsDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := files.NewDirStore(t.TempDir())
	require.NoError(t, err)
	for _, key := range []string{"", "../x", "a/../../x", "/etc/passwd", `a\b`, "a\x00b"} {
		require.Error(t, d.Put(ctx, key, bytes.NewReader(nil), 0, ""), "%q", key)
		_, err := d.Open(ctx, key)
		require.Error(t, err, "%q", key)
		require.Error(t, d.Delete(ctx, key), "%q", key)
	}
}

func TestSniffDecidesTheTypeFromTheBytes(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"photo.png", png, "image/png"},
		{"photo.jpg", png, "image/png"}, // the bytes win over the name
		{"scan.jpg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF"), "image/jpeg"},
		{"doc.pdf", []byte("%PDF-1.7\n"), "application/pdf"},
		{"notes.md", []byte("# Notes\n"), "text/markdown"},
		{"data.csv", []byte("a,b\n1,2\n"), "text/csv"},
		{"data.json", []byte(`{"a": 1}`), "application/json"},
		{"readme", []byte("plain words"), "text/plain"},
		{"grüße.txt", []byte("Grüße"), "text/plain"},
		{"page.html", []byte("<!DOCTYPE html><html>"), "text/html"},
		{"page", []byte("<html><body>"), "text/html"},
		{"page.htm", []byte("just words"), "text/html"},
		{"README.md", []byte("<div align=\"center\">"), "text/markdown"}, // the extension wins for text
		{"latin1.html", []byte("<html>caf\xe9 au lait"), ""},
		{"report.docx", []byte("PK\x03\x04\x14\x00\x06\x00"), files.TypeDOCX},
		{"report.DOCX", []byte("PK\x03\x04"), files.TypeDOCX},
		{"report.docx", []byte("plain words"), "text/plain"}, // the bytes win over the name
		{"tool.exe", []byte("MZ\x90\x00\x03\x00"), ""},
		{"archive.zip", []byte("PK\x03\x04"), ""},
		{"latin1.txt", []byte("caf\xe9 au lait"), ""},
		{"empty.txt", nil, "text/plain"},
	} {
		require.Equal(t, tc.want, files.Sniff(tc.name, tc.head), tc.name)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := files.ConfigFromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, files.Config{}, c)
	st, err := files.NewStore(c)
	require.NoError(t, err)
	require.Nil(t, st, "no store configured")

	c, err = files.ConfigFromEnv(env(map[string]string{"HUB_FILES_S3_ENDPOINT": "minio:9000", "HUB_FILES_S3_BUCKET": "hub",
		"HUB_FILES_S3_INSECURE": "true", "HUB_FILES_MAX_BYTES": "1048576"}))
	require.NoError(t, err)
	require.True(t, c.S3.Configured())
	require.True(t, c.S3.Insecure)
	require.EqualValues(t, 1<<20, c.MaxBytes)
	st, err = files.NewStore(c)
	require.NoError(t, err)
	require.IsType(t, &files.S3Store{}, st)

	for _, bad := range []map[string]string{
		{"HUB_FILES_S3_ENDPOINT": "minio:9000"},
		{"HUB_FILES_DIR": "/tmp/x", "HUB_FILES_S3_ENDPOINT": "minio:9000", "HUB_FILES_S3_BUCKET": "hub"},
		{"HUB_FILES_MAX_BYTES": "12"},
		{"HUB_FILES_MAX_BYTES": "lots"},
		{"HUB_FILES_S3_INSECURE": "maybe"},
	} {
		_, err := files.ConfigFromEnv(env(bad))
		require.Error(t, err, "%v", bad)
	}
}

// blobs lists the files under a store's directory.
func blobs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	}))
	return out
}
