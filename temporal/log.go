package temporal

import (
	"context"
	"log/slog"
	"slices"

	serverlog "go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// slogLogger adapts an *slog.Logger to the server's own logging interface, so
// the embedded server writes through the process's handler. minLevel drops the
// server's many info lines on start and stop before they reach it.
type slogLogger struct {
	log      *slog.Logger
	minLevel slog.Level
	tags     []tag.Tag
}

var (
	_ serverlog.Logger      = slogLogger{}
	_ serverlog.WithLogger  = slogLogger{}
	_ serverlog.SLogWrapper = slogLogger{}
)

func (l slogLogger) Debug(msg string, tags ...tag.Tag) { l.emit(slog.LevelDebug, msg, tags) }
func (l slogLogger) Info(msg string, tags ...tag.Tag)  { l.emit(slog.LevelInfo, msg, tags) }
func (l slogLogger) Warn(msg string, tags ...tag.Tag)  { l.emit(slog.LevelWarn, msg, tags) }
func (l slogLogger) Error(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }

// DPanic, Panic and Fatal are logged as errors and do not panic or exit: an
// embedded server must never take the process that hosts it down with it.
func (l slogLogger) DPanic(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }
func (l slogLogger) Panic(msg string, tags ...tag.Tag)  { l.emit(slog.LevelError, msg, tags) }
func (l slogLogger) Fatal(msg string, tags ...tag.Tag)  { l.emit(slog.LevelError, msg, tags) }

// With returns a logger that prepends tags.
func (l slogLogger) With(tags ...tag.Tag) serverlog.Logger {
	return slogLogger{log: l.log, minLevel: l.minLevel, tags: slices.Concat(l.tags, tags)}
}

// SLog lets server components that want an *slog.Logger use ours directly.
func (l slogLogger) SLog() *slog.Logger { return l.log }

func (l slogLogger) emit(level slog.Level, msg string, tags []tag.Tag) {
	if level < l.minLevel || !l.log.Enabled(context.Background(), level) {
		return
	}
	attrs := make([]slog.Attr, 0, len(l.tags)+len(tags))
	for _, t := range slices.Concat(l.tags, tags) {
		attrs = append(attrs, slog.Any(t.Key(), t.Value()))
	}
	l.log.LogAttrs(context.Background(), level, msg, attrs...)
}
