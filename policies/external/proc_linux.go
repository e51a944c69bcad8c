//go:build linux

package external

import "syscall"

// pdeathsig asks Linux to kill the child when the simulator's process
// dies without ending it (killed with SIGKILL, say).
func pdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
