//go:build unix && !linux

package external

import "os/exec"

// command is the command that runs argv: in a process group of its own
// (killGroup ends it and what it started, unless a process left the
// group with setsid, which outlives it here; proc_linux.go contains
// those too); confirm turns cmd.Start's error into the start's. Outside
// Linux a child of a simulator killed with SIGKILL outlives it.
func command(argv []string) (cmd *exec.Cmd, confirm func(startErr error) error) {
	return groupCommand(argv), func(err error) error { return err }
}

// endTree ends a started cmd and what it started: its process group.
func endTree(cmd *exec.Cmd) { killGroup(cmd) }
