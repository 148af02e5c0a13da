package bench

import (
	"math"
	"slices"
	"time"
)

// Latencies summarises one phase's turn times.
type Latencies struct {
	N      int     `json:"n"`
	Median float64 `json:"medianMs"`
	P99    float64 `json:"p99Ms"`
	Min    float64 `json:"minMs"`
	Max    float64 `json:"maxMs"`
}

// summarise returns the median (the mean of the two middle values for an
// even count), the nearest-rank 99th percentile (the smallest value at
// least 99 % of the samples do not exceed), the least and the greatest, in
// milliseconds. No samples is the zero summary.
func summarise(d []time.Duration) Latencies {
	if len(d) == 0 {
		return Latencies{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	n := len(s)
	median := s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return Latencies{N: n, Median: ms(median), P99: ms(percentile(s, 99)), Min: ms(s[0]), Max: ms(s[n-1])}
}

// percentile is the nearest-rank p-th percentile of sorted samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = max(1, min(rank, len(sorted)))
	return sorted[rank-1]
}

func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
