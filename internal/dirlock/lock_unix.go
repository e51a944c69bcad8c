//go:build unix

package dirlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Acquire takes the lock of dir (which must exist) for this process; what
// says what it does, for the message another process gets. It fails with
// a *HeldError at once, without waiting, when another process holds it.
// release gives the lock up and removes the file.
func Acquire(dir, what string) (release func(), err error) {
	path := filepath.Join(dir, FileName)
	for attempt := 0; attempt < 5; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			data, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				h := strings.TrimSpace(string(data))
				if h == "" {
					h = "another process"
				}
				return nil, &HeldError{Holder: h}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// The holder before us may have removed the file between our open
		// and our lock: then we hold a lock on a file nobody else sees.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			f.WriteString(holder(what) + "\n")
		}
		return func() {
			os.Remove(path) // while still holding the lock
			f.Close()
		}, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps changing", path)
}
