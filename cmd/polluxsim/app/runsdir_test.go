package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCLIRunWithoutOutKeepsEveryRun: `run -o json` without --out, as a
// loop in a script calls it, writes each run to out/runs/<run_id>: the
// same run twice writes its own folder again, byte for byte (with
// --no-timing), and a run of other settings goes to another folder,
// leaving the first whole. (It wrote every run to out/run, each
// replacing the last.)
func TestCLIRunWithoutOutKeepsEveryRun(t *testing.T) {
	dir := t.TempDir()
	run := func(policy string) (string, []byte) {
		t.Helper()
		r := runBinary(t, dir, nil, "run", "--policy", policy, "--workload", "paper:1", "--no-timing", "--quiet", "-o", "json")
		if r.code != 0 {
			t.Fatalf("run --policy %s: exit %d: %s", policy, r.code, r.stderr)
		}
		var s struct {
			RunID  string `json:"run_id"`
			Policy string `json:"policy"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || s.RunID == "" {
			t.Fatalf("run --policy %s -o json: %v in %q", policy, err, r.stdout)
		}
		folder := filepath.Join(dir, "out", "runs", s.RunID)
		stored, err := os.ReadFile(filepath.Join(folder, "summary.json"))
		if err != nil {
			t.Fatalf("run --policy %s: %v (the run's folder is out/runs/<run_id>)", policy, err)
		}
		if string(stored) != r.stdout {
			t.Errorf("run --policy %s: %s/summary.json is not the summary printed", policy, folder)
		}
		return s.RunID, stored
	}
	tiresias, first := run("tiresias")
	again, second := run("tiresias")
	if again != tiresias || string(first) != string(second) {
		t.Errorf("the same run twice: run_ids %s and %s, summaries equal %v; want one folder rewritten byte for byte",
			tiresias, again, string(first) == string(second))
	}
	fifo, _ := run("fifo")
	if fifo == tiresias {
		t.Fatalf("tiresias and fifo share run_id %s", fifo)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "out", "runs", tiresias, "summary.json"))
	if err != nil || string(kept) != string(first) {
		t.Errorf("the fifo run replaced or damaged the tiresias run's folder (%v)", err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "out", "runs"))
	if err != nil || len(entries) != 2 {
		t.Errorf("out/runs holds %d entries (%v), want the 2 runs' folders", len(entries), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "run")); !os.IsNotExist(err) {
		t.Errorf("out/run exists (%v): run without --out still writes there", err)
	}
}
