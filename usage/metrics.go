package usage

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"hub/llm"
)

// Metrics are the per-model Prometheus series of model calls.
type Metrics struct {
	calls   *prometheus.CounterVec
	tokens  *prometheus.CounterVec
	cost    *prometheus.CounterVec
	latency *prometheus.HistogramVec
	errors  *prometheus.CounterVec
	refused *prometheus.CounterVec
}

// NewMetrics makes the series and registers them on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_model_calls_total",
			Help: "Requests sent to a model, by model and outcome (ok, error, interrupted)."}, []string{"model", "outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_model_tokens_total",
			Help: "Tokens the provider reported, by model and kind (input, cached_input, output); cached input is part of input."}, []string{"model", "kind"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_model_cost_microdollars_total",
			Help: "What model calls cost at the catalog's prices, in micro-dollars, by model."}, []string{"model"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hub_model_call_duration_seconds",
			Help:    "How long a model request took from send to its last chunk, by model.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160, 320}}, []string{"model"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_model_errors_total",
			Help: "Failed model requests by model and class (the llm error kinds: rate_limited, server, timeout, stream_cut, network, ...)."}, []string{"model", "class"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hub_model_budget_refusals_total",
			Help: "Model calls not made because the space's monthly budget could not hold their estimate, by model."}, []string{"model"}),
	}
	reg.MustRegister(m.calls, m.tokens, m.cost, m.latency, m.errors, m.refused)
	return m
}

// Observe records one request that was made. A nil Metrics records nothing.
func (m *Metrics) Observe(model string, u llm.Usage, cost int64, took time.Duration, err error) {
	if m == nil {
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "error"
		class := ErrorClass(err)
		if class == string(llm.KindCanceled) {
			outcome = "interrupted"
		} else {
			m.errors.WithLabelValues(model, class).Inc()
		}
	}
	m.calls.WithLabelValues(model, outcome).Inc()
	m.tokens.WithLabelValues(model, "input").Add(float64(max(u.InputTokens, 0)))
	m.tokens.WithLabelValues(model, "cached_input").Add(float64(max(u.CachedInputTokens, 0)))
	m.tokens.WithLabelValues(model, "output").Add(float64(max(u.OutputTokens, 0)))
	m.cost.WithLabelValues(model).Add(float64(max(cost, 0)))
	m.latency.WithLabelValues(model).Observe(took.Seconds())
}

// Refused records a call the budget refused.
func (m *Metrics) Refused(model string) {
	if m != nil {
		m.refused.WithLabelValues(model).Inc()
	}
}

// ErrorClass is a failed request's class: its llm error kind, canceled for
// an ended context, else other ("" for no error).
func ErrorClass(err error) string {
	if err == nil {
		return ""
	}
	var le *llm.Error
	if errors.As(err, &le) {
		return string(le.Kind)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return string(llm.KindCanceled)
	}
	return "other"
}
