package traces

import (
	"strings"
	"testing"
)

// TestReadPaper: the embedded reference workloads read by name: 160 jobs
// each, the realistic set the same jobs at the same times.
func TestReadPaper(t *testing.T) {
	for n := 1; n <= PaperWorkloads; n++ {
		tuned, warn, err := ReadWorkload(PaperName(ConfigTuned, n), ReadOptions{})
		if err != nil || len(warn) > 0 {
			t.Fatalf("paper:%d: %v %v", n, err, warn)
		}
		real, _, err := ReadWorkload(PaperName(ConfigRealistic, n), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tuned.Jobs) != 160 || len(real.Jobs) != 160 || tuned.Source != PaperName(ConfigTuned, n) {
			t.Fatalf("paper:%d: %d and %d jobs, source %q", n, len(tuned.Jobs), len(real.Jobs), tuned.Source)
		}
		single := 0
		for i, j := range tuned.Jobs {
			r := real.Jobs[i]
			if j.Name != r.Name || j.Time != r.Time || j.App != r.App {
				t.Fatalf("paper:%d job %d: %+v vs %+v", n, i, j, r)
			}
			if r.Replicas == 1 {
				single++
			}
		}
		if single < 140 {
			t.Errorf("paper-realistic:%d: only %d single-GPU jobs", n, single)
		}
	}
	// The first job of workload 1, as in the artifact's file.
	w, _, _ := ReadPaper("paper:1", ReadOptions{})
	if j := w.Jobs[0]; j.Name == "" || j.Time < 0 || j.Time > 28799 {
		t.Errorf("first job %+v", j)
	}
}

func TestReadPaperErrors(t *testing.T) {
	for _, name := range []string{"paper:0", "paper:9", "paper:", "paper:x", "paper:+1", "paper-realistic:12"} {
		if _, _, err := ReadWorkload(name, ReadOptions{}); err == nil || !strings.Contains(err.Error(), name+": no such reference workload") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, _, err := ReadPaper("workload.csv", ReadOptions{}); err == nil {
		t.Error("a file name read as a reference workload")
	}
	if _, _, err := ReadWorkload("./paper:1", ReadOptions{}); err == nil || strings.Contains(err.Error(), "reference workload") {
		t.Errorf("./paper:1 is a file name: %v", err)
	}
	if _, _, err := ReadPaper("paper:1", ReadOptions{Apps: []string{"bert"}}); err == nil || !strings.Contains(err.Error(), "paper:1:") {
		t.Errorf("unknown applications: %v", err)
	}
}
