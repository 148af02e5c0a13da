//go:build e2e

package e2e

import (
	"os"
	"testing"

	"hub/hubtest"
)

// TestMain runs the tests with one Temporal server for the package's
// stacks (hubtest.Main stops it after the last test), then stops the `hub
// dev` tests share (sharedDev) and removes the hub binary the process tests
// built (hubBinary builds it once for every test of the package, so no one
// test's cleanup may remove it).
func TestMain(m *testing.M) {
	code := hubtest.Main(m)
	stopSharedDev()
	if binaryDir != "" {
		_ = os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}
