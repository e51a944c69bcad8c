//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWriteRemovesAbandoned: a Write removes the temporary files earlier
// writes to the same destination left (a writer killed by a signal), but
// not one a live writer holds, nor a young one, nor another file's; its
// own temporary file is held while it writes.
func TestWriteRemovesAbandoned(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	old := time.Now().Add(-2 * minAbandonedAge)
	for name, content := range map[string]string{
		"t.csv": "earlier", ".t.csv.tmp-111": "killed", ".t.csv.tmp-222": "young", ".t.csv.tmp-333": "live", ".u.csv.tmp-444": "other",
	} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != ".t.csv.tmp-222" {
			os.Chtimes(f, old, old)
		}
	}
	live, err := os.Open(filepath.Join(dir, ".t.csv.tmp-333"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := syscall.Flock(int(live.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Skip("no flock here:", err)
	}
	err = Write(p, func(w io.Writer) error {
		own := w.(*os.File).Name()
		os.Chtimes(own, old, old)
		removeIfAbandoned(own) // held: kept
		if _, err := os.Stat(own); err != nil {
			t.Errorf("the writer's own temporary file was not held: %v", err)
		}
		_, err := w.Write([]byte("new"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if got, want := strings.Join(names, " "), ".t.csv.tmp-222 .t.csv.tmp-333 .u.csv.tmp-444 t.csv"; got != want {
		t.Errorf("files %q, want %q", got, want)
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Errorf("t.csv holds %q", got)
	}
}
