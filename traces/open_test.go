package traces

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadMissingOrFolder: a missing input or a folder is an *InputError
// naming the path once.
func TestReadMissingOrFolder(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.csv")
	for _, tc := range []struct {
		path, want string
		read       func(string) error
	}{
		{missing, missing + ": no such file or directory", func(p string) error { _, _, err := ReadFile(p, ReadOptions{}); return err }},
		{dir, dir + ": is a folder, not a file", func(p string) error { _, _, err := ReadFile(p, ReadOptions{}); return err }},
		{missing, missing + ": no such file or directory", func(p string) error { _, _, err := ReadPhilly(p); return err }},
		{missing, missing + ": no such file or directory", func(p string) error { _, err := ReadSummary(p); return err }},
		{dir, dir + ": is a folder, not a file", func(p string) error { _, _, err := IngestPhillyLog(p); return err }},
	} {
		err := tc.read(tc.path)
		var ie *InputError
		if !errors.As(err, &ie) || err.Error() != tc.want || strings.Count(err.Error(), tc.path) != 1 {
			t.Errorf("error %v, want the *InputError %q", err, tc.want)
		}
	}
}

// TestReadSpecialFiles: a named pipe (which blocked for ever) or a device
// where an input file is needed is refused before it is opened, with the
// path named once: the workload CSV, the Philly table, its log and a
// summary.
func TestReadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	paths := map[string]string{fifo: "(a named pipe)"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths["/dev/zero"] = "(a character device)"
	}
	readers := map[string]func(string) error{
		"workload":       func(p string) error { _, _, err := ReadFile(p, ReadOptions{}); return err },
		"Philly table":   func(p string) error { _, _, err := ReadPhilly(p); return err },
		"Philly log":     func(p string) error { _, _, err := IngestPhillyLog(p); return err },
		"Philly summary": func(p string) error { _, err := ReadSummary(p); return err },
	}
	for name, read := range readers {
		for p, kind := range paths {
			err := read(p)
			want := p + ": not a regular file " + kind
			var ie *InputError
			if !errors.As(err, &ie) || err.Error() != want {
				t.Errorf("%s %s: %v, want %q", name, p, err, want)
			}
		}
	}
}
