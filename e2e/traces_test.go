//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"hub/fakemodel"
	"hub/hubtest"
	"hub/traces"
)

// One trace per turn: the POST that starts it, the workflow, each
// activity, each model request and the SQL statements they run, all
// children of that request's span (exported here in-process).
func TestOneTracePerTurn(t *testing.T) {
	t.Parallel()
	exported := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exported))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := hubtest.Start(t, hubtest.Options{Tracer: traces.With(tp), Script: fakemodel.MustParseScript(`{"rules": [
	  {"times": 1, "match": {"afterToolResult": false}, "reply": {"toolCalls": [
	    {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "Book the venue"}]}}]}},
	  {"reply": {"text": "Added it."}}]}`)})
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task to book the venue")
	s.Stream(t, st.StreamURL, 0, 0)

	var post tracetest.SpanStub
	inTrace := func() []tracetest.SpanStub {
		var out []tracetest.SpanStub
		for _, sp := range exported.GetSpans() {
			if sp.SpanKind == trace.SpanKindServer && strings.HasSuffix(sp.Name, "/conversations/:id/turns") {
				post = sp
			}
		}
		for _, sp := range exported.GetSpans() {
			if post.SpanContext.IsValid() && sp.SpanContext.TraceID() == post.SpanContext.TraceID() {
				out = append(out, sp)
			}
		}
		return out
	}
	names := func(spans []tracetest.SpanStub) []string {
		var out []string
		for _, sp := range spans {
			out = append(out, sp.Name)
		}
		return out
	}
	has := func(spans []tracetest.SpanStub, prefix string, n int) bool {
		count := 0
		for _, sp := range spans {
			if strings.HasPrefix(sp.Name, prefix) {
				count++
			}
		}
		return count >= n
	}
	// The workflow's last activity ends after the done frame is sent.
	require.Eventually(t, func() bool {
		spans := inTrace()
		return has(spans, "RunWorkflow:Turn", 1) && has(spans, "RunActivity:FinishTurn", 1)
	}, 10*time.Second, 20*time.Millisecond, "%v", names(inTrace()))
	spans := inTrace()
	require.True(t, post.SpanContext.IsValid(), "the POST of the turn has a span")
	for prefix, n := range map[string]int{"StartWorkflow:Turn": 1, "RunActivity:CallModel": 2, "RunActivity:RunTool": 1, "HTTP POST": 2, "sql ": 10} {
		require.True(t, has(spans, prefix, n), "at least %d %q spans in the turn's trace: %v", n, prefix, names(spans))
	}
	for _, sp := range spans {
		if strings.HasPrefix(sp.Name, "sql ") {
			for _, a := range sp.Attributes {
				if a.Key == "db.statement" {
					require.NotContains(t, a.Value.AsString(), "Book the venue", "statements without their values")
				}
			}
		}
	}
	require.True(t, slices.ContainsFunc(spans, func(sp tracetest.SpanStub) bool { return sp.Parent.SpanID() == post.SpanContext.SpanID() }),
		"children of the request's span")
}
