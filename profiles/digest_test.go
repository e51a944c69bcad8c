package profiles

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/adaptdl"
)

// copyTables writes the embedded reference tables of two applications to
// dir/traces/.
func copyTables(t *testing.T, dir string) {
	t.Helper()
	src := adaptdl.FS()
	for _, app := range []string{"cifar10", "ncf"} {
		err := fs.WalkDir(src, "traces/"+app, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(src, p)
			if err != nil {
				return err
			}
			out := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestDigestHashesWhatIsRead: a folder's digest covers the files its
// reader read, wherever the folder is (a path containing "workload" once
// hashed nothing), through a symbolic link to the traces folder, and
// changes when a table is edited.
func TestDigestHashesWhatIsRead(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "my-workloads", "prof")
	copyTables(t, dir)
	a, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if a.Digest == "" || a.Digest == empty {
		t.Fatalf("digest %q hashes nothing", a.Digest)
	}
	link := filepath.Join(root, "linked")
	os.MkdirAll(link, 0o755)
	if err := os.Symlink(filepath.Join(dir, "traces"), filepath.Join(link, "traces")); err != nil {
		t.Fatal(err)
	}
	b, err := Load(link)
	if err != nil {
		t.Fatal(err)
	}
	if b.Digest != a.Digest {
		t.Errorf("a traces folder reached through a symbolic link: digest %s, the folder's %s", b.Digest, a.Digest)
	}
	p := filepath.Join(dir, "traces", "ncf", PlacementsFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 3)
	edited := lines[0] + "\n" + strings.Replace(lines[1], ",", ",1", 1) + "\n" + lines[2]
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatalf("the edited table: %v", err)
	}
	if c.Digest == a.Digest {
		t.Error("editing placements.csv left the digest unchanged")
	}
	if Default().Digest != EmbeddedSource || Compact().Digest != CompactSource {
		t.Errorf("built-in sets' digests %q, %q", Default().Digest, Compact().Digest)
	}
}
