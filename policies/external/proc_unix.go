//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// groupCommand runs argv in a process group of its own, so that
// killGroup ends whatever it started too, unless that left the group
// (setsid).
func groupCommand(argv []string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// killGroup kills the process group of a started cmd.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
