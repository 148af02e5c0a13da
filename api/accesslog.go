package api

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"hub/workspace"
)

// accessLog writes one line per request when it ends ("request"): the
// method, the route template (/api/assistant/turns/:turnId, or "unmatched"),
// the route's path parameters (ids) each under its own key, the status, the
// duration in milliseconds, the bytes answered and the person's id once
// authenticated. Never the raw URL (its query can hold a stream token),
// never a header, never a body. Probes and /metrics are logged at debug
// level: a load balancer asks every few seconds. A 5xx is a warning (its
// cause is logged by respondError).
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
