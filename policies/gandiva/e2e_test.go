package gandiva_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies/gandiva"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// Through the engine on reference workload 1 (160 jobs, 16 × 4 GPUs):
// every job finishes (no job size starves), time-slicing suspends and
// resumes jobs (more restarts than jobs), and a cheaper suspend-resume
// (the restart delay 5 s instead of 30 s) gives a lower average JCT.
func TestReferenceWorkload(t *testing.T) {
	w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(delay float64) *sim.Result {
		cfg := sim.DefaultConfig()
		cfg.RestartDelay = delay
		res, err := sim.Run(cfg, profiles.Default(), w, gandiva.New(gandiva.DefaultOptions()))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) != len(w.Jobs) {
			t.Fatalf("delay %v: %d of %d jobs finished", delay, len(res.Jobs), len(w.Jobs))
		}
		return res
	}
	slow, fast := run(30), run(5)
	restarts := 0
	for _, j := range slow.Jobs {
		restarts += j.Restarts
	}
	if restarts <= len(w.Jobs) {
		t.Errorf("%d restarts over %d jobs: want time-slicing to suspend and resume", restarts, len(w.Jobs))
	}
	if !(fast.Summary.AvgJCT < slow.Summary.AvgJCT) {
		t.Errorf("avg JCT %.0f s with a 5-s restart delay, %.0f s with 30 s: want it lower", fast.Summary.AvgJCT, slow.Summary.AvgJCT)
	}
	t.Logf("avg JCT %.0f s (30-s delay, %d restarts), %.0f s (5 s)", slow.Summary.AvgJCT, restarts, fast.Summary.AvgJCT)
}
