//go:build unix && !linux

package external

import "syscall"

// pdeathsig has no equivalent outside Linux: a child of a simulator
// killed with SIGKILL outlives it there.
func pdeathsig(*syscall.SysProcAttr) {}
