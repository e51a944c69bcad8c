package workloads_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// TestAcmeReplayUnderLLMProfiles: rows written to Acme's published header
// replay under the llm profile set as LLM jobs of their type, at the GPUs
// they asked for (a 1,024-GPU pre-training job is not capped), with the
// model the GPU count implies; MLLM jobs are left out with a warning and
// CPU jobs are not jobs.
func TestAcmeReplayUnderLLMProfiles(t *testing.T) {
	rows := [][]string{
		{"j1", "u", "128", "1024", "0", "Pretrain", "COMPLETED", "2023-07-01 00:00:00", "2023-07-01 00:01:00", "2023-07-02 00:00:00", "86340", "60", "0"},
		{"j2", "u", "1", "8", "0", "Evaluation", "COMPLETED", "2023-07-01 00:10:00", "2023-07-01 00:11:00", "2023-07-01 00:20:00", "540", "60", "0"},
		{"j3", "u", "2", "16", "0", "SFT", "COMPLETED", "2023-07-01 00:20:00", "2023-07-01 00:21:00", "2023-07-01 02:00:00", "5940", "60", "0"},
		{"j4", "u", "1", "4", "0", "Debug", "FAILED", "2023-07-01 00:30:00", "2023-07-01 00:31:00", "2023-07-01 00:40:00", "540", "60", "0"},
		{"j5", "u", "1", "8", "0", "MLLM", "COMPLETED", "2023-07-01 00:40:00", "2023-07-01 00:41:00", "2023-07-01 00:50:00", "540", "60", "0"},
		{"j6", "u", "1", "0", "8", "Other", "COMPLETED", "2023-07-01 00:50:00", "2023-07-01 00:51:00", "2023-07-01 00:55:00", "240", "60", "0"},
	}
	var b strings.Builder
	b.WriteString(strings.Join(traces.AcmeColumns(), ",") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	path := filepath.Join(t.TempDir(), "trace_seren.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ext, err := intree.With()
	if err != nil {
		t.Fatal(err)
	}
	w, warn, err := ext.ResolveWorkload("acme:"+path, ext.WorkloadEnv(profiles.LLM(), 8))
	if err != nil {
		t.Fatal(err)
	}
	want := []traces.Job{
		{Name: "llm-70b-0", Time: 0, App: "llm-70b", Replicas: 1024},
		{Name: "llm-7b-eval-1", Time: 600, App: "llm-7b-eval", Replicas: 8, Batch: 64},
		{Name: "llm-13b-sft-2", Time: 1200, App: "llm-13b-sft", Replicas: 16, Batch: 64},
		{Name: "llm-1b-debug-3", Time: 1800, App: "llm-1b-debug", Replicas: 4, Batch: 16},
	}
	if len(w.Jobs) != len(want) {
		t.Fatalf("%d jobs, want %d: %+v", len(w.Jobs), len(want), w.Jobs)
	}
	for i, j := range w.Jobs {
		wj := want[i]
		if wj.Batch == 0 { // pre-training: DeepSeek's batch, half the largest
			wj.Batch = profiles.LLM().Apps["llm-70b"].Limits.MaxBatch / 2
		}
		if j.Name != wj.Name || j.Time != wj.Time || j.App != wj.App || j.Replicas != wj.Replicas || j.Batch != wj.Batch {
			t.Errorf("job %d: %+v, want %+v", i, j, wj)
		}
	}
	if len(warn) != 1 || !strings.Contains(warn[0], `"MLLM" 1`) {
		t.Errorf("warnings %q, want one counting the MLLM job", warn)
	}
}
