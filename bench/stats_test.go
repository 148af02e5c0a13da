package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func msList(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestSummarise(t *testing.T) {
	t.Parallel()
	require.Equal(t, Latencies{}, summarise(nil), "no samples")
	require.Equal(t, Latencies{N: 1, Median: 7, P99: 7, Min: 7, Max: 7}, summarise(msList(7)))
	// Odd: the middle one; even: the mean of the two middle ones; the
	// input's order does not matter and is not changed.
	in := msList(9, 1, 5)
	require.Equal(t, 5.0, summarise(in).Median)
	require.Equal(t, msList(9, 1, 5), in)
	require.Equal(t, 3.5, summarise(msList(4, 1, 3, 9)).Median)

	// Nearest rank: of 100 samples 1..100 ms, p99 is the 99th; of 200, the
	// 198th; of 10, the greatest.
	var hundred, twoHundred []int
	for i := 1; i <= 200; i++ {
		if i <= 100 {
			hundred = append(hundred, i)
		}
		twoHundred = append(twoHundred, i)
	}
	require.Equal(t, Latencies{N: 100, Median: 50.5, P99: 99, Min: 1, Max: 100}, summarise(msList(hundred...)))
	require.Equal(t, 198.0, summarise(msList(twoHundred...)).P99)
	require.Equal(t, 10.0, summarise(msList(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)).P99)

	// Microsecond resolution in milliseconds.
	require.Equal(t, 1.235, summarise([]time.Duration{1234567 * time.Nanosecond}).Median)
}
