package files_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/files"
)

// fakeS3 answers the few S3 calls S3Store makes (path style): a bucket's
// HEAD and PUT, an object's PUT, GET and DELETE. Enough to run the store's
// code against the S3 protocol without a server; a real MinIO runs in
// docker compose.
type fakeS3 struct {
	mu      sync.Mutex
	buckets map[string]bool
	objects map[string][]byte
	types   map[string]string
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	noSuch := func(code string) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+code+`</Code><Message>not found</Message></Error>`)
		}
	}
	switch {
	case key == "" && r.Method == http.MethodHead:
		if !f.buckets[bucket] {
			noSuch("NoSuchBucket")
		}
	case key == "" && r.Method == http.MethodPut:
		f.buckets[bucket] = true
	case !f.buckets[bucket]:
		noSuch("NoSuchBucket")
	case r.Method == http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		if strings.HasPrefix(r.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
			b = unchunk(b)
		}
		f.objects[path], f.types[path] = b, r.Header.Get("Content-Type")
		w.Header().Set("ETag", `"etag"`)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		b, ok := f.objects[path]
		if !ok {
			noSuch("NoSuchKey")
			return
		}
		w.Header().Set("Content-Type", f.types[path])
		w.Header().Set("ETag", `"etag"`)
		w.Header().Set("Last-Modified", "Tue, 01 Dec 2026 12:00:00 GMT")
		_, _ = w.Write(b)
	case r.Method == http.MethodDelete:
		delete(f.objects, path)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusNotImplemented)
	}
}

// unchunk decodes an aws-chunked body ("<hex size>;chunk-signature=…\r\n
// <data>\r\n", ending with a chunk of size 0), which minio-go sends over
// plain http.
func unchunk(b []byte) []byte {
	var out []byte
	for {
		line, rest, ok := strings.Cut(string(b), "\r\n")
		if !ok {
			return out
		}
		sizeHex, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(sizeHex, 16, 64)
		if err != nil || n == 0 || int(n) > len(rest) {
			return out
		}
		out = append(out, rest[:n]...)
		b = []byte(strings.TrimPrefix(rest[n:], "\r\n"))
	}
}

func TestS3StorePutOpenDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := &fakeS3{buckets: map[string]bool{}, objects: map[string][]byte{}, types: map[string]string{}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	st, err := files.NewS3Store(files.S3Config{Endpoint: strings.TrimPrefix(srv.URL, "http://"), Bucket: "hub-files",
		AccessKey: "hub", SecretKey: "secret-key", Region: "us-east-1", Insecure: true})
	require.NoError(t, err)

	require.NoError(t, st.Put(ctx, "space_1/file_1", strings.NewReader("hello"), 5, "text/plain"))
	require.True(t, fake.buckets["hub-files"], "the bucket is made on first use")
	require.Equal(t, "hello", string(fake.objects["hub-files/space_1/file_1"]))
	require.Equal(t, "text/plain", fake.types["hub-files/space_1/file_1"])

	rc, err := st.Open(ctx, "space_1/file_1")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, "hello", string(got))

	_, err = st.Open(ctx, "space_1/nope")
	require.ErrorIs(t, err, files.ErrNoBlob)

	require.NoError(t, st.Delete(ctx, "space_1/file_1"))
	require.Empty(t, fake.objects)
	_, err = st.Open(ctx, "space_1/file_1")
	require.ErrorIs(t, err, files.ErrNoBlob)
}
