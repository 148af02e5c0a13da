// Package chaos holds `make chaos`: Hub in its production shape (an embedded
// Temporal server, `hub api` and `hub worker` as processes of the real binary,
// Postgres, the scripted model over HTTP) while the worker is killed with
// SIGKILL at random points of many turns and Applies, and restarted. At the
// end it reports turns finished, writes doubled and writes lost, which must be
// N, 0 and 0. The harness is a test behind the `chaos` build tag
// (chaos_test.go), so `go test ./...` and `make test` never run it; see
// docs/testing.md.
package chaos
