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
