package sim

import (
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// fakeTruth is a closed-form application: step = a + b·m + sync, sync =
// c·(nodes>1) + d·(k>1), constant gradient statistics, every epoch the same
// amount of progress.
type fakeTruth struct {
	a, b, c, d float64
	grad       models.GradStats
	perEpoch   float64
}

func (f fakeTruth) Step(placement []int, local float64) (float64, float64) {
	k, n := 0, 0
	for _, v := range placement {
		if v > 0 {
			k += v
			n++
		}
	}
	sync := 0.0
	if n > 1 {
		sync += f.c
	}
	if k > 1 {
		sync += f.d
	}
	return f.a + f.b*local + sync, sync
}

func (f fakeTruth) Grad(float64, int) models.GradStats { return f.grad }
func (f fakeTruth) Progress(e int) float64             { return float64(e) * f.perEpoch }
func (f fakeTruth) Iterations(batch float64, e int) float64 {
	return float64(e+1) * f.perEpoch / f.grad.Gain(32, batch)
}

func fakeSet() *profiles.Set {
	app := &profiles.App{
		Name:   "toy",
		Limits: models.Limits{InitBatch: 32, MaxBatch: 1024, MinLocal: 8, MaxLocal: 128},
		Epochs: 3,
		Truth:  fakeTruth{a: 0.05, b: 0.001, c: 0.04, d: 0.01, grad: models.GradStats{Sqr: 1, Var: 10}, perEpoch: 1000},
	}
	return &profiles.Set{Source: "fake", Apps: map[string]*profiles.App{"toy": app}}
}

func fakeWorkload(jobs ...traces.Job) *traces.Workload {
	return &traces.Workload{Source: "test", Jobs: jobs}
}

// overAllocator puts every job on node 0 with all it asked for, ignoring
// capacity: a buggy policy the engine must catch.
type overAllocator struct{}

func (overAllocator) Name() string            { return "broken" }
func (overAllocator) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }
func (overAllocator) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i, j := range jobs {
		a := make([]int, c.Nodes)
		a[0] = j.Request.GPUs
		d.Alloc[i] = a
	}
	return d
}
