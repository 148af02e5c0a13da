package assistant

import (
	"errors"
	"slices"
	"testing"
	"time"

	"hub/tools"
	"hub/workspace"
)

// The offer's cost on a haystack the size of a real assistant's: 1,500
// synthetic tools plus Hub's, the labelled requests as queries in turn.
// Each reports the median and p99 of one request (ns) besides ns/op and
// allocations; docs/offer.md records the numbers.

const benchTools = 1500

// reportPercentiles adds median and p99 of the per-request times.
func reportPercentiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "median-ns/req")
	b.ReportMetric(float64(took[min(len(took)-1, len(took)*99/100)].Nanoseconds()), "p99-ns/req")
}

func benchQueries(b *testing.B) []string {
	set, err := OfferEvalSet()
	if err != nil {
		b.Fatal(err)
	}
	var qs []string
	for _, c := range set.Cases {
		qs = append(qs, c.Request)
	}
	return qs
}

// BenchmarkRank1500 is the default ranker alone over 1,500+ candidates,
// its word cache warm (as in a running worker).
func BenchmarkRank1500(b *testing.B) {
	all := shippedPlaybooks(b)
	defs := EvalRegistry(all, benchTools).Offerable(workspace.RoleOwner, workspace.Settings{ConnectedAppWrites: true})
	qs := benchQueries(b)
	r := NewWordRanker()
	_, _ = r.Rank("warm the cache", defs)
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		_, _ = r.Rank(qs[i%len(qs)], defs)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, took)
}

// BenchmarkRank1500Cold is the first request a new ranker sees: every
// description is read and cached.
func BenchmarkRank1500Cold(b *testing.B) {
	all := shippedPlaybooks(b)
	defs := EvalRegistry(all, benchTools).Offerable(workspace.RoleOwner, workspace.Settings{ConnectedAppWrites: true})
	qs := benchQueries(b)
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewWordRanker()
		start := time.Now()
		_, _ = r.Rank(qs[i%len(qs)], defs)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, took)
}

// BenchmarkBuildOffer1500 is a whole offer: grants, routing, ranking,
// the reserved tail and the cut.
func BenchmarkBuildOffer1500(b *testing.B) {
	all := shippedPlaybooks(b)
	reg := EvalRegistry(all, benchTools)
	qs := benchQueries(b)
	in := OfferInput{Registry: reg, Role: workspace.RoleOwner, Settings: workspace.Settings{ConnectedAppWrites: true}, Playbooks: all,
		AppNames: []string{"Slack", "Team channel"}}
	BuildOffer(in)
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Message = qs[i%len(qs)]
		start := time.Now()
		BuildOffer(in)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, took)
}

// BenchmarkBuildOffer1500Fallback is a whole offer whose ranker fails
// every time: the local word match does the work.
func BenchmarkBuildOffer1500Fallback(b *testing.B) {
	all := shippedPlaybooks(b)
	reg := EvalRegistry(all, benchTools)
	qs := benchQueries(b)
	failing := rankerFunc(func(string, []*tools.Definition) ([]string, error) { return nil, errors.New("down") })
	in := OfferInput{Registry: reg, Role: workspace.RoleOwner, Settings: workspace.Settings{ConnectedAppWrites: true}, Playbooks: all, Ranker: failing}
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Message = qs[i%len(qs)]
		start := time.Now()
		BuildOffer(in)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, took)
}
