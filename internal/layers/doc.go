// Package layers holds the import-direction check: a test that lists every package of module
// hub with `go list` and fails on an import the layer map does not allow. The map is
// docs/architecture.md's "Layers and imports"; change the two together. The package has no
// code of its own: it is here so that `go test ./...` runs the check.
package layers
