// Package traces sets up OpenTelemetry tracing for a Hub process: spans of
// the api, Temporal, the database and the model's HTTP calls, one trace
// per turn, exported by OTLP when the standard OTEL_* variables name an
// endpoint. Without one nothing is traced and nothing costs.
package traces

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// Settings say whether and how a process exports traces, read from the
// standard variables (the exporter itself reads the endpoint, headers,
// TLS and timeout ones).
type Settings struct {
	On       bool   // an OTLP endpoint is set and the SDK not disabled
	Protocol string // "grpc" or "http/protobuf" (the default)
	Service  string // OTEL_SERVICE_NAME; empty: "hub"
}

// FromEnv reads Settings; a protocol other than the two is an error.
func FromEnv(getenv func(string) string) (Settings, error) {
	s := Settings{Service: cmp.Or(strings.TrimSpace(getenv("OTEL_SERVICE_NAME")), "hub")}
	endpoint := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") + getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	s.On = strings.TrimSpace(endpoint) != "" && !strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true")
	s.Protocol = cmp.Or(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")),
		strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")), "http/protobuf")
	if s.Protocol != "grpc" && s.Protocol != "http/protobuf" {
		return Settings{}, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL is %q: Hub exports traces by grpc or http/protobuf", s.Protocol)
	}
	return s, nil
}

// Tracer is a process's tracing: off (the zero value) or a tracer provider
// every part takes its spans from.
type Tracer struct {
	tp       trace.TracerProvider
	shutdown func(context.Context) error
}

// With traces into tp (a test's in-memory provider); Shutdown leaves it
// to its owner.
func With(tp trace.TracerProvider) *Tracer { return &Tracer{tp: tp} }

// Start builds the exporter and provider s asks for (off when s is).
func Start(ctx context.Context, s Settings) (*Tracer, error) {
	if !s.On {
		return &Tracer{}, nil
	}
	var exp sdktrace.SpanExporter
	var err error
	if s.Protocol == "grpc" {
		exp, err = otlptracegrpc.New(ctx)
	} else {
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(s.Service)))
	if err != nil && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracer{tp: tp, shutdown: tp.Shutdown}, nil
}

// On tells whether spans are made.
func (t *Tracer) On() bool { return t != nil && t.tp != nil }

// Shutdown flushes the spans not yet exported and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// propagators carry a trace across processes in W3C headers.
var propagators = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// TemporalInterceptors are the Temporal client's (and its workers')
// interceptors, carrying the trace in the workflow's headers so a turn's
// activities are in the trace of the POST that started it.
func (t *Tracer) TemporalInterceptors() ([]interceptor.ClientInterceptor, error) {
	if !t.On() {
		return nil, nil
	}
	i, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: t.tp.Tracer("hub/temporal"), TextMapPropagator: propagators})
	if err != nil {
		return nil, fmt.Errorf("tracing interceptor for Temporal: %w", err)
	}
	return []interceptor.ClientInterceptor{i}, nil
}

// Middleware is the api's: a span per request named by its route (never
// its raw path, which holds ids), continuing a caller's trace.
func (t *Tracer) Middleware() gin.HandlerFunc {
	if !t.On() {
		return nil
	}
	return otelgin.Middleware("hub", otelgin.WithTracerProvider(t.tp), otelgin.WithPropagators(propagators))
}

// Transport wraps an HTTP client's transport (the model's): a span per
// request, its trace headers sent along.
func (t *Tracer) Transport(next http.RoundTripper) http.RoundTripper {
	if !t.On() {
		return next
	}
	return otelhttp.NewTransport(next, otelhttp.WithTracerProvider(t.tp), otelhttp.WithPropagators(propagators))
}
