package stream

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// busMetrics are the Bus's Prometheus series: frames published by type,
// and how often the Postgres listener had to connect again.
type busMetrics struct {
	frames     *prometheus.CounterVec
	reconnects prometheus.Counter
}

// metricsOf is where a Bus keeps its series once Register made them.
type metricsOf struct{ p atomic.Pointer[busMetrics] }

// Register makes the Bus's series on reg: hub_frames_published_total{type}
// and hub_frame_listener_reconnects_total. Before it, nothing is counted.
func (b *Bus) Register(reg prometheus.Registerer) error {
	m := &busMetrics{
		frames: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_frames_published_total",
			Help: "Stream frames this process published, by type (text, tool, status, done, …)."}, []string{"type"}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{Name: "hub_frame_listener_reconnects_total",
			Help: "Times the frames listener (Postgres LISTEN) lost, or could not make, its connection and tried again; followers poll meanwhile."}),
	}
	if err := reg.Register(m.frames); err != nil {
		return err
	}
	if err := reg.Register(m.reconnects); err != nil {
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

func (b *Bus) countReconnect() {
	if m := b.metrics.p.Load(); m != nil {
		m.reconnects.Inc()
	}
}
