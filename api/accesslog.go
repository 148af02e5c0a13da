package api

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// accessLog writes one line per request when it ends. Never the raw URL
// (its query can hold a stream token), a header or a body. Probes are
// logged at debug level: a load balancer asks every few seconds.
func (s *Server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := routeOf(c)
	status := c.Writer.Status()
	attrs := make([]slog.Attr, 0, 8+len(c.Params))
	attrs = append(attrs, slog.String("method", c.Request.Method), slog.String("route", route))
	for _, p := range c.Params {
		attrs = append(attrs, slog.String(p.Key, p.Value))
	}
	attrs = append(attrs, slog.Int("status", status),
		slog.Float64("ms", float64(time.Since(start).Microseconds())/1000),
		slog.Int("bytes", max(c.Writer.Size(), 0)))
	if p, ok := c.Get(personKey); ok {
		if p, ok := p.(workspace.Person); ok {
			attrs = append(attrs, slog.String("person", p.ID))
		}
	}
	level := slog.LevelInfo
	switch route {
	case "/healthz", "/readyz", "/metrics":
		level = slog.LevelDebug
	}
	if status >= http.StatusInternalServerError {
		level = slog.LevelWarn
	}
	slog.LogAttrs(c.Request.Context(), level, "request", attrs...)
}
