package sweep

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// referenceMeans are the reference simulator's published mean over
// workloads 1..8 of the average JCT (seconds), 1.0x load, TunedJobs.
var referenceMeans = map[string]float64{"tiresias": 4038.18, "optimus": 5681.93, "pollux": 2751.13}

// runReference simulates the 8 reference workloads under spec in parallel
// and returns the per-workload average JCTs.
func runReference(t *testing.T, dir string, spec runspec.RunSpec) []float64 {
	t.Helper()
	set, err := profiles.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	avg := make([]float64, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range avg {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			w, _, err := traces.ReadFile(filepath.Join(dir, "workloads", fmt.Sprintf("workload-%d.csv", i+1)), traces.ReadOptions{})
			if err != nil {
				errs[i] = err
				return
			}
			p, err := runspec.NewPolicy(testext.Ext(), spec)
			if err != nil {
				errs[i] = err
				return
			}
			res, err := sim.Run(spec.SimConfig(), set, w, p)
			if err != nil {
				errs[i] = err
				return
			}
			avg[i] = res.Summary.AvgJCT
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return avg
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// TestReferenceBaselines: in step mode, Tiresias and Optimus+Oracle
// reproduce the reference simulator's published mean average JCT within
// ±2 % and ±3 % (the reference is deterministic for these two policies).
func TestReferenceBaselines(t *testing.T) {
	dir := refdata.Dir(t)
	for _, tc := range []struct {
		policy string
		tol    float64
	}{{"tiresias", 0.02}, {"optimus", 0.03}} {
		spec := runspec.DefaultSpec(tc.policy)
		spec.Step = true
		avg := runReference(t, dir, spec)
		m := meanOf(avg)
		want := referenceMeans[tc.policy]
		t.Logf("%s (step mode): per workload %.0f; mean %.1f s vs reference %.1f s (%+.2f%%)",
			tc.policy, avg, m, want, 100*(m/want-1))
		if math.Abs(m/want-1) > tc.tol {
			t.Errorf("%s mean avg JCT %.1f s, want %.1f s ± %.0f%%", tc.policy, m, want, 100*tc.tol)
		}
	}
}

// TestReferencePollux: Pollux's mean average JCT within ±10 % of the
// reference's, and its ratios to the two baselines (from this build) within
// ±0.05 of the paper's 0.48 and 0.68.
func TestReferencePollux(t *testing.T) {
	dir := refdata.Dir(t)
	if testing.Short() {
		t.Skip("Pollux over 8 reference workloads takes about half a minute")
	}
	means := map[string]float64{}
	for _, pol := range []string{"pollux", "optimus", "tiresias"} {
		spec := runspec.DefaultSpec(pol)
		spec.Step = true
		avg := runReference(t, dir, spec)
		means[pol] = meanOf(avg)
		t.Logf("%s: per workload %.0f; mean %.1f s", pol, avg, means[pol])
	}
	p := means["pollux"]
	if want := referenceMeans["pollux"]; math.Abs(p/want-1) > 0.10 {
		t.Errorf("Pollux mean avg JCT %.1f s, want %.1f s ± 10%%", p, want)
	}
	for _, tc := range []struct {
		base string
		want float64
	}{{"optimus", 0.48}, {"tiresias", 0.68}} {
		r := p / means[tc.base]
		t.Logf("Pollux / %s = %.3f (paper %.2f)", tc.base, r, tc.want)
		if math.Abs(r-tc.want) > 0.05 {
			t.Errorf("Pollux / %s = %.3f, want %.2f ± 0.05", tc.base, r, tc.want)
		}
	}
}
