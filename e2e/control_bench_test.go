//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/workflows"
)

// longStream streams for a minute: any stop or pause lands mid-stream,
// even one that waits for a heartbeat.
var longStream = `{"rules": [{"reply": {"text": "` + strings.Repeat("word ", 1200) + `", "chunkSize": 5, "chunkDelay": "50ms"}}]}`

// reportPercentiles reports the median and p99 of d as <name>-p50-ms and
// <name>-p99-ms.
func reportPercentiles(b *testing.B, name string, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	b.ReportMetric(ms(d[len(d)/2]), name+"-p50-ms")
	b.ReportMetric(ms(d[(len(d)*99)/100]), name+"-p99-ms")
}

// streaming starts a turn and waits until the model is streaming its
// answer; it returns the turn.
func streaming(ctx context.Context, b *testing.B, s *hubtest.Stack) hubtest.Started {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	s.Model.Reset()
	st := s.Ask(b, s.Conversation(b), "tell me a long story")
	_, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 && r[0].FirstByteAt != nil })
	require.NoError(b, err)
	return st
}

// disconnected waits until the model saw the turn's call leave and returns
// when.
func disconnected(ctx context.Context, b *testing.B, s *hubtest.Stack) time.Time {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	reqs, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 && r[0].ClientDisconnectedAt != nil })
	require.NoError(b, err)
	return *reqs[0].ClientDisconnectedAt
}

// BenchmarkStop measures POST …/stop → the scripted model sees its
// connection closed (fakemodel's clientDisconnectedAt), with the model
// streaming. "same-process": the api that takes the stop runs in the
// worker's process and closes the call at once (stream.Interrupts, as in
// `hub dev`). "other-process": the stop goes to another api, so only the
// durable signal reaches the call, with the activity's next heartbeat
// response (the cross-process fast path is still to do; run it with a
// small -benchtime, each stop takes seconds). docs/benchmarks.md has the
// numbers.
func BenchmarkStop(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(longStream)})
	other := s.StartAPI(b)
	ctx := context.Background()
	for _, bc := range []struct{ name, url string }{{"same-process", s.URL}, {"other-process", other.URL}} {
		b.Run(bc.name, func(b *testing.B) {
			var d []time.Duration
			for b.Loop() {
				b.StopTimer()
				st := streaming(ctx, b, s)
				req, err := http.NewRequest("POST", bc.url+"/api/assistant/turns/"+st.TurnID+"/stop", nil)
				require.NoError(b, err)
				req.Header.Set("Authorization", "Bearer "+s.Token)
				b.StartTimer()
				start := time.Now()
				resp, err := s.HTTP.Do(req)
				require.NoError(b, err)
				_ = resp.Body.Close()
				require.Equal(b, http.StatusAccepted, resp.StatusCode)
				d = append(d, disconnected(ctx, b, s).Sub(start))
				b.StopTimer()
				require.Equal(b, "stopped", s.AwaitStatus(b, st.TurnID)["status"])
				b.StartTimer()
			}
			reportPercentiles(b, "closed", d)
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkPause measures POST …/pause → the model's connection closed,
// and → the turn's workflow reports itself paused (its state query; the
// api records "paused" at once, so the row would say nothing).
func BenchmarkPause(b *testing.B) {
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(longStream)})
	ctx := context.Background()
	var closed, paused []time.Duration
	for b.Loop() {
		b.StopTimer()
		st := streaming(ctx, b, s)
		b.StartTimer()
		start := time.Now()
		r := s.Do(b, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/pause", nil)
		require.Equal(b, http.StatusAccepted, r.Status)
		for {
			v, err := s.Temporal.QueryWorkflow(ctx, workflows.TurnWorkflowID(st.TurnID), "", workflows.StateQuery)
			require.NoError(b, err)
			var state workflows.TurnState
			require.NoError(b, v.Get(&state))
			if state.Status == "paused" {
				break
			}
		}
		paused = append(paused, time.Since(start))
		closed = append(closed, disconnected(ctx, b, s).Sub(start))
		b.StopTimer()
		r = s.Do(b, s.Token, "POST", "/api/assistant/turns/"+st.TurnID+"/stop", nil)
		require.Equal(b, http.StatusAccepted, r.Status)
		require.Equal(b, "stopped", s.AwaitStatus(b, st.TurnID)["status"])
		b.StartTimer()
	}
	reportPercentiles(b, "closed", closed)
	reportPercentiles(b, "paused", paused)
	b.ReportMetric(0, "ns/op")
}

// BenchmarkFirstText measures the model's first chunk leaving the scripted
// model → the SSE client reading the first text frame: the model stream,
// CallModel, the frame written to Postgres, the api woken and the event
// written. The model waits 100 ms before its first token, so the client is
// connected and waiting, as in the product.
func BenchmarkFirstText(b *testing.B) {
	script := `{"rules": [{"reply": {"text": "Hello there.", "firstTokenDelay": "100ms"}}]}`
	s := hubtest.Start(b, hubtest.Options{Script: fakemodel.MustParseScript(script)})
	ctx := context.Background()
	var d []time.Duration
	for b.Loop() {
		b.StopTimer()
		s.Model.Reset()
		st := s.Ask(b, s.Conversation(b), "hello")
		es := s.OpenEvents(ctx, b, s.URL+st.StreamURL, "", "")
		b.StartTimer()
		var got time.Time
		for {
			e, err := es.Next()
			require.NoError(b, err)
			if e.Type == "text" {
				got = time.Now()
				break
			}
		}
		// The model stamps its first byte after the flush returns; the
		// text can reach the client before that stamp is written.
		reqs, err := s.Model.Await(ctx, func(r []fakemodel.RecordedRequest) bool { return len(r) == 1 && r[0].FirstByteAt != nil })
		require.NoError(b, err)
		d = append(d, got.Sub(*reqs[0].FirstByteAt))
		b.StopTimer()
		for {
			e, err := es.Next()
			require.NoError(b, err)
			if e.Type == "done" {
				break
			}
		}
		es.Close()
		b.StartTimer()
	}
	reportPercentiles(b, "first-text", d)
	b.ReportMetric(0, "ns/op")
}
