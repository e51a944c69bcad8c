package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// One toy job on one GPU at M0 needs 3 epochs × 1000 iterations of the
// true step time: the GPU time it is known to use alone.
func TestMinGPUSecondsClosedForm(t *testing.T) {
	set := fakeSet()
	w := fakeWorkload(
		traces.Job{Name: "a", Time: 5, App: "toy", Replicas: 1, Batch: 32},
		traces.Job{Name: "b", Time: 7, App: "toy", Replicas: 1, Batch: 32},
	)
	got := MinGPUSeconds(smallConfig(), set, w, fifo.New().Traits())
	if want := 2 * 3 * 1000 * (0.05 + 0.001*32); math.Abs(got-want) > 1e-9 {
		t.Errorf("MinGPUSeconds = %v, want %v", got, want)
	}
	res, err := Run(smallConfig(), set, w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	// The estimate is a lower bound of what the run used (restarts count).
	if used := res.Summary.GPUHours * 3600; used < got {
		t.Errorf("run used %v GPU-seconds, below the lower estimate %v", used, got)
	}
	// Work: the jobs are in the system at least 246 s and 492 s − their
	// arrivals, in 60 s rounds.
	jr := MinJobRounds(smallConfig(), set, w, fifo.New().Traits())
	one := 3 * 1000 * (0.05 + 0.001*32)
	if want := (one/8 + 2*one/8 - 12) / 60; math.Abs(jr-want) > 1e-9 {
		t.Errorf("MinJobRounds = %v, want %v", jr, want)
	}
	var rounds int
	for _, rs := range res.RoundStats {
		rounds += rs.Active
	}
	if float64(rounds) < jr {
		t.Errorf("run took %d job-rounds, below the lower estimate %v", rounds, jr)
	}
}

// The bounds hold on a real workload under every kind of policy, and a
// work limit below the estimate refuses the workload up front in one line;
// the engine itself stops a run that passes its limit.
func TestCheckFeasible(t *testing.T) {
	set := profiles.Default()
	w := paperPrefix(t, set, 40)
	for i := range w.Jobs {
		w.Jobs[i].Time = 0 // all at once: a queue to work through
	}
	p := fifo.New()
	cfg := DefaultConfig()
	if err := CheckFeasible(cfg, set, w, p); err != nil {
		t.Fatalf("a reference workload refused: %v", err)
	}
	res, err := Run(cfg, set, w, p)
	if err != nil {
		t.Fatal(err)
	}
	if lo := MinGPUSeconds(cfg, set, w, p.Traits()); res.Summary.GPUHours*3600 < lo {
		t.Errorf("run used %v GPU-hours, below the lower estimate %v", res.Summary.GPUHours, lo/3600)
	}
	var rounds int64
	for _, rs := range res.RoundStats {
		rounds += int64(rs.Active)
	}
	jr := MinJobRounds(cfg, set, w, p.Traits())
	if float64(rounds) < jr || jr <= 0 {
		t.Errorf("run took %d job-rounds, lower estimate %v", rounds, jr)
	}
	cfg.MaxJobRounds = int64(jr / 2)
	err = CheckFeasible(cfg, set, w, p)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "work limit") {
		t.Errorf("overloaded workload: got %v", err)
	}
	if err == nil || !strings.Contains(err.Error(), "--rounds changes or none") {
		t.Errorf("refusal does not say that fewer round records would let FIFO skip waiting jobs: %v", err)
	}
	sparse := cfg
	sparse.Rounds = RoundsNone
	if err := CheckFeasible(sparse, set, w, p); err != nil {
		t.Errorf("the work bound was applied to a run decided incrementally: %v", err)
	}
	cfg.MaxJobRounds = rounds - 1
	if _, err := Run(cfg, set, w, fifo.New()); err == nil || !strings.Contains(err.Error(), "work limit") {
		t.Errorf("run past the work limit: got %v", err)
	}
	cfg = DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 1, GPUsPerNode: 1}
	cfg.MaxTime = 3600
	if err := CheckFeasible(cfg, set, w, p); err == nil || !strings.Contains(err.Error(), "time limit") {
		t.Errorf("workload beyond the time limit: got %v", err)
	}
}

// A round interval so short that the rounds would pass the round limit:
// refused up front when the workload's last arrival (or GPU time) alone
// needs more rounds, else stopped by the engine at the limit, in one line.
func TestRoundLimit(t *testing.T) {
	set := fakeSet()
	w := fakeWorkload(
		traces.Job{Name: "a", Time: 0, App: "toy", Replicas: 1, Batch: 32},
		traces.Job{Name: "b", Time: 600, App: "toy", Replicas: 1, Batch: 32},
	)
	cfg := smallConfig()
	cfg.Interval = 1
	cfg.MaxRounds = 500 // the last arrival alone needs 600
	err := CheckFeasible(cfg, set, w, fifo.New())
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "round limit of 500") {
		t.Errorf("up-front refusal: got %v", err)
	}
	cfg.MaxRounds = 700 // enough for the arrivals, not for the run
	if err := CheckFeasible(cfg, set, w, fifo.New()); err != nil {
		t.Fatalf("refused a workload the bound allows: %v", err)
	}
	res, err := Run(cfg, set, w, fifo.New())
	if err == nil || !strings.Contains(err.Error(), "after 700 scheduling rounds") {
		t.Fatalf("run past the round limit: got %v (%v)", err, res != nil)
	}
	cfg.MaxRounds = 0 // the default lets it finish
	res, err = Run(cfg, set, w, fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	// (Rounds with no active job leave no RoundStat.)
	if last := res.RoundStats[len(res.RoundStats)-1].Time / cfg.Interval; last <= 700 || last > DefaultMaxRounds {
		t.Errorf("the run's last round was round %v", last)
	}
	cfg.MaxRounds = -1
	if _, err := Run(cfg, set, w, fifo.New()); err == nil {
		t.Error("a negative round limit was accepted")
	}
}

// A late first arrival is named as the reason a small workload cannot end
// in time ("needs at least 1.12 GPU-hours, so at least 1e+08 s" read as if
// the work alone took that long).
func TestFeasibleLateArrival(t *testing.T) {
	cfg := smallConfig()
	cfg.MaxTime = 1e6
	w := fakeWorkload(traces.Job{Name: "late", Time: 999_990, App: "toy", Replicas: 1, Batch: 32})
	err := CheckFeasible(cfg, fakeSet(), w, fifo.New())
	if err == nil || !strings.Contains(err.Error(), "on 8 GPUs after its first arrival at 1e+06 s, so it cannot end before") {
		t.Errorf("got %v", err)
	}
}
