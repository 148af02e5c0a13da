package wiring

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"hub/config"
)

// DialTemporal connects to the Temporal frontend t names, logging the SDK's
// lines through slog's default handler and reporting its metrics on
// Metrics. It returns once the frontend answered, so a wrong address,
// certificate or key fails at start, with what to set.
func (h *Hub) DialTemporal(ctx context.Context, t config.TemporalClient) (client.Client, error) {
	opts := t.Options
	opts.Logger = sdklog.NewStructuredLogger(slog.Default().With("component", "temporal"))
	opts.MetricsHandler = h.temporalMetrics
	interceptors, err := h.Tracer.TemporalInterceptors()
	if err != nil {
		return nil, err
	}
	// Workflows and activities continue the trace that started them.
	opts.Interceptors = append(opts.Interceptors, interceptors...)
	uncompressedOnLoopback(&opts)
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s (namespace %q%s): %w%s", opts.HostPort, opts.Namespace, via(t), err, hint(t, err))
	}
	return c, nil
}

// uncompressedOnLoopback turns the SDK's gzip of every request off when
// the frontend is on this host, unless chosen explicitly: over loopback it
// saves no time and costs 2–3 % of hub dev's CPU under load.
func uncompressedOnLoopback(opts *client.Options) {
	if opts.ConnectionOptions.GrpcCompression != nil {
		return
	}
	host, _, err := net.SplitHostPort(opts.HostPort)
	if err != nil {
		host = opts.HostPort
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		opts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	}
}

// via says how the client connected, for the error: TLS, the API key, and
// where the settings came from when not only the environment.
func via(t config.TemporalClient) string {
	var parts []string
	if t.Options.ConnectionOptions.TLS != nil {
		parts = append(parts, "TLS")
	}
	if t.APIKey {
		parts = append(parts, "API key")
	}
	if t.Source != "" && t.Source != "environment" {
		parts = append(parts, "from "+t.Source)
	}
	if len(parts) == 0 {
		return ", plain text"
	}
	return ", " + strings.Join(parts, ", ")
}

// hint names the variable that most likely fixes a failed connection.
func hint(t config.TemporalClient, err error) string {
	msg := err.Error()
	tlsOn := t.Options.ConnectionOptions.TLS != nil
	switch {
	case tlsOn && strings.Contains(msg, "certificate signed by unknown authority"):
		return "; the server's certificate is not signed by a CA this process trusts: set TEMPORAL_TLS_SERVER_CA_CERT_PATH (or _DATA) to its CA"
	case tlsOn && (strings.Contains(msg, "certificate is valid for") || strings.Contains(msg, "doesn't contain any IP SANs")):
		return "; the server's certificate names another host: set TEMPORAL_TLS_SERVER_NAME to a name it is valid for"
	case tlsOn && strings.Contains(msg, "certificate required"):
		return "; the server wants a client certificate (mTLS): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH"
	case !tlsOn && (strings.Contains(msg, "connection reset") || strings.Contains(msg, "http2: frame too large") || strings.Contains(msg, "EOF")):
		return "; if the server speaks TLS (Temporal Cloud does), set TEMPORAL_TLS=true or TEMPORAL_API_KEY"
	case strings.Contains(msg, "Unauthenticated") || strings.Contains(msg, "PermissionDenied"):
		return "; check TEMPORAL_API_KEY (or the client certificate) and TEMPORAL_NAMESPACE"
	}
	return ""
}
