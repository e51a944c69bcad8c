package bench

import (
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// benchRun simulates the reference workload paper:1 (160 jobs on 16 × 4
// GPUs) under policy with its default options, recording no rounds.
func benchRun(b *testing.B, policy string, opts ...string) {
	set := profiles.Default()
	w, _, err := traces.ReadPaper(traces.PaperName(traces.ConfigTuned, 1), traces.ReadOptions{Apps: set.Names()})
	if err != nil {
		b.Fatal(err)
	}
	spec, err := runspec.DefaultSpec(policy).WithOptions(known, []string(opts))
	if err != nil {
		b.Fatal(err)
	}
	spec.Rounds = "none"
	runs(b, spec, set, w)
}

// runs simulates w under spec's policy (a fresh one per run) b.N times,
// timing only the runs, and returns the last run's result.
func runs(b *testing.B, spec runspec.RunSpec, set *profiles.Set, w *traces.Workload) *sim.Result {
	b.ResetTimer()
	var res *sim.Result
	for i := 0; i < b.N; i++ {
		pol, err := runspec.NewPolicy(known, spec)
		if err != nil {
			b.Fatal(err)
		}
		if res, err = sim.Run(spec.SimConfig(), set, w, pol); err != nil {
			b.Fatal(err)
		}
	}
	return res
}

// BenchmarkPolluxReferenceRun is one whole 160-job Pollux run (the target:
// under a second with -cpu 1).
func BenchmarkPolluxReferenceRun(b *testing.B) { benchRun(b, "pollux") }

// BenchmarkTiresiasReferenceRun is one whole 160-job Tiresias run.
func BenchmarkTiresiasReferenceRun(b *testing.B) { benchRun(b, "tiresias") }

// BenchmarkPolluxReferenceRunFull is BenchmarkPolluxReferenceRun with a
// full search every round (the defaults before skip_unchanged and
// quick_stall were turned on and stall lowered to 5).
func BenchmarkPolluxReferenceRunFull(b *testing.B) {
	benchRun(b, "pollux", "stall=10", "skip_unchanged=false", "quick_stall=0")
}
