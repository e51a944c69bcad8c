package gavel_test

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies/gavel"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// Whole runs of reference workload 1 (16 × 4 T4, measured tables): every
// job finishes and the average JCTs stay within 1 % of those recorded in
// docs/gavel.md.
func TestReferenceWorkload(t *testing.T) {
	w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{gavel.LAS: 3209, gavel.FTF: 3218, gavel.Throughput: 4506} {
		spec := runspec.DefaultSpec(name)
		pol, err := runspec.NewPolicy(intree.Extensions(), spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(spec.SimConfig(), profiles.Default(), w, pol)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := res.Summary
		if s.Jobs != len(w.Jobs) {
			t.Errorf("%s: %d jobs finished of %d", name, s.Jobs, len(w.Jobs))
		}
		if math.Abs(s.AvgJCT/want-1) > 0.01 {
			t.Errorf("%s: avg JCT %.0f s, want %.0f ± 1 %%", name, s.AvgJCT, want)
		}
	}
}
