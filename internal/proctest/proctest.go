//go:build unix

// Package proctest watches processes in tests: whether one still runs,
// which run below another, and that a set of them has ended. Tests of
// code that starts child processes (policies/external, the service's
// sessions) count processes with it.
package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Running says that process pid exists and has not exited: on Linux a
// zombie (exited, not yet waited for) does not count, elsewhere any
// process that signal 0 reaches does.
func Running(pid int) bool {
	st, ok := stat(pid)
	if !ok {
		return syscall.Kill(pid, 0) == nil && !procMounted()
	}
	return st.state != 'Z'
}

// Descendants are the running processes below pid (its children, theirs,
// and so on), read from /proc; nil where there is no /proc.
func Descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := stat(p); ok && st.state != 'Z' {
			kids[st.ppid] = append(kids[st.ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, kids[p]...)
		queue = append(queue, kids[p]...)
	}
	return out
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

type procStat struct {
	state byte
	ppid  int
}

// stat reads the state and parent of pid from /proc/PID/stat.
func stat(pid int) (procStat, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, false
	}
	// "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid}, true
}

// procMounted says that /proc describes processes (then a pid without
// an entry there is gone).
func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
