package api

import (
	"cmp"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"hub/workspace"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	requests *prometheus.HistogramVec
	sse      *prometheus.GaugeVec
}

// sseOpen counts an open event stream of a kind until the returned func
// runs.
func (m *metrics) sseOpen(kind string) func() {
	g := m.sse.WithLabelValues(kind)
	g.Inc()
	return g.Dec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "hub_http_request_duration_seconds", Help: "HTTP requests by route and status.",
		Buckets: prometheus.DefBuckets,
	}, []string{"method", "route", "status"}),
		sse: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hub_sse_clients",
			Help: "Event streams open on this api process, by stream (turn, activity)."}, []string{"stream"})}
	reg.MustRegister(m.requests, m.sse, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(c *gin.Context) {
	start := time.Now()
	c.Next()
	m.requests.WithLabelValues(c.Request.Method, routeOf(c), strconv.Itoa(c.Writer.Status())).Observe(time.Since(start).Seconds())
}

// routeOf is the request's route template, or "unmatched".
func routeOf(c *gin.Context) string { return cmp.Or(c.FullPath(), "unmatched") }

// accessLog writes one line per request when it ends. Never the raw URL
// (its query can hold a stream token), a header or a body. Probes are
// logged at debug level: a load balancer asks every few seconds.
func (s *Server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := routeOf(c)
	status := c.Writer.Status()
	attrs := []slog.Attr{slog.String("method", c.Request.Method), slog.String("route", route)}
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
