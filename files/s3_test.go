package files_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	"hub/files"
)

// s3Server runs gofakes3, an S3 server implementation in Go (request
// routing, signed and aws-chunked uploads, the S3 error bodies), on
// loopback; MinIO itself runs in docker compose.
func s3Server(t *testing.T) (*s3mem.Backend, files.S3Config) {
	t.Helper()
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	return backend, files.S3Config{Endpoint: strings.TrimPrefix(srv.URL, "http://"), Bucket: "hub-files",
		AccessKey: "hub", SecretKey: "secret-key", Region: "us-east-1", Insecure: true}
}

func TestS3StorePutOpenDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	backend, cfg := s3Server(t)
	st, err := files.NewS3Store(cfg)
	require.NoError(t, err)

	require.NoError(t, st.Put(ctx, "space_1/file_1", strings.NewReader("hello"), 5, "text/plain"))
	ok, err := backend.BucketExists("hub-files")
	require.NoError(t, err)
	require.True(t, ok, "the bucket is made on first use")
	obj, err := backend.HeadObject("hub-files", "space_1/file_1")
	require.NoError(t, err)
	require.EqualValues(t, 5, obj.Size)
	require.Equal(t, "text/plain", obj.Metadata["Content-Type"])

	rc, err := st.Open(ctx, "space_1/file_1")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, "hello", string(got))

	_, err = st.Open(ctx, "space_1/nope")
	require.ErrorIs(t, err, files.ErrNoBlob)

	require.NoError(t, st.Delete(ctx, "space_1/file_1"))
	require.NoError(t, st.Delete(ctx, "space_1/file_1"), "deleting a missing object is not an error")
	_, err = backend.HeadObject("hub-files", "space_1/file_1")
	require.Error(t, err)
	_, err = st.Open(ctx, "space_1/file_1")
	require.ErrorIs(t, err, files.ErrNoBlob)
}

// A bigger blob goes up in one signed, streamed request and comes back the
// same; a store whose bucket already exists does not try to make it again.
func TestS3StoreKeepsBytesAndUsesAnExistingBucket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	backend, cfg := s3Server(t)
	require.NoError(t, backend.CreateBucket(cfg.Bucket))
	st, err := files.NewS3Store(cfg)
	require.NoError(t, err)

	body := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	require.NoError(t, st.Put(ctx, "space_2/big", strings.NewReader(body), int64(len(body)), "application/pdf"))
	rc, err := st.Open(ctx, "space_2/big")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, body, string(got))

	// Opening before any Put on a fresh store: the bucket is not made by a
	// read, and a missing key is still ErrNoBlob.
	other, err := files.NewS3Store(files.S3Config{Endpoint: cfg.Endpoint, Bucket: "never-made",
		AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey, Region: cfg.Region, Insecure: true})
	require.NoError(t, err)
	_, err = other.Open(ctx, "space_2/big")
	require.ErrorIs(t, err, files.ErrNoBlob)
	ok, err := backend.BucketExists("never-made")
	require.NoError(t, err)
	require.False(t, ok)
}
