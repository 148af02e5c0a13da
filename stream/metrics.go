package stream

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// metricsOf holds the Bus's frames counter once Register made it.
type metricsOf struct {
	p atomic.Pointer[prometheus.CounterVec]
}

// Register makes the Bus's series on reg: hub_frames_published_total{type}.
// Before it, nothing is counted.
func (b *Bus) Register(reg prometheus.Registerer) error {
	m := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_frames_published_total",
		Help: "Stream frames this process published, by type (text, tool, status, done, …)."}, []string{"type"})
	if err := reg.Register(m); err != nil {
		return err
	}
	b.metrics.p.Store(m)
	return nil
}

func (b *Bus) countFrame(typ string) {
	if m := b.metrics.p.Load(); m != nil {
		m.WithLabelValues(typ).Inc()
	}
}
