package activities

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// WorkMetrics are the Prometheus series of the worker's turns, tool calls
// and Applies. They count activity runs, retries too: read them as rates,
// not as the bill.
type WorkMetrics struct {
	turns    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	tools    *prometheus.CounterVec
	receipts *prometheus.CounterVec
}

// NewWorkMetrics makes the series and registers them on reg.
func NewWorkMetrics(reg prometheus.Registerer) *WorkMetrics {
	m := &WorkMetrics{
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_turns_total",
			Help: "Turns that ended, by status (done, stopped, error)."}, []string{"status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hub_turn_duration_seconds",
			Help:    "A turn's wall time from its message to its end, paused time included, by status.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900}}, []string{"status"}),
		tools: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_tool_calls_total",
			Help: "Tool calls of turns by tool and outcome (done, held, failed, refused, …); every MCP server's tools count as tool=mcp."},
			[]string{"tool", "outcome"}),
		receipts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_apply_receipts_total",
			Help: "Receipts of applied calls by state (succeeded, failed, unknown, …)."}, []string{"status"}),
	}
	reg.MustRegister(m.turns, m.duration, m.tools, m.receipts)
	return m
}

func (m *WorkMetrics) turnEnded(status string, took time.Duration) {
	if m == nil {
		return
	}
	m.turns.WithLabelValues(status).Inc()
	m.duration.WithLabelValues(status).Observe(took.Seconds())
}

func (m *WorkMetrics) toolCalled(tool, outcome string) {
	if m == nil {
		return
	}
	if strings.HasPrefix(tool, "mcp_") {
		tool = "mcp" // one series for every MCP server's tools: their names are unbounded
	}
	m.tools.WithLabelValues(tool, outcome).Inc()
}

func (m *WorkMetrics) applied(byState map[string]int) {
	if m == nil {
		return
	}
	for state, n := range byState {
		m.receipts.WithLabelValues(state).Add(float64(n))
	}
}
