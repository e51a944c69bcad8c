package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// typedSet is fakeSet with T4 tables and A100 tables twice as fast, and a
// second application ("slow") with T4 tables only.
func typedSet() *profiles.Set {
	set := fakeSet()
	t4 := set.Apps["toy"]
	a100 := *t4
	a100.Type = "a100"
	a100.Truth = fakeTruth{a: 0.025, b: 0.0005, c: 0.04, d: 0.01, grad: models.GradStats{Sqr: 1, Var: 10}, perEpoch: 1000}
	t4.ByType = map[string]*profiles.App{"a100": &a100}
	slow := *t4
	slow.Name, slow.ByType = "slow", nil
	set.Apps["slow"] = &slow
	return set
}

// onType puts each job on exactly its request, on the first nodes of the
// type named by the job's name prefix ("a100-…" or "t4-…"), or, with
// spread, one GPU on each node.
type onType struct{ spread bool }

func (onType) Name() string            { return "on-type" }
func (onType) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }
func (p onType) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	for i, j := range jobs {
		if p.spread {
			d.Alloc[i] = make([]int, c.Nodes)
			for n := range d.Alloc[i] {
				d.Alloc[i][n] = 1
			}
			continue
		}
		sub := make([]int, c.Nodes)
		for n := range sub {
			if strings.HasPrefix(j.Name, c.NodeType(n)+"-") {
				sub[n] = free[n]
			}
		}
		a := policies.PlaceMostFree(sub, j.Request.GPUs)
		for n, v := range a {
			free[n] -= v
		}
		d.Alloc[i] = a
	}
	return d
}

func TestTypedClusterRunsEachJobOnItsTypesTables(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "t4", Nodes: 1, GPUsPerNode: 4, Price: 1}, policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8, Price: 3})
	w := fakeWorkload(
		traces.Job{Name: "t4-0", App: "toy", Replicas: 2, Batch: 64},
		traces.Job{Name: "a100-1", App: "toy", Replicas: 2, Batch: 64},
	)
	res, err := Run(cfg, typedSet(), w, onType{})
	if err != nil {
		t.Fatal(err)
	}
	// Same job, same GPUs: twice as fast compute on the A100.
	t4, a100 := res.Jobs[0], res.Jobs[1]
	wait := cfg.Interval + cfg.RestartDelay // first round, then the restart
	ratio := (t4.JCT - wait) / (a100.JCT - wait)
	if !(ratio > 1.5) {
		t.Errorf("T4 JCT %v, A100 JCT %v: the A100 tables should make the job faster", t4.JCT, a100.JCT)
	}
	s := res.Summary
	if math.Abs(s.GPUHoursByType["t4"]-t4.GPUSeconds/3600) > 1e-9 || math.Abs(s.GPUHoursByType["a100"]-a100.GPUSeconds/3600) > 1e-9 {
		t.Errorf("GPU-hours by type %v, jobs' %v and %v", s.GPUHoursByType, t4.GPUSeconds/3600, a100.GPUSeconds/3600)
	}
	if want := s.GPUHoursByType["t4"]*1 + s.GPUHoursByType["a100"]*3; math.Abs(s.Cost-want) > 1e-9 {
		t.Errorf("cost %v, want %v", s.Cost, want)
	}
}

func TestTypedClusterRejectsBadAllocations(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cluster = policies.NewCluster(policies.Pool{Type: "t4", Nodes: 1, GPUsPerNode: 4}, policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8})
	_, err := Run(cfg, typedSet(), fakeWorkload(traces.Job{Name: "x", App: "toy", Replicas: 2, Batch: 64}), onType{spread: true})
	if err == nil || !strings.Contains(err.Error(), "more than one type") {
		t.Errorf("spanning types: got %v", err)
	}
	_, err = Run(cfg, typedSet(), fakeWorkload(traces.Job{Name: "a100-x", App: "slow", Replicas: 2, Batch: 64}, traces.Job{Name: "a100-y", App: "toy", Replicas: 2, Batch: 64}), onType{})
	if err == nil || !strings.Contains(err.Error(), "no measured tables") {
		t.Errorf("type without tables: got %v", err)
	}
	_, err = Run(cfg, typedSet(), fakeWorkload(traces.Job{Name: "t4-x", App: "slow", Replicas: 5, Batch: 64}, traces.Job{Name: "a100-y", App: "toy", Replicas: 2, Batch: 64}), onType{})
	if err == nil || !strings.Contains(err.Error(), "at most 4 of one type") {
		t.Errorf("request beyond its types: got %v", err)
	}
	cfg.Cluster.Pools[0].Nodes = 0
	if _, err = Run(cfg, typedSet(), fakeWorkload(traces.Job{Name: "t4-x", App: "toy", Replicas: 1, Batch: 64}), onType{}); err == nil {
		t.Error("a pool without nodes: no error")
	}
}
