//go:build linux

package external

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/polluxsim/polluxsim/internal/procfs"
)

// On Linux a policy's command runs under a reaper: this very program,
// re-run (selfExe) with reaperEnv set, which init turns into reap before
// anything else runs. The reaper is a child subreaper
// (PR_SET_CHILD_SUBREAPER): every process the policy starts, and every
// process those start, stays below it whatever it does (setsid, a new
// process group, a double fork: an orphan is handed to the reaper, not to
// init). When the policy exits, or the simulator ends it (SIGTERM, also
// sent by Linux when the simulator dies: PR_SET_PDEATHSIG), the reaper
// kills every process below it and exits as the policy did. Being a
// subreaper is a property of a whole process, which is why it is a
// process of its own and not the simulator: there it would make the
// simulator the parent of every orphan of every child it runs.
//
// What escapes it (docs/protocol.md): a process that a descendant asks
// another program to start (systemd-run, at, a daemon over a socket),
// which is not below it; and, when the reaper itself is killed with
// SIGKILL, whatever the policy started outside its process group (the
// policy gets SIGKILL by PR_SET_PDEATHSIG).

// selfExe is the program running, for the reaper.
const selfExe = "/proc/self/exe"

// reaperEnv, set to reaperOn, makes the program the reaper of the
// command in its arguments; the reaper's file descriptor 3 is where it
// writes reaperStarted, or why the command did not start.
const (
	reaperEnv     = "POLLUXSIM_POLICY_REAPER"
	reaperOn      = "1"
	reaperStarted = "started"
)

// reaperWait bounds how long the simulator waits for the reaper to say
// whether the policy started (a Go program's start, well under a second).
const reaperWait = time.Minute

func init() {
	if os.Getenv(reaperEnv) == reaperOn {
		os.Exit(reap(os.Args[1:]))
	}
}

// command is the command that runs argv under a reaper, or, where
// selfExe cannot be run (no /proc), in a process group of its own as on
// other systems. confirm turns cmd.Start's error into the start's: once
// the reaper runs, whether it started argv.
func command(argv []string) (cmd *exec.Cmd, confirm func(startErr error) error) {
	if _, err := os.Stat(selfExe); err != nil {
		cmd = groupCommand(argv)
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		return cmd, func(err error) error { return err }
	}
	r, w, err := os.Pipe()
	if err != nil {
		cmd = exec.Command(selfExe)
		cmd.Err = err
		return cmd, func(err error) error { return err }
	}
	cmd = exec.Command(selfExe, argv...)
	cmd.Args[0] = "polluxsim-policy-reaper"
	cmd.Env = append(os.Environ(), reaperEnv+"="+reaperOn)
	cmd.ExtraFiles = []*os.File{w}
	// Its own process group, out of reach of a terminal's Ctrl-C (the
	// simulator ends its policies itself); SIGTERM when the simulator
	// dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd, func(startErr error) error {
		w.Close()
		defer r.Close()
		if startErr != nil {
			return startErr
		}
		_ = r.SetReadDeadline(time.Now().Add(reaperWait))
		msg, err := io.ReadAll(io.LimitReader(r, 4096))
		switch {
		case err != nil:
			err = fmt.Errorf("its reaper process did not say whether it started within %v: %v", reaperWait, err)
		case len(msg) == 0:
			err = errors.New("its reaper process ended before starting it")
		case string(msg) != reaperStarted:
			err = errors.New(string(msg))
		}
		if err != nil {
			killGroup(cmd)
		}
		return err
	}
}

// endTree ends a started cmd and every process it started: the reaper
// kills them all and exits (SIGTERM); without a reaper, its process
// group is killed.
func endTree(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if cmd.Path == selfExe {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		return
	}
	killGroup(cmd)
}

// reap is the reaper's program (see above): it starts argv on its own
// standard input, output and error, tells file descriptor 3 whether it
// started, waits for it, kills whatever is left below itself, and
// returns the exit status to exit with.
func reap(argv []string) int {
	report := os.NewFile(3, "reaper-report")
	syscall.CloseOnExec(3)
	fail := func(err error) int {
		fmt.Fprint(report, oneLine(err.Error()))
		return 127
	}
	if len(argv) == 0 {
		return fail(errors.New("the reaper was given no command"))
	}
	if err := os.Unsetenv(reaperEnv); err != nil {
		return fail(err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err))
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	policy := exec.Command(argv[0], argv[1:]...)
	policy.Stdin, policy.Stdout, policy.Stderr = os.Stdin, os.Stdout, os.Stderr
	policy.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := policy.Start(); err != nil {
		return fail(err)
	}
	fmt.Fprint(report, reaperStarted)
	report.Close()
	// The pipes are the policy's alone: the end of its output is the end
	// of the policy's.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 0)
		_ = unix.Dup2(int(null.Fd()), 1)
		null.Close()
	}
	pid := policy.Process.Pid
	ending := make(chan struct{})
	go func() {
		<-stop
		close(ending)
		killBelow(pid)
	}()
	var status syscall.WaitStatus
	ended := false
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil { // ECHILD: nothing is left below
			break
		}
		if p == pid {
			status, ended = ws, true
		}
		select {
		case <-ending:
		default:
			if !ended {
				continue // an orphan that ended by itself, the policy still running
			}
		}
		// Whatever a process reaped here left is below the reaper by now.
		killBelow(pid)
	}
	switch {
	case !ended:
		return 128 + int(syscall.SIGKILL)
	case status.Signaled():
		sig := status.Signal()
		switch sig {
		case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT:
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig)
			time.Sleep(time.Second) // the signal ends the reaper
		}
		return 128 + int(sig)
	default:
		return status.ExitStatus()
	}
}

// killBelow kills the policy's process group (pgid) and every child of
// the reaper: the policy and, after a process below it ended, the
// orphans it left.
func killBelow(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for _, p := range procfs.Children(os.Getpid()) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}
