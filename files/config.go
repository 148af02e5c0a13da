package files

import (
	"fmt"
	"strconv"
	"strings"
)

// Config is where files are kept and how large one may be. Dir and S3 are
// exclusive; with neither, files cannot be attached (uploads answer 503)
// except in `hub dev`, which keeps them under .hub/files.
type Config struct {
	Dir      string // HUB_FILES_DIR: a local directory
	S3       S3Config
	MaxBytes int64 // HUB_FILES_MAX_BYTES; 0: DefaultMaxBytes
}

// ConfigFromEnv reads HUB_FILES_*.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{Dir: strings.TrimSpace(getenv("HUB_FILES_DIR")), S3: S3Config{
		Endpoint:  strings.TrimSpace(getenv("HUB_FILES_S3_ENDPOINT")),
		Bucket:    strings.TrimSpace(getenv("HUB_FILES_S3_BUCKET")),
		AccessKey: getenv("HUB_FILES_S3_ACCESS_KEY"),
		SecretKey: getenv("HUB_FILES_S3_SECRET_KEY"),
		Region:    strings.TrimSpace(getenv("HUB_FILES_S3_REGION")),
	}}
	if v := getenv("HUB_FILES_S3_INSECURE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("HUB_FILES_S3_INSECURE: want true or false, not %q", v)
		}
		c.S3.Insecure = b
	}
	if (c.S3.Endpoint == "") != (c.S3.Bucket == "") {
		return Config{}, fmt.Errorf("HUB_FILES_S3_ENDPOINT and HUB_FILES_S3_BUCKET go together: set both or neither")
	}
	if c.Dir != "" && c.S3.Configured() {
		return Config{}, fmt.Errorf("HUB_FILES_DIR and HUB_FILES_S3_ENDPOINT are exclusive: files are kept in one place")
	}
	if v := getenv("HUB_FILES_MAX_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 || n > 1<<30 {
			return Config{}, fmt.Errorf("HUB_FILES_MAX_BYTES: want a number of bytes from 1024 to 1073741824, not %q", v)
		}
		c.MaxBytes = n
	}
	return c, nil
}

// NewStore builds the configured store: nil when neither a directory nor a
// bucket is named.
func NewStore(c Config) (Store, error) {
	switch {
	case c.S3.Configured():
		return NewS3Store(c.S3)
	case c.Dir != "":
		return NewDirStore(c.Dir)
	}
	return nil, nil
}
