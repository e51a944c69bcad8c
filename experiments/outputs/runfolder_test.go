package outputs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/internal/dirtest"
)

func keys(m map[string][]byte) string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return strings.Join(k, " ")
}

// TestRunFolderCrashAtEachFile: a write stopped before each of the run's
// files (as a crash or a failed write would stop it) leaves the earlier
// complete run in the folder byte for byte, with no temporary file; an
// uninterrupted write replaces it whole, the earlier rounds.parquet going
// when the new run keeps none.
func TestRunFolderCrashAtEachFile(t *testing.T) {
	res := smallResult(t)
	spec := runspec.DefaultSpec("tiresias")
	spec.Nodes = 4
	meta := RunMeta{Version: "test", Seed: 1, InputsHash: digest.Parts([]byte("earlier"))}
	dir := t.TempDir()
	if err := WriteRun(dir, res, spec, meta, OutputOptions{NoTiming: true}); err != nil {
		t.Fatal(err)
	}
	earlier := dirtest.Snapshot(t, dir)
	if keys(earlier) != "cluster.parquet jobs.parquet rounds.parquet summary.json types.parquet" {
		t.Fatalf("earlier run wrote %s", keys(earlier))
	}
	newMeta := meta
	newMeta.InputsHash = digest.Parts([]byte("new"))
	crash := errors.New("crash")
	for _, at := range []string{"jobs.parquet", "rounds.parquet", "cluster.parquet", "types.parquet", "summary.json"} {
		f, err := OpenRunFolder(dir)
		if err != nil {
			t.Fatal(err)
		}
		f.staging = func(name string) error {
			if name == at {
				return crash
			}
			return nil
		}
		if err := f.Write(res, spec, newMeta, OutputOptions{NoTiming: true}); !errors.Is(err, crash) {
			t.Fatalf("stopped at %s: err %v", at, err)
		}
		if now := dirtest.Snapshot(t, dir); !dirtest.Equal(now, earlier) {
			t.Errorf("stopped at %s: the folder holds %s, not the earlier run byte for byte", at, keys(now))
		}
	}
	none := spec
	none.Rounds = "none"
	if err := WriteRun(dir, res, none, newMeta, OutputOptions{NoTiming: true}); err != nil {
		t.Fatal(err)
	}
	now := dirtest.Snapshot(t, dir)
	if keys(now) != "cluster.parquet jobs.parquet summary.json types.parquet" {
		t.Errorf("new run without rounds: folder holds %s", keys(now))
	}
	if !bytes.Contains(now["summary.json"], []byte(PlainRunKey(none, newMeta).ID)) {
		t.Error("summary.json does not carry the new run's run_id")
	}
}

// TestWriteRunRefusesEmptyIdentity: a run without an identity is not
// written (its run_id would collide with every other such run's).
func TestWriteRunRefusesEmptyIdentity(t *testing.T) {
	res := smallResult(t)
	dir := filepath.Join(t.TempDir(), "out")
	for _, meta := range []RunMeta{{}, {Version: "test"}, {InputsHash: "x"}} {
		err := WriteRun(dir, res, runspec.DefaultSpec("tiresias"), meta, OutputOptions{NoTiming: true})
		if err == nil || !strings.Contains(err.Error(), "no identity") {
			t.Errorf("%+v: err %v", meta, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%+v: the refused run left its folder", meta)
		}
	}
}
