package worker

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
)

// NewMetricsHandler is the Temporal SDK's metrics as Prometheus series on
// reg: counters as <name>_total, gauges as <name>, timers as histograms
// <name>_seconds. Give it as client.Options.MetricsHandler.
//
// The SDK may use one name with different tag sets; a name's series carry
// the union of its tags, empty where a series has none, so the family
// stays consistent.
func NewMetricsHandler(reg prometheus.Registerer) client.MetricsHandler {
	m := &sdkMetrics{families: map[string]*family{}}
	reg.MustRegister(m)
	return handler{m: m, key: encode(nil)}
}

// timerBuckets reach a minute: the SDK's long polls take up to that.
var timerBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

type kind int

const (
	counterKind kind = iota
	gaugeKind
	timerKind
)

type sdkMetrics struct {
	mu       sync.Mutex
	families map[string]*family // by Prometheus name
}

type family struct {
	kind   kind
	keys   map[string]bool    // every tag key seen
	series map[string]*series // by encoded tags
}

type series struct {
	tags    map[string]string
	value   float64  // counter, gauge
	count   uint64   // timer
	sum     float64  // timer, seconds
	buckets []uint64 // timer, per timerBuckets (not cumulative)
}

func encode(tags map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(tags[k])
		b.WriteByte(0)
	}
	return b.String()
}

// Describe sends nothing: the series appear as the SDK reports them (an
// unchecked collector).
func (m *sdkMetrics) Describe(chan<- *prometheus.Desc) {}

func (m *sdkMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, f := range m.families {
		keys := slices.Sorted(maps.Keys(f.keys))
		desc := prometheus.NewDesc(name, "Temporal SDK metric "+name+".", keys, nil)
		for _, s := range f.series {
			values := make([]string, len(keys))
			for i, k := range keys {
				values[i] = s.tags[k]
			}
			var metric prometheus.Metric
			var err error
			switch f.kind {
			case counterKind:
				metric, err = prometheus.NewConstMetric(desc, prometheus.CounterValue, s.value, values...)
			case gaugeKind:
				metric, err = prometheus.NewConstMetric(desc, prometheus.GaugeValue, s.value, values...)
			case timerKind:
				cum := make(map[float64]uint64, len(timerBuckets))
				var n uint64
				for i, le := range timerBuckets {
					n += s.buckets[i]
					cum[le] = n
				}
				metric, err = prometheus.NewConstHistogram(desc, s.count, s.sum, cum, values...)
			}
			if err == nil { // a tag value that is not UTF-8 is left out
				ch <- metric
			}
		}
	}
}

// handler is one tag set of the SDK's metrics. Its series key is encoded
// once, when the tag set is made, not on every record (~1 % of CPU).
type handler struct {
	m    *sdkMetrics
	tags map[string]string
	key  string // encode(tags)
}

func (h handler) WithTags(tags map[string]string) client.MetricsHandler {
	merged := make(map[string]string, len(h.tags)+len(tags))
	maps.Copy(merged, h.tags)
	for k, v := range tags {
		merged[sanitize(k)] = v
	}
	return handler{m: h.m, tags: merged, key: encode(merged)}
}

func (h handler) Counter(name string) client.MetricsCounter {
	return metric{h: h, name: sanitize(name) + "_total"}
}

func (h handler) Gauge(name string) client.MetricsGauge { return metric{h: h, name: sanitize(name)} }

func (h handler) Timer(name string) client.MetricsTimer {
	return metric{h: h, name: sanitize(name) + "_seconds"}
}

// metric is one named metric of a handler: a counter (Inc), a gauge
// (Update) or a timer (Record), as the handler made it.
type metric struct {
	h    handler
	name string
}

func (m metric) Inc(n int64) { m.update(counterKind, func(s *series) { s.value += float64(n) }) }

func (m metric) Update(v float64) { m.update(gaugeKind, func(s *series) { s.value = v }) }

func (m metric) Record(d time.Duration) {
	sec := d.Seconds()
	m.update(timerKind, func(s *series) {
		s.count++
		s.sum += sec
		for i, le := range timerBuckets {
			if sec <= le {
				s.buckets[i]++
				break
			}
		}
	})
}

// update changes the series of m's tags, made when missing, unless m's
// name is taken by another kind.
func (m metric) update(k kind, change func(*series)) {
	all, h := m.h.m, m.h
	all.mu.Lock()
	defer all.mu.Unlock()
	f := all.families[m.name]
	if f == nil {
		f = &family{kind: k, keys: map[string]bool{}, series: map[string]*series{}}
		all.families[m.name] = f
	} else if f.kind != k {
		return
	}
	s := f.series[h.key]
	if s == nil {
		s = &series{tags: h.tags}
		if k == timerKind {
			s.buckets = make([]uint64, len(timerBuckets))
		}
		f.series[h.key] = s
		for t := range h.tags {
			f.keys[t] = true
		}
	}
	change(s)
}

// sanitize keeps a name or tag key to what Prometheus takes: letters,
// digits and underscores, not starting with a digit.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}
