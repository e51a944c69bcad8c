//go:build unix

// Package proctest watches processes in tests: whether one still runs
// and that a set of them has ended (internal/procfs lists the processes
// below one). Tests of code that starts child processes
// (policies/external, the service's sessions) count processes with it.
package proctest

import (
	"syscall"
	"testing"
	"time"

	"github.com/polluxsim/polluxsim/internal/procfs"
)

// Running says that process pid exists and has not exited: where there
// is /proc a zombie (exited, not yet waited for) does not count,
// elsewhere any process that signal 0 reaches does.
func Running(pid int) bool {
	if st, ok := procfs.Read(pid); ok {
		return st.State != 'Z'
	}
	return !procfs.Mounted() && syscall.Kill(pid, 0) == nil
}

// WaitGone fails the test unless every process of pids has ended within
// d (a process killed is reaped by its parent, or by init once its
// parent is gone); one still running is named and killed.
func WaitGone(tb testing.TB, pids []int, d time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for _, p := range pids {
		for Running(p) {
			if time.Now().After(deadline) {
				tb.Errorf("process %d still running", p)
				_ = syscall.Kill(p, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
