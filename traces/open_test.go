package traces

import (
	"errors"
	"path/filepath"
	"strings"
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
