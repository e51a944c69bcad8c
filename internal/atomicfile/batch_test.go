package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(s string) func(w io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestBatchReplacesTogether: until Commit every destination keeps its
// earlier content; Commit renames all, removes the stale files, and the
// marker (the last file) is the last to appear.
func TestBatchReplacesTogether(t *testing.T) {
	dir := t.TempDir()
	a, m, stale := filepath.Join(dir, "a"), filepath.Join(dir, "summary"), filepath.Join(dir, "old")
	for _, p := range []string{a, m, stale} {
		if err := os.WriteFile(p, []byte("old "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b Batch
	if err := b.Write(a, write("new a")); err != nil {
		t.Fatal(err)
	}
	p, err := b.Create(filepath.Join(dir, "streamed"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "new streamed")
	p.Close()
	if err := b.Stage(p); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(m, write("new summary")); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "old a" || read(t, m) != "old summary" {
		t.Fatalf("destinations changed before Commit: %q %q", read(t, a), read(t, m))
	}
	if err := b.Commit(stale); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "new a" || read(t, m) != "new summary" || read(t, filepath.Join(dir, "streamed")) != "new streamed" {
		t.Errorf("after Commit: %q %q", read(t, a), read(t, m))
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale file kept: %v", err)
	}
	if got := strings.Join(names(t, dir), " "); got != "a streamed summary" {
		t.Errorf("folder holds %s", got)
	}
	b.Abort() // after Commit: nothing
	if got := strings.Join(names(t, dir), " "); got != "a streamed summary" {
		t.Errorf("Abort after Commit changed the folder: %s", got)
	}
}

// TestBatchAbortKeepsEarlier: Abort, at any point before Commit, leaves
// the earlier files exactly and no temporary file; a batch aborted from
// elsewhere refuses further writes.
func TestBatchAbortKeepsEarlier(t *testing.T) {
	for stage := 0; stage < 3; stage++ {
		dir := t.TempDir()
		a := filepath.Join(dir, "a")
		os.WriteFile(a, []byte("old"), 0o644)
		var b Batch
		if stage > 0 {
			if err := b.Write(a, write("new")); err != nil {
				t.Fatal(err)
			}
		}
		var p *Pending
		if stage > 1 {
			var err error
			if p, err = b.Create(filepath.Join(dir, "s")); err != nil {
				t.Fatal(err)
			}
		}
		b.Abort()
		if got := strings.Join(names(t, dir), " "); got != "a" || read(t, a) != "old" {
			t.Errorf("stage %d: after Abort the folder holds %q, a = %q", stage, got, read(t, a))
		}
		if err := b.Write(filepath.Join(dir, "b"), write("x")); err == nil {
			t.Errorf("stage %d: Write after Abort succeeded", stage)
		}
		if p != nil {
			if err := b.Stage(p); err == nil {
				t.Errorf("stage %d: Stage after Abort succeeded", stage)
			}
		}
		if err := b.Commit(); err == nil {
			t.Errorf("stage %d: Commit after Abort succeeded", stage)
		}
		if got := strings.Join(names(t, dir), " "); got != "a" {
			t.Errorf("stage %d: folder holds %q", stage, got)
		}
	}
}

// TestBatchFailedWriteLeavesNothing: a fill that fails leaves no temporary
// file and no staged entry.
func TestBatchFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	var b Batch
	boom := errors.New("boom")
	if err := b.Write(filepath.Join(dir, "a"), func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := names(t, dir); len(n) != 0 {
		t.Errorf("left %v", n)
	}
}
