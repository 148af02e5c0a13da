package worker_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"hub/worker"
)

// The SDK's counters, gauges and timers become Prometheus series with the
// tags as labels; one name reported with different tag sets gathers as one
// consistent family; a name already taken by another kind is not
// redefined.
func TestMetricsHandlerReportsTheSDKsMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := worker.NewMetricsHandler(reg)
	q := h.WithTags(map[string]string{"namespace": "default", "task_queue": "hub"})
	q.WithTags(map[string]string{"workflow_type": "Turn"}).Counter("temporal_workflow_completed").Inc(2)
	q.Counter("temporal_workflow_completed").Inc(1)
	q.Gauge("temporal_worker_task_slots_available").Update(199)
	q.Timer("temporal_activity_execution_latency").Record(30 * time.Millisecond)
	q.Timer("temporal_activity_execution_latency").Record(2 * time.Minute)
	q.Gauge("temporal_workflow_completed_total").Update(5) // another kind: ignored

	mfs, err := reg.Gather()
	require.NoError(t, err, "the families are consistent")
	got := map[string]string{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			key := mf.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.GetCounter() != nil:
				got[key] = mf.GetType().String() + " " + strconv.FormatFloat(m.GetCounter().GetValue(), 'g', -1, 64)
			case m.GetGauge() != nil:
				got[key] = mf.GetType().String() + " " + strconv.FormatFloat(m.GetGauge().GetValue(), 'g', -1, 64)
			}
		}
	}
	require.Equal(t, map[string]string{
		"temporal_workflow_completed_total{namespace=default,task_queue=hub,workflow_type=}":     "COUNTER 1",
		"temporal_workflow_completed_total{namespace=default,task_queue=hub,workflow_type=Turn}": "COUNTER 2",
		"temporal_worker_task_slots_available{namespace=default,task_queue=hub}":                 "GAUGE 199",
	}, got)
	for _, mf := range mfs {
		if mf.GetName() == "temporal_activity_execution_latency_seconds" {
			require.Len(t, mf.GetMetric(), 1)
			hist := mf.GetMetric()[0].GetHistogram()
			require.EqualValues(t, 2, hist.GetSampleCount())
			require.InDelta(t, 120.03, hist.GetSampleSum(), 1e-9)
			for _, b := range hist.GetBucket() {
				if b.GetUpperBound() == 0.05 {
					require.EqualValues(t, 1, b.GetCumulativeCount(), "30 ms is under 50 ms")
				}
				if b.GetUpperBound() == 60 {
					require.EqualValues(t, 1, b.GetCumulativeCount(), "two minutes is past the last bucket")
				}
			}
		}
	}
}
