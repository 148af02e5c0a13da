//go:build chaos && linux

package chaos

import "syscall"

// childAttr makes the kernel kill a child when the harness dies (a test
// timeout panics past every cleanup), so no hub process outlives a run.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
