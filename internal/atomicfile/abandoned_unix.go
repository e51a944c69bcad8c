//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// renameOpen: the temporary file is renamed while still open, so that its
// lock (hold) covers the rename.
const renameOpen = true

// hold takes an advisory lock (flock) on a temporary file being written; it
// ends when the file is closed or the process ends, however it ends. An
// unlocked temporary file therefore belongs to no live writer.
func hold(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// removeIfAbandoned removes the temporary file at path if no live writer
// holds it.
func removeIfAbandoned(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		os.Remove(path) // while holding the lock
	}
}
