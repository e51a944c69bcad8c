package sim

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// workSet is one application whose progress is seconds of work on any
// placement (a step of 1 s, no synchronisation, batch gain 1 at its only
// batch size), in epochs of perEpoch seconds.
func workSet(epochs int, perEpoch float64) *profiles.Set {
	app := &profiles.App{
		Name:   "work",
		Limits: models.Limits{InitBatch: 64, MaxBatch: 64, MinLocal: 1, MaxLocal: 64},
		Epochs: epochs,
		Truth:  fakeTruth{a: 1, grad: models.GradStats{Sqr: 1, Var: 0}, perEpoch: perEpoch},
	}
	return &profiles.Set{Source: "work", Apps: map[string]*profiles.App{"work": app}}
}

// faultRun runs one job of work seconds on nodes nodes of one GPU (FIFO
// places it on any nodes up) on a cluster with spare nodes, under model m.
func faultRun(t *testing.T, m *faults.Model, nodes int, work, restart float64, seed uint64) (JobResult, *FaultSummary) {
	t.Helper()
	return faultRunConfig(t, DefaultConfig(), m, nodes, work, restart, seed)
}

// faultRunConfig is faultRun from cfg (its interval, say).
func faultRunConfig(t *testing.T, cfg Config, m *faults.Model, nodes int, work, restart float64, seed uint64) (JobResult, *FaultSummary) {
	t.Helper()
	cfg.Cluster = policies.Cluster{Nodes: nodes + 8, GPUsPerNode: 1}
	cfg.RestartDelay = restart
	cfg.Failures, cfg.FaultSeed = m, seed
	cfg.Rounds = RoundsNone
	const epochs = 10
	w := &traces.Workload{Source: "faults", Jobs: []traces.Job{{Name: "j", App: "work", Replicas: nodes, Batch: 64}}}
	res, err := Run(cfg, workSet(epochs, work/epochs), w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	return res.Jobs[0], res.Summary.Faults
}

// A single job under failures: its simulated ETTR against the closed form
// (faults.ETTR; to first order, Kokolis et al.'s) over a grid of
// checkpoint intervals and restart costs, within 2 %. After each failure
// the job waits for the next round (half an interval on average) and
// restarts.
func TestETTRClosedForm(t *testing.T) {
	const (
		nodes = 2
		mttf  = 6 * 3600.0 // the job's
		cost  = 60.0
		work  = 800 * mttf // about 800 failures
	)
	rate := 1 / mttf
	for _, tau := range []float64{1200, 3600, 7200} {
		for _, restart := range []float64{60, 600} {
			m := &faults.Model{Rate: faults.Day / (nodes * mttf), Repair: faults.Dist{Kind: "fixed", Mean: 600},
				Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: tau, Cost: cost}}
			j, _ := faultRun(t, m, nodes, work, restart, 1)
			want := faults.ETTR(rate, tau, cost, 30, restart)
			got := j.Faults.ETTR
			t.Logf("τ %v restart %v: %.4f vs %.4f (first order %.4f), %d", tau, restart, got, want, faults.ETTRFirstOrder(rate, tau, cost, 30, restart), j.Faults.Interruptions)
			if math.Abs(got/want-1) > 0.02 {
				t.Errorf("τ %v s, restart %v s: ETTR %.4f, closed form %.4f (first order %.4f), %d interruptions",
					tau, restart, got, want, faults.ETTRFirstOrder(rate, tau, cost, 30, restart), j.Faults.Interruptions)
			}
		}
	}
}

// The mean time to failure of a job falls as 1/(nodes·λ): the time a job
// holds its nodes over its interruptions, for jobs of 1 to 8 nodes, is
// within three standard errors of it.
func TestMTTFJobSize(t *testing.T) {
	const rate = 4.0 // per node-day
	m := &faults.Model{Rate: rate, Repair: faults.Dist{Kind: "exp", Mean: 3600}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 1800}}
	for _, nodes := range []int{1, 2, 4, 8} {
		want := faults.Day / (float64(nodes) * rate)
		j, _ := faultRun(t, m, nodes, 400*want, 30, uint64(nodes))
		n := float64(j.Faults.Interruptions)
		got := j.GPUSeconds / float64(nodes) / n
		if math.Abs(got/want-1) > 3/math.Sqrt(n) {
			t.Errorf("%d nodes: MTTF %.0f s over %v interruptions, want %.0f s", nodes, got, n, want)
		}
	}
}

// Young's interval is where the time lost to checkpoints and failures is
// least: over a sweep of intervals from a quarter to four times it (the
// same faults for each, common random numbers), the job's ETTR is
// highest at Young's, and Daly's does no worse than 0.5 % below it.
func TestYoungMinimisesLoss(t *testing.T) {
	const (
		nodes = 2
		mttf  = 6 * 3600.0
		cost  = 120.0
	)
	young := faults.Young(cost, mttf)
	ettr := func(ck faults.Checkpoint) float64 {
		m := &faults.Model{Rate: faults.Day / (nodes * mttf), Repair: faults.Dist{Kind: "fixed", Mean: 600}, Checkpoint: ck}
		j, _ := faultRun(t, m, nodes, 500*mttf, 60, 5)
		return j.Faults.ETTR
	}
	best := ettr(faults.Checkpoint{Mode: "young", Cost: cost})
	for _, k := range []float64{0.25, 0.5, 2, 4} {
		if e := ettr(faults.Checkpoint{Mode: "fixed", Interval: k * young, Cost: cost}); e >= best {
			t.Errorf("ETTR %.4f at %g × Young's interval, %.4f at Young's %.0f s", e, k, best, young)
		}
	}
	if d := ettr(faults.Checkpoint{Mode: "daly", Cost: cost}); d < best-0.005 {
		t.Errorf("ETTR %.4f at Daly's interval, %.4f at Young's", d, best)
	}
}

// The llama3 preset in the engine: a job on 2,048 nodes of 8 GPUs (with
// spares to restart on at once) is interrupted at the rate the preset was
// derived from, 419 per 54 days of holding its nodes, within the Poisson
// band (three standard deviations).
func TestLlama3Job(t *testing.T) {
	if testing.Short() {
		t.Skip("a 54-day run on 2,048 nodes")
	}
	m, err := faults.Parse("llama3,repair=fixed:3600")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 2048 + 32, GPUsPerNode: 8}
	cfg.Failures, cfg.FaultSeed = m, 1
	cfg.Rounds = RoundsNone
	cfg.Interval = 3600
	w := &traces.Workload{Source: "llama3", Jobs: []traces.Job{{Name: "llama", App: "work", Replicas: 2048 * 8, Batch: 64}}}
	res, err := Run(cfg, workSet(1, 54*faults.Day), w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	held := j.GPUSeconds / (2048 * 8)
	n := float64(j.Faults.Interruptions) * 54 * faults.Day / held
	t.Logf("%d interruptions in %.1f days holding the nodes (%.0f per 54 days), ETTR %.3f", j.Faults.Interruptions, held/faults.Day, n, j.Faults.ETTR)
	if math.Abs(n-419) > 3*math.Sqrt(419) {
		t.Errorf("%.0f interruptions per 54 days, want 419 ± %.0f", n, 3*math.Sqrt(419))
	}
}

// A job's own failures (job_fail) come at their rate per running time,
// whatever the job's size, and its nodes stay up.
func TestJobFailures(t *testing.T) {
	const rate = 6.0 // per day of running
	m := &faults.Model{JobFailRate: rate, Repair: faults.Dist{Kind: "fixed", Mean: 60}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 1800}}
	for _, nodes := range []int{1, 4} {
		j, sum := faultRun(t, m, nodes, 400*faults.Day/rate, 30, 3)
		n := float64(j.Faults.Interruptions)
		got := j.GPUSeconds / float64(nodes) / n
		want := faults.Day / rate
		if math.Abs(got/want-1) > 3/math.Sqrt(n) {
			t.Errorf("%d nodes: MTTF %.0f s over %v interruptions, want %.0f s", nodes, got, n, want)
		}
		if sum.NodeFailures != 0 || sum.Availability != 1 {
			t.Errorf("%d nodes: %d node failures, availability %v; want none, 1", nodes, sum.NodeFailures, sum.Availability)
		}
	}
}

// The run's record of nodes down (Result.NodesDown, cluster.parquet's
// nodes_down) integrates to the node time down that node availability
// reports, and DownAt reads it as a step function.
func TestNodesDownRecord(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 10, GPUsPerNode: 1}
	cfg.Failures = &faults.Model{Rate: 20, Repair: faults.Dist{Kind: "exp", Mean: 1800}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 1800}}
	cfg.Rounds = RoundsNone
	w := &traces.Workload{Source: "faults", Jobs: []traces.Job{{Name: "j", App: "work", Replicas: 2, Batch: 64}}}
	res, err := Run(cfg, workSet(10, 20*3600), w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	end := res.Summary.Makespan
	downSec, prev, last := 0.0, 0, 0.0
	for i, d := range res.NodesDown {
		if i > 0 && !(d.Time > res.NodesDown[i-1].Time) || d.Nodes < 0 || d.Nodes > 10 {
			t.Fatalf("change %d: %+v after %+v", i, d, res.NodesDown[max(i-1, 0)])
		}
		downSec += float64(prev) * (math.Min(d.Time, end) - last)
		prev, last = d.Nodes, math.Min(d.Time, end)
		if n, ok := res.DownAt(d.Time); !ok || n != d.Nodes {
			t.Errorf("DownAt(%v) = %d, %v, want %d", d.Time, n, ok, d.Nodes)
		}
	}
	downSec += float64(prev) * (end - last)
	if len(res.NodesDown) < 20 {
		t.Fatalf("%d changes, want many", len(res.NodesDown))
	}
	if got, want := 1-downSec/(10*end), res.Summary.Faults.Availability; math.Abs(got-want) > 1e-9 {
		t.Errorf("availability from the record %.9f, reported %.9f", got, want)
	}
	if n, ok := res.DownAt(res.NodesDown[0].Time - 1); !ok || n != 0 {
		t.Errorf("before the first fault: %d, %v", n, ok)
	}
}
