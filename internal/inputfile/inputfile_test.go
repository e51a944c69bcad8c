package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A small file reads whole; a regular file past MaxSize stops just past it
// with ErrTooLarge; /dev/zero (also through a link) and a named pipe are
// refused as not regular before they are read (the pipe would block); a
// missing file fails as os.ReadFile does. ReadFS behaves the same.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	if err := os.WriteFile(p, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxSize+1); err != nil { // sparse
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	hasFifo := syscall.Mkfifo(fifo, 0o644) == nil
	zero := filepath.Join(dir, "zero")
	hasZero := os.Symlink("/dev/zero", zero) == nil
	if _, err := os.Stat("/dev/zero"); err != nil {
		hasZero = false
	}
	readers := map[string]func(string) ([]byte, error){
		"ReadFile": ReadFile,
		"ReadFS": func(name string) ([]byte, error) {
			return ReadFS(os.DirFS(dir), filepath.Base(name))
		},
	}
	for rn, read := range readers {
		if data, err := read(p); err != nil || string(data) != `{"a": 1}` {
			t.Errorf("%s: got %q, %v", rn, data, err)
		}
		if _, err := read(big); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %d bytes: %v", rn, MaxSize+1, err)
		}
		if hasZero {
			if _, err := read(zero); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "not a regular file (a character device)") {
				t.Errorf("%s: link to /dev/zero: %v", rn, err)
			}
		}
		if hasFifo {
			if _, err := read(fifo); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "(a named pipe)") {
				t.Errorf("%s: named pipe: %v", rn, err)
			}
		}
		if _, err := read(dir + "/."); !errors.Is(err, ErrNotRegular) && rn == "ReadFile" {
			t.Errorf("%s: folder: %v", rn, err)
		}
		if _, err := read(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: missing file: %v", rn, err)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("/dev/zero: %v", err)
		}
		f, err := os.Open("/dev/zero")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := ReadAll(f); !errors.Is(err, ErrTooLarge) {
			t.Errorf("ReadAll(/dev/zero): %v", err)
		}
	}
}

// SameFile: a file is itself under another name (a hard link, a relative
// path), not a copy of it; a missing file is no file.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	os.WriteFile(a, []byte("x"), 0o644)
	os.WriteFile(c, []byte("x"), 0o644)
	if err := os.Link(a, b); err != nil {
		t.Skip("no hard links here:", err)
	}
	for _, tc := range []struct {
		x, y string
		want bool
	}{{a, b, true}, {a, filepath.Join(dir, ".", "a"), true}, {a, c, false}, {a, filepath.Join(dir, "none"), false}} {
		if got := SameFile(tc.x, tc.y); got != tc.want {
			t.Errorf("SameFile(%s, %s) = %v", tc.x, tc.y, got)
		}
	}
}
