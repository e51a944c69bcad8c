package adaptdl

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
)

// embeddedFiles lists the archive's files, sorted.
func embeddedFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// TestArchiveLayout: the archive holds the six applications' tables and
// both workload sets, nothing else (philly.csv in particular stays out).
func TestArchiveLayout(t *testing.T) {
	files := embeddedFiles(t)
	has := map[string]bool{}
	for _, f := range files {
		has[f] = true
		if !Included(f) {
			t.Errorf("unexpected file %s", f)
		}
	}
	for _, app := range []string{"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"} {
		for _, f := range []string{"placements.csv", "scalability.csv"} {
			if !has["traces/"+app+"/"+f] {
				t.Errorf("missing traces/%s/%s", app, f)
			}
		}
	}
	for _, set := range []string{WorkloadsTuned, WorkloadsRealistic} {
		for i := 1; i <= Workloads; i++ {
			if p := fmt.Sprintf("%s/workload-%d.csv", set, i); !has[p] {
				t.Errorf("missing %s", p)
			}
		}
	}
	if len(files) != 68 || has["traces/philly.csv"] {
		t.Errorf("%d files: %v", len(files), files)
	}
	if ArchiveSize() > 400<<10 {
		t.Errorf("archive is %d bytes", ArchiveSize())
	}
}

// TestArchiveEqualsReference: where the reference folder is present, the
// embedded copy equals it file by file (same names, same bytes).
func TestArchiveEqualsReference(t *testing.T) {
	dir := refdata.Dir(t)
	want, err := ReferenceFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := embeddedFiles(t)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("embedded files differ from the reference folder's:\n got %v\nwant %v", got, want)
	}
	fsys := FS()
	for _, rel := range want {
		ref, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		emb, err := fs.ReadFile(fsys, rel)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ref, emb) {
			t.Errorf("%s: embedded copy differs from the reference (%d vs %d bytes); regenerate with mkarchive", rel, len(emb), len(ref))
		}
	}
}
