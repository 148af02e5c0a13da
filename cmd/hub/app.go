package main

import (
	"context"
	"fmt"
	"log/slog"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"golang.org/x/sync/errgroup"

	"hub/wiring"
)

// dialTemporal connects to the Temporal frontend, logging through slog,
// traced as h traces (its workers are too).
func dialTemporal(ctx context.Context, h *wiring.Hub, address, namespace string) (client.Client, error) {
	interceptors, err := h.TemporalInterceptors()
	if err != nil {
		return nil, err
	}
	c, err := client.DialContext(ctx, client.Options{
		HostPort:     address,
		Namespace:    namespace,
		Logger:       sdklog.NewStructuredLogger(slog.Default().With("component", "temporal")),
		Interceptors: interceptors,
	})
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w", address, err)
	}
	return c, nil
}

// runAll runs functions until the first fails or all end.
func runAll(fns ...func() error) error {
	var g errgroup.Group
	for _, f := range fns {
		g.Go(f)
	}
	return g.Wait()
}
