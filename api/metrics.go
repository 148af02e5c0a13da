package api

import (
	"cmp"
	"strconv"
	"time"

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
