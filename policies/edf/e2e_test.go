package edf_test

import (
	"context"
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies/edf"
	"github.com/polluxsim/polluxsim/sim"
)

// A whole run of an ITP-derived workload with ElasticFlow's deadlines (160
// jobs of cluster02, seed 1, 16 × 4 T4) under edf-elastic: its ratios
// without and with admission are docs/deadlines.md's (31.9 and 36.2 %)
// within a point; with admission it declines only with its two reasons,
// and fewer than a quarter of the jobs it admits end late.
func TestElasticITPDeadlines(t *testing.T) {
	for _, tc := range []struct {
		opts  []string
		ratio float64
	}{{nil, 0.319}, {[]string{"admission=true"}, 0.362}} {
		spec, err := runspec.DefaultSpec(edf.ElasticName).WithOptions(intree.Extensions(), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: "generate:trace=itp:cluster02,deadlines=elasticflow,seed=1"},
			runner.Options{Ext: intree.Extensions()})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range res.Sim.Jobs {
			if j.Declined != "" && j.Declined != edf.DeclineElastic && j.Declined != edf.DeclineElasticOthers {
				t.Errorf("%v: job %s declined for %q", tc.opts, j.Name, j.Declined)
			}
		}
		d := sim.TallyDeadlines(res.Sim.Jobs)
		if r, _ := d.Ratio(); math.Abs(r-tc.ratio) > 0.01 {
			t.Errorf("%v: meets %.1f %% of the deadlines, docs/deadlines.md says %.1f %%", tc.opts, 100*r, 100*tc.ratio)
		}
		if tc.opts != nil && 4*d.Late >= d.With-d.Declined {
			t.Errorf("%v: %d of %d admitted jobs late", tc.opts, d.Late, d.With-d.Declined)
		}
	}
}
