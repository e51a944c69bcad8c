package sim

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/traces"
)

// The two finish-time-fairness baselines on the closed-form toy
// application (2 nodes × 4 GPUs, requested batch 32, non-adaptive): one GPU
// at m = 32 takes 3 epochs × 1000 iterations × (0.05 + 0.001·32) s = 246 s.
func TestFairnessBaselines(t *testing.T) {
	app := fakeSet().Apps["toy"]
	spec := traces.Job{Name: "toy-0", App: "toy", Replicas: 1, Batch: 32}
	cfg := smallConfig()
	one := 3 * 1000 * (0.05 + 0.001*32)
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*want }

	// 16 jobs on 8 GPUs: a share of half a GPU. The exclusive baseline
	// still grants a whole GPU; the equal share time-slices it.
	if got := exclusiveJCT(app, spec, cfg, 16, false); !near(got, one) {
		t.Errorf("exclusive, N = 16: %v s, want %v", got, one)
	}
	if got := equalShareJCT(app, spec, cfg, 16, false); !near(got, 2*one) {
		t.Errorf("equal share, N = 16: %v s, want %v", got, 2*one)
	}
	// N = 4: a whole share of 2 GPUs; both baselines agree.
	ex, eq := exclusiveJCT(app, spec, cfg, 4, false), equalShareJCT(app, spec, cfg, 4, false)
	if !near(eq, ex) || !(ex < one) {
		t.Errorf("N = 4: exclusive %v s, equal share %v s, want equal and below %v", ex, eq, one)
	}
	// N = 3: 8/3 GPUs. Exclusive takes floor = 2 GPUs; equal share runs on
	// 3 GPUs for 8/9 of the time.
	if got, want := equalShareJCT(app, spec, cfg, 3, false), isolatedJCT(app, spec, cfg, 3, false)*9/8; !near(got, want) {
		t.Errorf("equal share, N = 3: %v s, want %v", got, want)
	}
	if got := exclusiveJCT(app, spec, cfg, 3, false); !near(got, ex) {
		t.Errorf("exclusive, N = 3: %v s, want the 2-GPU time %v", got, ex)
	}
	// Contention below 1 counts as 1: the whole cluster, capped at what the
	// job can use (batch 32 / min local 8 = 4 GPUs).
	if got, want := equalShareJCT(app, spec, cfg, 0.5, false), isolatedJCT(app, spec, cfg, 4, false); !near(got, want) {
		t.Errorf("equal share, N < 1: %v s, want the 4-GPU time %v", got, want)
	}
}

// A run reports both ρ for every job, each JCT over its baseline.
func TestRunReportsBothFairness(t *testing.T) {
	res, err := Run(smallConfig(), fakeSet(), manyJobs(12), fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Jobs {
		if !(j.EqualShareJCT > 0) || math.Abs(j.FairnessEqualShare*j.EqualShareJCT-j.JCT) > 1e-9*j.JCT {
			t.Errorf("job %s: exclusive %v s ρ %v, equal share %v s ρ %v, JCT %v", j.Name, j.ExclusiveJCT, j.Fairness, j.EqualShareJCT, j.FairnessEqualShare, j.JCT)
		}
	}
	if !(res.Summary.AvgFairnessEqualShare > 0) || res.Summary.P99FairnessEqualShare < res.Summary.AvgFairnessEqualShare {
		t.Errorf("mean equal-share ρ %v, p99 %v", res.Summary.AvgFairnessEqualShare, res.Summary.P99FairnessEqualShare)
	}
}

// A calibration scales the true step times and replaces the restart delay:
// the closed form of TestSingleJobClosedForm with step × 1.5 and a 100 s
// restart.
func TestCalibratedSingleJob(t *testing.T) {
	cfg := smallConfig()
	cfg.StepScale = map[string]float64{"toy": 1.5}
	cfg.RestartDelayByApp = map[string]float64{"toy": 100}
	w := fakeWorkload(traces.Job{Name: "toy-0", Time: 5, App: "toy", Replicas: 1, Batch: 32})
	res, err := Run(cfg, fakeSet(), w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	want := 60 + 100 + 3*1000*1.5*(0.05+0.001*32)
	if got := res.Jobs[0].Finish; math.Abs(got-want) > 1e-9 {
		t.Errorf("finish %.9f, want %.9f", got, want)
	}
	cfg.StepScale = map[string]float64{"other": 2}
	if _, err := Run(cfg, fakeSet(), w, fifo.New()); err == nil {
		t.Error("a factor for an unknown application was accepted")
	}
}

// The isolated run time over which deadlines are generated is the job's
// time alone on its requested GPUs: on one GPU the closed form, and, for
// any GPU count, what the engine takes to run the job alone after its
// start and restart (FIFO gives it exactly its request).
func TestIsolatedRunTime(t *testing.T) {
	app := fakeSet().Apps["toy"]
	spec := traces.Job{Name: "toy-0", App: "toy", Replicas: 1, Batch: 32}
	if got, want := IsolatedRunTime(app, spec, 4), 3*1000*(0.05+0.001*32); math.Abs(got-want) > 1e-9*want {
		t.Errorf("one GPU: %v s, want %v", got, want)
	}
	for _, k := range []int{1, 2, 3, 4, 6, 8} {
		spec := traces.Job{Name: "toy-0", App: "toy", Replicas: k, Batch: 32 * k}
		res, err := Run(smallConfig(), fakeSet(), fakeWorkload(spec), fifo.New())
		if err != nil {
			t.Fatal(err)
		}
		ran := res.Jobs[0].Finish - res.Jobs[0].FirstStart - DefaultConfig().RestartDelay
		if got := IsolatedRunTime(app, spec, 4); math.Abs(got-ran) > 1e-6*ran {
			t.Errorf("%d GPUs: isolated run time %v s, the engine ran it in %v s", k, got, ran)
		}
	}
}
