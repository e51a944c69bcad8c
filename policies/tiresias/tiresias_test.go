package tiresias_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/tiresias"
)

// build makes a Tiresias policy through the registry with a demotion
// threshold in GPU-hours.
func build(t *testing.T, demote string) policies.Policy {
	t.Helper()
	reg := policies.MustRegistry(tiresias.Registration())
	set, err := reg.Resolve(tiresias.Name, "", []string{"demote_gpu_hours=" + demote})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.Build(tiresias.Name, set, policies.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func job(name string, submit float64, gpus int) policies.Job {
	return policies.Job{Name: name, App: "x", Submit: submit, Request: policies.Request{GPUs: gpus, Batch: 32 * gpus}}
}

// play feeds each round's decision back as the jobs' allocations and
// returns the last decision. rounds[k] lists the jobs active at times[k].
func play(p policies.Policy, c policies.Cluster, times []float64, rounds [][]policies.Job) policies.Decision {
	held := map[string][]int{}
	var d policies.Decision
	for k, now := range times {
		jobs := rounds[k]
		for i := range jobs {
			jobs[i].Alloc = held[jobs[i].Name]
			jobs[i].Age = now - jobs[i].Submit
		}
		d = p.Schedule(now, c, jobs)
		for i, a := range d.Alloc {
			held[jobs[i].Name] = a
		}
	}
	return d
}

// TestDemotesExactlyAtThreshold: with demote_gpu_hours=1, a 2-GPU job is
// demoted once it has run 1800 s (3600 GPU-seconds), not a moment before.
// Job a runs alone from t=0; job b (2 GPUs, later) waits behind it in
// queue 0 on the 2-GPU node, and overtakes it only once a is demoted.
func TestDemotesExactlyAtThreshold(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 2}
	for _, tc := range []struct {
		times    []float64
		demoted  bool
		describe string
	}{
		{[]float64{0, 1799.999}, false, "just below: 3599.998 GPU-s"},
		{[]float64{0, 1800}, true, "at: 3600 GPU-s"},
		{[]float64{0, 900, 1800}, true, "at, over two intervals"},
		{[]float64{0, 900, 1799}, false, "below, over two intervals"},
	} {
		var rounds [][]policies.Job
		for k := range tc.times {
			jobs := []policies.Job{job("a", 0, 2)}
			if k == len(tc.times)-1 {
				jobs = append(jobs, job("b", 1, 2))
			}
			rounds = append(rounds, jobs)
		}
		d := play(build(t, "1"), c, tc.times, rounds)
		aRuns, bRuns := policies.Sum(d.Alloc[0]) == 2, policies.Sum(d.Alloc[1]) == 2
		if aRuns == tc.demoted || bRuns != tc.demoted {
			t.Errorf("%s: a runs %v, b runs %v; want a demoted: %v", tc.describe, aRuns, bRuns, tc.demoted)
		}
	}
	// The default threshold is 16 GPU-hours: the same 1800 s demote
	// nothing.
	d := play(build(t, "16"), c, []float64{0, 1800}, [][]policies.Job{{job("a", 0, 2)}, {job("a", 0, 2), job("b", 1, 2)}})
	if policies.Sum(d.Alloc[0]) != 2 || d.Alloc[1] != nil {
		t.Errorf("16 GPU-hours: %v, want a running, b waiting", d.Alloc)
	}
	if o := tiresias.DefaultOptions(); o.DemoteGPUHours != 16 {
		t.Errorf("default threshold %v GPU-hours, want 16", o.DemoteGPUHours)
	}
}

// TestQueueOrder: queue 0 is scanned first, in arrival order, then queue
// 1; every job that fits runs, so small jobs pass a blocked big one, and a
// demoted job yields to newer undemoted ones even though it came first.
func TestQueueOrder(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	old := job("old", 0, 1)
	// Round 1: old runs alone; by round 2 it has 100 GPU-s > 3.6 and is
	// demoted. Round 2: j1 (4) runs, j2 (6) does not fit in the 4 left,
	// j3 (2) and j4 (2) do; old (1, queue 1) finds no GPU left.
	newJobs := []policies.Job{job("j1", 50, 4), job("j2", 51, 6), job("j3", 52, 2), job("j4", 53, 2)}
	d := play(build(t, "0.001"), c, []float64{0, 100}, [][]policies.Job{{old}, append([]policies.Job{old}, newJobs...)})
	// New jobs go to the nodes with the most free GPUs, in queue order:
	// j1 takes node 0 (a tie, lowest index), j3 and j4 node 1.
	want := [][]int{nil, {4, 0}, nil, {0, 2}, {0, 2}}
	for i, w := range want {
		if !policies.Equal(d.Alloc[i], w) {
			t.Errorf("job %d: %v, want %v", i, d.Alloc[i], w)
		}
	}
	// Without demotion old keeps its GPU (queue 0, first), j1 its 4, j2
	// is blocked, j3 fits in the 3 left, j4 does not.
	d = play(build(t, "16"), c, []float64{0, 100}, [][]policies.Job{{old}, append([]policies.Job{old}, newJobs...)})
	// old keeps node 0, where it started; j1 takes the freest node, 1.
	want = [][]int{{1, 0}, {0, 4}, nil, {2, 0}, nil}
	for i, w := range want {
		if !policies.Equal(d.Alloc[i], w) {
			t.Errorf("undemoted: job %d: %v, want %v", i, d.Alloc[i], w)
		}
	}
}

// TestDemotedQueueIsFIFO: within queue 1 jobs keep the order in which
// they were demoted.
func TestDemotedQueueIsFIFO(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 2}
	a, b := job("a", 0, 2), job("b", 1, 2)
	// t=0: a runs. t=10: a is demoted (20 GPU-s ≥ 3.6), b runs. t=20: b
	// is demoted after a, so a, first in queue 1, runs again.
	d := play(build(t, "0.001"), c, []float64{0, 10, 20}, [][]policies.Job{{a}, {a, b}, {a, b}})
	if policies.Sum(d.Alloc[0]) != 2 || d.Alloc[1] != nil {
		t.Errorf("alloc %v, want a (demoted first) running", d.Alloc)
	}
}
