//go:build !unix

package external

import "os/exec"

// command is the command that runs argv (proc_linux.go has the full
// story); confirm turns cmd.Start's error into the start's.
func command(argv []string) (cmd *exec.Cmd, confirm func(startErr error) error) {
	return exec.Command(argv[0], argv[1:]...), func(err error) error { return err }
}

// endTree kills the process of a started cmd (its own children are not
// reached here: there are no process groups).
func endTree(cmd *exec.Cmd) { killGroup(cmd) }

// killGroup kills the process of a started cmd.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
