package elasticflow_test

import (
	"context"
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies/edf"
	"github.com/polluxsim/polluxsim/policies/elasticflow"
	"github.com/polluxsim/polluxsim/sim"
)

// A whole run of an ITP-derived workload with ElasticFlow's deadlines (160
// jobs of cluster02, seed 1, 16 × 4 T4): ElasticFlow meets more deadlines
// than EDF with and without admission control, its ratio is the one in
// docs/elasticflow.md (33.8 %) within a point, it declines only with its
// two reasons, and every job it admits with a deadline was feasible in
// its plan when it arrived, so the late ones are late by restarts, fewer
// than a quarter of those admitted.
func TestITPDeadlines(t *testing.T) {
	run := func(name string, opts ...string) *sim.Result {
		t.Helper()
		spec, err := runspec.DefaultSpec(name).WithOptions(intree.Extensions(), opts)
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: "generate:trace=itp:cluster02,deadlines=elasticflow,seed=1"},
			runner.Options{Ext: intree.Extensions()})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Sim
	}
	res := run(elasticflow.Name)
	for _, j := range res.Jobs {
		if j.Declined != "" && j.Declined != elasticflow.DeclineShare && j.Declined != elasticflow.DeclineOthers && j.Declined != edf.DeclineReason {
			t.Errorf("job %s declined for %q", j.Name, j.Declined)
		}
	}
	ef := sim.TallyDeadlines(res.Jobs)
	ratio, _ := ef.Ratio()
	if math.Abs(ratio-0.338) > 0.01 {
		t.Errorf("elasticflow meets %.1f %% of the deadlines, docs/elasticflow.md says 33.8 %%", 100*ratio)
	}
	if admitted := ef.With - ef.Declined; 4*ef.Late >= admitted {
		t.Errorf("elasticflow: %d of %d admitted jobs late", ef.Late, admitted)
	}
	for _, opt := range [][]string{nil, {"admission=true"}} {
		if e, _ := sim.TallyDeadlines(run("edf", opt...).Jobs).Ratio(); !(ratio > e) {
			t.Errorf("elasticflow %.1f %% not above edf %v's %.1f %%", 100*ratio, opt, 100*e)
		}
	}
}
