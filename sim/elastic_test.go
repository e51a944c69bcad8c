package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// wholeCluster gives the first active job every GPU of the cluster and
// records the node counts it was offered.
type wholeCluster struct{ seen map[float64]int }

func (*wholeCluster) Name() string            { return "whole" }
func (*wholeCluster) Traits() policies.Traits { return policies.Traits{} }
func (w *wholeCluster) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	w.seen[now] = c.Nodes
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	a := make([]int, c.Nodes)
	for n := range a {
		a[n] = c.GPUsPerNode
	}
	d.Alloc[0] = a
	return d
}

// script is an autoscaler whose target is a function of time.
type script func(now float64) int

func (script) Name() string                     { return "script" }
func (f script) Target(s autoscalers.State) int { return f(s.Now) }

// longSet is fakeSet with a toy application of 50 epochs.
func longSet() *profiles.Set {
	set := fakeSet()
	set.Apps["toy"].Epochs = 50
	return set
}

func bigToy() *traces.Workload {
	return fakeWorkload(traces.Job{Name: "toy-0", App: "toy", Replicas: 4, Batch: 1024})
}

// A node ordered at the first round (t=60) with a 120 s delay is billed
// from then on but offered to the policy only from the round at t=180.
func TestProvisioningNodeContributesNothingUntilReady(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	cfg.Elastic = &Elastic{Autoscaler: script(func(float64) int { return 2 }), MinNodes: 1, MaxNodes: 2, ProvisionDelay: 120, NodePrice: 3}
	pol := &wholeCluster{seen: map[float64]int{}}
	res, err := Run(cfg, longSet(), bigToy(), pol)
	if err != nil {
		t.Fatal(err)
	}
	for tm, want := range map[float64]int{60: 1, 120: 1, 180: 2, 240: 2} {
		if pol.seen[tm] != want {
			t.Errorf("t=%v: policy offered %d nodes, want %d", tm, pol.seen[tm], want)
		}
	}
	for _, r := range res.Rounds {
		if r.Time < 180 && r.GPUs > 4 || r.Time >= 180 && r.GPUs != 8 {
			t.Errorf("t=%v: job holds %d GPUs", r.Time, r.GPUs)
		}
	}
	if ns := res.NodeStats[0]; ns != (NodeStat{Time: 60, Ready: 1, Provisioning: 1, NodeHours: 60.0 / 3600}) {
		t.Errorf("first round %+v", ns)
	}
	end := res.Jobs[0].Finish
	hours := (end + end - 60) / 3600
	if s := res.Summary; math.Abs(s.NodeHours-hours) > 1e-9 || math.Abs(s.Cost-3*hours) > 1e-9 {
		t.Errorf("node-hours %v cost %v, want %v and %v", s.NodeHours, s.Cost, hours, 3*hours)
	}
}

// Releasing a node takes the GPUs of the job on it; the job is placed
// again on what is left, and billing of the node stops at once.
func TestReleasedNodePreemptsItsJob(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	cfg.Elastic = &Elastic{Autoscaler: script(func(now float64) int {
		if now < 300 {
			return 2
		}
		return 1
	}), MinNodes: 1, MaxNodes: 2}
	pol := &wholeCluster{seen: map[float64]int{}}
	res, err := Run(cfg, longSet(), bigToy(), pol)
	if err != nil {
		t.Fatal(err)
	}
	if pol.seen[240] != 2 || pol.seen[300] != 1 {
		t.Errorf("nodes offered %v", pol.seen)
	}
	if res.Jobs[0].Restarts != 1 {
		t.Errorf("restarts %d, want 1 (moved to the remaining node)", res.Jobs[0].Restarts)
	}
	end := res.Jobs[0].Finish
	if want := (2*300 + end - 300) / 3600; math.Abs(res.Summary.NodeHours-want) > 1e-9 || res.Summary.Cost != 0 {
		t.Errorf("node-hours %v, want %v; cost %v", res.Summary.NodeHours, want, res.Summary.Cost)
	}
}

// Whatever the autoscaler asks for, the cluster stays in [min, max].
func TestAutoscalerTargetClamped(t *testing.T) {
	for _, ask := range []int{-5, 0, 100} {
		cfg := DefaultConfig()
		cfg.Cluster = policies.Cluster{Nodes: 2, GPUsPerNode: 4}
		cfg.Elastic = &Elastic{Autoscaler: script(func(float64) int { return ask }), MinNodes: 2, MaxNodes: 3, ProvisionDelay: 30}
		res, err := Run(cfg, longSet(), bigToy(), &wholeCluster{seen: map[float64]int{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, ns := range res.NodeStats {
			if n := ns.Ready + ns.Provisioning; n < 2 || n > 3 {
				t.Errorf("asked %d: %+v", ask, ns)
			}
		}
	}
}

func TestBadElasticSettings(t *testing.T) {
	auto := script(func(float64) int { return 1 })
	for _, tc := range []struct {
		el   Elastic
		want string
	}{
		{Elastic{Autoscaler: auto, MinNodes: 3, MaxNodes: 2}, "maximum node count 2 is below the minimum 3"},
		{Elastic{Autoscaler: auto, MinNodes: 1, MaxNodes: 2, ProvisionDelay: -1}, "provisioning delay must be non-negative"},
		{Elastic{Autoscaler: auto, MinNodes: 1, MaxNodes: 2, NodePrice: -1}, "node price must be non-negative"},
		{Elastic{Autoscaler: auto, MinNodes: 3, MaxNodes: 4}, "initial node count 2 is outside [3, 4]"},
		{Elastic{MinNodes: 1, MaxNodes: 2}, "without an autoscaler"},
	} {
		cfg := smallConfig()
		el := tc.el
		cfg.Elastic = &el
		_, err := Run(cfg, longSet(), bigToy(), fifo.New())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.el, err, tc.want)
		}
	}
}

// A closed loop of two: never more than two jobs active, and each later
// job is submitted the moment an earlier one finishes.
func TestClosedLoopSubmitsOnFinish(t *testing.T) {
	var jobs []traces.Job
	for i := 0; i < 5; i++ {
		jobs = append(jobs, traces.Job{Name: "toy-" + string(rune('a'+i)), App: "toy", Replicas: 1, Batch: 32})
	}
	cfg := smallConfig()
	cfg.ClosedLoop = 2
	res, err := Run(cfg, fakeSet(), fakeWorkload(jobs...), fifo.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.RoundStats {
		if r.Active > 2 {
			t.Errorf("t=%v: %d jobs active", r.Time, r.Active)
		}
	}
	finishes := map[float64]bool{}
	for _, j := range res.Jobs[:2] {
		if j.Submit != 0 {
			t.Errorf("%s submitted at %v", j.Name, j.Submit)
		}
	}
	for i, j := range res.Jobs {
		if i >= 2 && !finishes[j.Submit] {
			t.Errorf("%s submitted at %v, no job finished then (finishes %v)", j.Name, j.Submit, finishes)
		}
		finishes[j.Finish] = true
	}
	// Identical jobs two at a time: the makespan is three job lengths.
	one := res.Jobs[0].JCT
	if math.Abs(res.Summary.Makespan-(res.Jobs[0].Finish+2*(one-60))) > 60 {
		t.Errorf("makespan %v with jobs of %v s", res.Summary.Makespan, one)
	}
}
