package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRunLLMWorkload: `run --profiles llm --cluster h100:64x8 --workload
// llm:... --policy pollux` runs with nothing downloaded and finishes every
// job (a small workload: 20 jobs over an hour).
func TestRunLLMWorkload(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	printed, err := runCLI(t, "run", "--profiles", "llm", "--cluster", "h100:64x8", "--workload", "llm:jobs=20,seed=2,hours=1",
		"--policy", "pollux", "--no-timing", "--quiet", "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, printed)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Jobs     int     `json:"jobs"`
		AvgJCT   float64 `json:"avg_jct_s"`
		Makespan float64 `json:"makespan_s"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Jobs != 20 || !(s.AvgJCT > 0 && s.AvgJCT <= s.Makespan) {
		t.Errorf("summary: %d jobs, avg JCT %v s, makespan %v s; want 20 jobs and 0 < avg JCT <= makespan", s.Jobs, s.AvgJCT, s.Makespan)
	}
}
