package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A small file reads whole; an endless stream stops just past MaxSize with
// ErrTooLarge; a missing file fails as os.ReadFile does.
func TestReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(p, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(p); err != nil || string(data) != `{"a": 1}` {
		t.Errorf("got %q, %v", data, err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero"); !errors.Is(err, ErrTooLarge) {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
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
