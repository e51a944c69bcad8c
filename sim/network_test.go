package sim

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// rackTruth is fakeTruth whose synchronisation runs O times slower when a
// placement crosses racks (all of it crosses the spine at 1/O of the
// NICs' bandwidth), and which records the networks it is asked about.
type rackTruth struct {
	fakeTruth
	mu   *sync.Mutex
	seen *[]profiles.Network
}

var _ profiles.NetworkTruth = rackTruth{}

func (r rackTruth) StepAcross(placement []int, n profiles.Network, local float64) (float64, float64) {
	r.mu.Lock()
	*r.seen = append(*r.seen, profiles.Network{Racks: slices.Clone(n.Racks), Oversub: n.Oversub})
	r.mu.Unlock()
	step, sync := r.Step(placement, local)
	return step + (n.Oversub-1)*sync, n.Oversub * sync
}

// onNodes runs every job on its request, GPUs spread evenly over nodes.
type onNodes []int

func (onNodes) Name() string            { return "on-nodes" }
func (onNodes) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }
func (p onNodes) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i, j := range jobs {
		a := make([]int, c.Nodes)
		for _, n := range p {
			a[n] = j.Request.GPUs / len(p)
		}
		d.Alloc[i] = a
	}
	return d
}

// TestRacksSlowCrossingJobs: the engine tells the step model the rack of
// each node a job holds, and only when the job crosses racks; a job whose
// synchronisation all crosses an O:1 spine then runs its steps
// (O − 1)·sync longer, and its run time grows by exactly the ratio of the
// two iteration times. A job inside one rack runs as on one tier, to the
// bit.
func TestRacksSlowCrossingJobs(t *testing.T) {
	const o = 3.0
	var mu sync.Mutex
	var seen []profiles.Network
	set := fakeSet()
	ft := set.Apps["toy"].Truth.(fakeTruth)
	set.Apps["toy"].Truth = rackTruth{fakeTruth: ft, mu: &mu, seen: &seen}
	w := fakeWorkload(traces.Job{Name: "j", App: "toy", Replicas: 2, Batch: 64})
	run := func(racks int, nodes onNodes) *Result {
		t.Helper()
		cfg := DefaultConfig()
		cfg.Cluster = policies.Cluster{Nodes: 4, GPUsPerNode: 4}
		if racks > 0 {
			cfg.Cluster.Racks, cfg.Cluster.Oversubscription = racks, o
		}
		res, err := Run(cfg, set, w, nodes)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	oneTier := run(0, onNodes{1, 2})
	inRack := run(2, onNodes{2, 3})
	if len(seen) != 0 {
		t.Fatalf("the step model was asked about racks %v for jobs on one tier or one rack", seen)
	}
	if a, b := oneTier.Jobs[0].Finish, inRack.Jobs[0].Finish; a != b {
		t.Errorf("a job inside one rack finishes at %v, on one tier at %v: want the same", b, a)
	}
	across := run(2, onNodes{1, 2})
	if len(seen) == 0 || !slices.Equal(seen[0].Racks, []int{0, 1}) || seen[0].Oversub != o {
		t.Fatalf("the step model was told %v, want racks [0 1] under %v:1", seen, o)
	}
	// Batch 64 on 2 GPUs: 32 per GPU, no accumulation; two nodes.
	step, sync := ft.Step([]int{1, 1}, 32)
	want := (step + (o-1)*sync) / step
	start := oneTier.Jobs[0].FirstStart + DefaultConfig().RestartDelay
	got := (across.Jobs[0].Finish - start) / (oneTier.Jobs[0].Finish - start)
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("crossing racks: run time ×%v, want (step + (O−1)·sync)/step = %v", got, want)
	}
}

// TestRacksRefused: racks the engine cannot keep are refused in one line
// naming the flag.
func TestRacksRefused(t *testing.T) {
	w := fakeWorkload(traces.Job{Name: "j", App: "toy", Replicas: 2, Batch: 64})
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Cluster.Racks, c.Cluster.Oversubscription = 3, 2 }, "racks=3 must divide the cluster's 4 nodes"},
		{func(c *Config) { c.Cluster.Racks, c.Cluster.Oversubscription = 2, math.NaN() }, "oversub=NaN"},
		{func(c *Config) { c.Cluster.Racks, c.Cluster.Oversubscription = 2, 0.5 }, "oversub=0.5"},
		{func(c *Config) { c.Cluster.Oversubscription = 2 }, "needs racks"},
		{func(c *Config) {
			c.Cluster.Racks, c.Cluster.Oversubscription = 2, 2
			c.Failures = &faults.Model{Spares: 1, Repair: faults.Dist{Kind: "fixed", Mean: 1}, Checkpoint: faults.Checkpoint{Mode: "fixed", Interval: 600}}
		}, "spares"},
	} {
		cfg := DefaultConfig()
		cfg.Cluster = policies.Cluster{Nodes: 4, GPUsPerNode: 4}
		c.edit(&cfg)
		_, err := Run(cfg, fakeSet(), w, onNodes{0})
		if err == nil || !strings.Contains(err.Error(), "--cluster") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line naming --cluster and %q", cfg.Cluster, err, c.want)
		}
	}
}
