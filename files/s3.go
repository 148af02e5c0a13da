package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config names an S3-compatible bucket (MinIO, AWS S3, R2, …).
type S3Config struct {
	Endpoint  string // host[:port], no scheme (HUB_FILES_S3_ENDPOINT)
	Bucket    string // HUB_FILES_S3_BUCKET
	AccessKey string // HUB_FILES_S3_ACCESS_KEY
	SecretKey string // HUB_FILES_S3_SECRET_KEY
	Region    string // HUB_FILES_S3_REGION; empty: the server's default
	Insecure  bool   // HUB_FILES_S3_INSECURE=true: plain http (a MinIO beside Hub)
}

// Configured tells whether a bucket is named.
func (c S3Config) Configured() bool { return c.Endpoint != "" && c.Bucket != "" }

// S3Store keeps blobs as objects in one bucket, through minio-go.
type S3Store struct {
	c      *minio.Client
	bucket string
	region string
	mu     sync.Mutex
	made   bool // the bucket is known to exist
}

// NewS3Store builds the client; it does not call the server (a bucket that
// is briefly unreachable at start must not stop Hub).
func NewS3Store(cfg S3Config) (*S3Store, error) {
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: !cfg.Insecure,
		Region: cfg.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("files: S3 endpoint %q: %w", cfg.Endpoint, err)
	}
	return &S3Store{c: c, bucket: cfg.Bucket, region: cfg.Region}, nil
}

// ensureBucket makes the bucket on first use if it is missing (a fresh
// MinIO in docker compose has none).
func (s *S3Store) ensureBucket(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.made {
		return nil
	}
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err == nil && !ok {
		err = s.c.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: s.region})
	}
	s.made = err == nil
	return err
}

// Put uploads the object in one request (its size is known).
func (s *S3Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := s.ensureBucket(ctx); err != nil {
		return fmt.Errorf("files: bucket %s: %w", s.bucket, err)
	}
	if _, err := s.c.PutObject(ctx, s.bucket, key, r, size, minio.PutObjectOptions{ContentType: contentType}); err != nil {
		return fmt.Errorf("files: put %s: %w", key, err)
	}
	return nil
}

// Open reads the object; a missing one is ErrNoBlob.
func (s *S3Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := s.c.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err == nil {
		// GetObject is lazy: Stat makes the request and reports a missing key.
		_, err = obj.Stat()
	}
	if err != nil {
		if obj != nil {
			_ = obj.Close()
		}
		if isNoKey(err) {
			return nil, fmt.Errorf("files: %s: %w", key, ErrNoBlob)
		}
		return nil, fmt.Errorf("files: open %s: %w", key, err)
	}
	return obj, nil
}

// Delete removes the object (S3 answers a missing key as deleted).
func (s *S3Store) Delete(ctx context.Context, key string) error {
	if err := s.c.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil && !isNoKey(err) {
		return fmt.Errorf("files: delete %s: %w", key, err)
	}
	return nil
}

func isNoKey(err error) bool {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er.Code == "NoSuchKey" || er.Code == "NoSuchBucket"
	}
	return minio.ToErrorResponse(err).Code == "NoSuchKey"
}
