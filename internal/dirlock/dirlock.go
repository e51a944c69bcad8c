// Package dirlock keeps two processes from writing one output folder at
// once. The lock is a file in the folder (FileName) held with an advisory
// lock of the operating system (flock), which ends with the process that
// holds it: a process killed with SIGKILL leaves the file, but not the
// lock, so a stale lock never blocks. The file records the holder (process
// id, host, start time and what it does) for the message another process
// gets.
package dirlock

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// FileName is the lock file in a locked folder.
const FileName = ".polluxsim.lock"

// HeldError is returned by Acquire when another process holds the lock.
type HeldError struct {
	// Holder describes the process holding the lock as it recorded itself,
	// e.g. "pid 4242 on host-1 since 2024-05-01 10:00:00: sweep tiny".
	Holder string
}

func (e *HeldError) Error() string { return "in use by " + e.Holder }

// ErrHeld is matched by every *HeldError (errors.Is).
var ErrHeld = errors.New("in use by another process")

// Is makes errors.Is(err, ErrHeld) true for a *HeldError.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// holder is what the lock file records about this process.
func holder(what string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("pid %d on %s since %s: %s", os.Getpid(), host, time.Now().Format("2006-01-02 15:04:05"), what)
}
