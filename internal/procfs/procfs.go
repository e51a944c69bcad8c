// Package procfs reads what Linux's /proc says of processes: a process's
// state and parent, and the processes below one. Elsewhere (no /proc)
// every read says there is nothing.
package procfs

import (
	"bytes"
	"os"
	"strconv"
)

// Stat is what /proc/PID/stat says of a process.
type Stat struct {
	// State is its state letter: R running, S sleeping, Z zombie (exited,
	// not yet waited for), ...
	State byte
	// PPID is its parent's process id.
	PPID int
}

// Read reads the Stat of process pid; ok is false when there is none (no
// such process, or no /proc).
func Read(pid int) (st Stat, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	// "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 || len(f[0]) != 1 {
		return Stat{}, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return Stat{}, false
	}
	return Stat{State: f[0][0], PPID: ppid}, true
}

// All are the processes /proc lists, with their Stat.
func All() map[int]Stat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]Stat, len(ents))
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := Read(p); ok {
			out[p] = st
		}
	}
	return out
}

// Children are the processes whose parent is pid, zombies included.
func Children(pid int) []int {
	var out []int
	for p, st := range All() {
		if st.PPID == pid {
			out = append(out, p)
		}
	}
	return out
}

// Descendants are the processes below pid that have not exited (its
// children, theirs, and so on).
func Descendants(pid int) []int {
	kids := map[int][]int{}
	for p, st := range All() {
		if st.State != 'Z' {
			kids[st.PPID] = append(kids[st.PPID], p)
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		out = append(out, kids[queue[0]]...)
		queue = append(queue, kids[queue[0]]...)
	}
	return out
}

// Mounted says that /proc describes processes here (then a process
// without an entry there is gone).
func Mounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
