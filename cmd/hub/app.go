package main

import (
	"golang.org/x/sync/errgroup"
)

// runAll runs functions until the first fails or all end.
func runAll(fns ...func() error) error {
	var g errgroup.Group
	for _, f := range fns {
		g.Go(f)
	}
	return g.Wait()
}
