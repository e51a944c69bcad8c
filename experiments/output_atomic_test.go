package experiments

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

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
	want := []string{"cluster.parquet", "jobs.parquet", "notes.txt", "rounds.parquet", "summary.json"}
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

// TestWriteRunFailureLeavesNoSummary: when the outputs cannot be written,
// the earlier summary.json (the mark of a complete run) is gone, so the
// folder does not look like a complete run.
func TestWriteRunFailureLeavesNoSummary(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"old": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A non-empty folder where jobs.parquet goes cannot be replaced.
	if err := os.MkdirAll(filepath.Join(dir, "jobs.parquet", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := smallResult(t)
	err := WriteRun(dir, res, DefaultSpec("tiresias"), RunMeta{Version: "test"}, OutputOptions{NoTiming: true})
	if err == nil {
		t.Fatal("WriteRun succeeded over a folder named jobs.parquet")
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); !os.IsNotExist(err) {
		t.Errorf("summary.json still there after a failed write (%v)", err)
	}
}

// smallResult is a Tiresias run of 24 jobs on 4 nodes.
func smallResult(t *testing.T) *sim.Result {
	t.Helper()
	set := profiles.Compact()
	w, err := GenerateWorkload(nil, set, 24, 3, "tuned", 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range w.Jobs {
		w.Jobs[i].Replicas = min(w.Jobs[i].Replicas, 16)
	}
	spec := DefaultSpec("tiresias")
	spec.Nodes = 4
	p, err := NewPolicy(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(spec.SimConfig(), set, w, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
