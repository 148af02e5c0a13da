//go:build chaos && !linux

package chaos

import "syscall"

// childAttr: outside Linux there is no parent-death signal; the test's
// cleanups stop the children.
func childAttr() *syscall.SysProcAttr { return nil }
