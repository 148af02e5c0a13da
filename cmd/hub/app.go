package main

import (
	"context"
	"fmt"
	"log/slog"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"golang.org/x/sync/errgroup"
)

// dialTemporal connects to the Temporal frontend, logging through slog.
func dialTemporal(ctx context.Context, address, namespace string) (client.Client, error) {
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  address,
		Namespace: namespace,
		Logger:    sdklog.NewStructuredLogger(slog.Default().With("component", "temporal")),
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
