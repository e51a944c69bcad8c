package outputs

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

// TestWriteRunReplacesEarlierRun: WriteRun removes an earlier run's
// outputs and temporary files a killed run left, before it writes; the
// folder ends with exactly the three new files (other files untouched).
func TestWriteRunReplacesEarlierRun(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"summary.json":              `{"old": true}`,
		"jobs.parquet":              "old",
		".rounds.parquet.tmp-12345": "partial",
		".summary.json.tmp-9":       "partial",
		"notes.txt":                 "mine",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	smallRun(t, "tiresias", 1, dir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	want := []string{"cluster.parquet", "jobs.parquet", "notes.txt", "rounds.parquet", "summary.json", "types.parquet"}
	if len(names) != len(want) {
		t.Fatalf("folder holds %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("folder holds %v, want %v", names, want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "jobs.parquet")); string(data) == "old" {
		t.Error("jobs.parquet not replaced")
	}
}

// TestWriteRunRefusesBeforeRemoving: when an earlier output cannot be
// replaced (a folder where jobs.parquet goes), WriteRun refuses before it
// removes anything, so the earlier outputs stay as they were; so does a
// sweep's folder. CheckRunFolder tells the same before a run.
func TestWriteRunRefusesBeforeRemoving(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"old": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "jobs.parquet", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := smallResult(t)
	if err := CheckRunFolder(dir); err == nil {
		t.Error("CheckRunFolder passed a folder named jobs.parquet")
	}
	err := WriteRun(dir, res, runspec.DefaultSpec("tiresias"), RunMeta{Version: "test", InputsHash: "x"}, OutputOptions{NoTiming: true})
	if err == nil || !strings.Contains(err.Error(), "jobs.parquet: not a regular file") {
		t.Fatalf("WriteRun over a folder named jobs.parquet: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "summary.json")); string(data) != `{"old": true}` {
		t.Errorf("the earlier summary.json was touched: %q", data)
	}
	sweep := t.TempDir()
	os.WriteFile(filepath.Join(sweep, "experiment.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(sweep, "summary.json"), []byte("sweep"), 0o644)
	if err := WriteRun(sweep, res, runspec.DefaultSpec("tiresias"), RunMeta{Version: "test", InputsHash: "x"}, OutputOptions{NoTiming: true}); err == nil ||
		!strings.Contains(err.Error(), "sweep's outputs") {
		t.Errorf("WriteRun into a sweep's folder: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(sweep, "summary.json")); string(data) != "sweep" {
		t.Errorf("the sweep's summary.json was touched: %q", data)
	}
	if err := CheckRunFolder(filepath.Join(sweep, "new")); err != nil {
		t.Errorf("a folder yet to be made: %v", err)
	}
}

// smallResult is a Tiresias run of 24 jobs on 4 nodes.
func smallResult(t *testing.T) *sim.Result {
	t.Helper()
	set := profiles.Compact()
	w, err := runspec.GenerateWorkload(nil, set, 24, 3, "tuned", 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range w.Jobs {
		w.Jobs[i].Replicas = min(w.Jobs[i].Replicas, 16)
	}
	spec := runspec.DefaultSpec("tiresias")
	spec.Nodes = 4
	p, err := runspec.NewPolicy(known, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(spec.SimConfig(), set, w, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
