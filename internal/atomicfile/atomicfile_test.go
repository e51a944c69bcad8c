package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteAndFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteBytes(p, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "hello" {
		t.Errorf("destination changed to %q by a failed write", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	if err := WriteBytes(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("write into a missing folder succeeded")
	}
}

// TestSpecialDestinations: a FIFO or a folder at the destination is
// refused and left as it was; a symbolic link is written through (its
// target replaced atomically, the link kept); a dangling link is refused.
func TestSpecialDestinations(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for path, want := range map[string]string{
		fifo: "not a regular file (a named pipe)",
		dir:  "not a regular file (a folder)",
	} {
		_, err := Check(path)
		if err == nil || err.Error() != want {
			t.Errorf("Check(%s) = %v, want %q", path, err, want)
		}
		if err := WriteBytes(path, []byte("x")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("WriteBytes(%s) = %v, want an error containing %q", path, err, want)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}

	target := filepath.Join(dir, "sub", "target.csv")
	os.MkdirAll(filepath.Dir(target), 0o755)
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(filepath.Join("sub", "target.csv"), link); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Errorf("link target holds %q, want \"new\"", got)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling)
	if err := WriteBytes(dangling, []byte("x")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("dangling link: %v", err)
	}
	// A new file in a folder is fine.
	if p, err := Check(filepath.Join(dir, "new.csv")); err != nil || p != filepath.Join(dir, "new.csv") {
		t.Errorf("Check(new file) = %q, %v", p, err)
	}
}
