package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/artifacts/elasticflow"
	"github.com/polluxsim/polluxsim/traces"
)

func TestRunWritesAWorkloadPolluxsimReads(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.csv")
	out := filepath.Join(dir, "w.csv")
	trace := "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n" +
		"a,10,100,bert,1010,128,4,1000\nb,20,100,vgg16,520,64,2,1000\n"
	if err := os.WriteFile(in, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(in, out, elasticflow.Options{Deadlines: elasticflow.DeadlineSeconds, GPUsPerNode: 8}); err != nil {
		t.Fatal(err)
	}
	w, _, err := traces.ReadFile(out, traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 || w.Jobs[0].Deadline != 1000 || w.Jobs[1].Deadline != 500 || w.Jobs[1].App != "imagenet" || w.Jobs[1].Time != 10 {
		t.Errorf("read back %+v", w.Jobs)
	}
	if err := run(in, out, elasticflow.Options{GPUsPerNode: 0}); err == nil || !strings.Contains(err.Error(), "-gpus-per-node") {
		t.Errorf("bad -gpus-per-node: %v", err)
	}
	if err := run(filepath.Join(dir, "none.csv"), out, elasticflow.Options{GPUsPerNode: 4}); err == nil {
		t.Error("a missing trace must be an error")
	}
}
