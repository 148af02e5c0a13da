//go:build e2e

package e2e

import (
	"os"
	"testing"
)

// TestMain stops the `hub dev` tests share (sharedDev) and removes the hub
// binary the process tests built (hubBinary builds it once for every test
// of the package, so no one test's cleanup may remove it).
func TestMain(m *testing.M) {
	code := m.Run()
	stopSharedDev()
	if binaryDir != "" {
		_ = os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}
