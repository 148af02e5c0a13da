package stream

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// busMetrics are the Bus's Prometheus series: frames published by type.
// (The listener's reconnects are the notifier's: notify.Notifier.Register.)
type busMetrics struct {
	frames *prometheus.CounterVec
}

// metricsOf is where a Bus keeps its series once Register made them.
type metricsOf struct{ p atomic.Pointer[busMetrics] }

// Register makes the Bus's series on reg: hub_frames_published_total{type}.
// Before it, nothing is counted.
func (b *Bus) Register(reg prometheus.Registerer) error {
	m := &busMetrics{
		frames: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_frames_published_total",
			Help: "Stream frames this process published, by type (text, tool, status, done, …)."}, []string{"type"}),
	}
	if err := reg.Register(m.frames); err != nil {
		return err
	}
	b.metrics.p.Store(m)
	return nil
}

func (b *Bus) countFrame(typ string) {
	if m := b.metrics.p.Load(); m != nil {
		m.frames.WithLabelValues(typ).Inc()
	}
}
