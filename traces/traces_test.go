package traces_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/traces"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestSettingsFromTheStandardVariables(t *testing.T) {
	t.Parallel()
	s, err := traces.FromEnv(env(nil))
	require.NoError(t, err)
	require.False(t, s.On, "no endpoint, no traces")
	tr, err := traces.Start(context.Background(), s)
	require.NoError(t, err)
	require.False(t, tr.On())
	require.Nil(t, tr.Middleware())
	i, err := tr.TemporalInterceptors()
	require.NoError(t, err)
	require.Empty(t, i)

	s, err = traces.FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SERVICE_NAME": "hub-worker"}))
	require.NoError(t, err)
	require.Equal(t, traces.Settings{On: true, Protocol: "http/protobuf", Service: "hub-worker"}, s)
	s, err = traces.FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}))
	require.NoError(t, err)
	require.Equal(t, traces.Settings{On: true, Protocol: "grpc", Service: "hub"}, s)
	s, err = traces.FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_SDK_DISABLED": "true"}))
	require.NoError(t, err)
	require.False(t, s.On, "OTEL_SDK_DISABLED wins")
	_, err = traces.FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}))
	require.ErrorContains(t, err, "grpc or http/protobuf")

	// On: an exporter is made (it connects lazily; nothing is sent here).
	tr, err = traces.Start(context.Background(), traces.Settings{On: true, Protocol: "http/protobuf", Service: "hub"})
	require.NoError(t, err)
	require.True(t, tr.On())
	require.NoError(t, tr.Shutdown(context.Background()))
}
