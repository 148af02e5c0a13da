package config

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// Log says how a Hub process logs: every line, the Temporal SDK's and
// server's too, goes through the one handler Log.Handler builds.
type Log struct {
	JSON  bool       // HUB_LOG_FORMAT=json; the default is slog's text format
	Level slog.Level // the lowest level written (HUB_LOG_LEVEL; default info)
}

// LogFromEnv reads HUB_LOG_FORMAT and HUB_LOG_LEVEL; getenv is os.Getenv
// when nil. A value that is present but wrong is an error.
func LogFromEnv(getenv func(string) string) (Log, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var l Log
	switch f := strings.ToLower(strings.TrimSpace(getenv("HUB_LOG_FORMAT"))); f {
	case "", "text":
	case "json":
		l.JSON = true
	default:
		return Log{}, fmt.Errorf("HUB_LOG_FORMAT: want text or json, not %q", f)
	}
	v := strings.ToLower(strings.TrimSpace(getenv("HUB_LOG_LEVEL")))
	var ok bool
	if l.Level, ok = levels[v]; !ok {
		return Log{}, fmt.Errorf("HUB_LOG_LEVEL: want debug, info, warn or error, not %q", v)
	}
	return l, nil
}

// levels are HUB_LOG_LEVEL's values; unset is info.
var levels = map[string]slog.Level{
	"": slog.LevelInfo, "info": slog.LevelInfo, "debug": slog.LevelDebug,
	"warn": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError,
}

// Handler is the handler every log line of the process goes through,
// writing to w. Attributes whose key names a secret are written as
// "[redacted]": no code path logs one on purpose, and this keeps a mistake
// from leaking it.
func (l Log) Handler(w io.Writer) slog.Handler {
	opts := &slog.HandlerOptions{Level: l.Level, ReplaceAttr: redact}
	if l.JSON {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// secretKeys are attribute keys (lowercased, without - and _) that are
// never written with their value.
var secretKeys = map[string]bool{
	"authorization": true, "token": true, "streamtoken": true, "bearer": true, "secret": true,
	"password": true, "apikey": true, "cookie": true,
}

func redact(_ []string, a slog.Attr) slog.Attr {
	if len(a.Key) > 32 || a.Value.Kind() == slog.KindGroup {
		return a
	}
	// The key lowered, without - and _, in a buffer on the stack: this
	// runs for every attribute of every line.
	var buf [32]byte
	k := buf[:0]
	for i := 0; i < len(a.Key); i++ {
		c := a.Key[i]
		switch {
		case c == '-' || c == '_':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		k = append(k, c)
	}
	if secretKeys[string(k)] { // no allocation: a map lookup by a converted []byte
		return slog.String(a.Key, "[redacted]")
	}
	return a
}
