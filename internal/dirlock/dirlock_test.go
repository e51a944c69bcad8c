//go:build unix

package dirlock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAcquire: a second Acquire fails naming the holder until the first
// is released; a lock file without a live holder does not block.
func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	release, err := Acquire(dir, "first")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, "second")
	var he *HeldError
	if !errors.As(err, &he) || !errors.Is(err, ErrHeld) || !strings.HasPrefix(he.Holder, "pid "+strconv.Itoa(os.Getpid())+" on ") ||
		!strings.HasSuffix(he.Holder, ": first") {
		t.Fatalf("second Acquire: %v", err)
	}
	release()
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after release: %v", err)
	}
	// A file left by a killed holder: its content is no lock.
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("pid 999999 on gone since then: sweep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	release, err = Acquire(dir, "third")
	if err != nil {
		t.Fatalf("a stale lock file blocked: %v", err)
	}
	release()
}
