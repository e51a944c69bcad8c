//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own, so that
// killGroup ends whatever it started too (see also pdeathsig).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pdeathsig(cmd.SysProcAttr)
}

// killGroup kills the process group of a started cmd.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
