package pollux

import (
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// TestCapsOfLLMJobs: the reference's caps (64 GPUs, 16 nodes) bind a job
// without a memory floor as before; a job with one (an LLM job) is never
// held below its request nor its floor, on nodes enough to hold the
// request packed; the batch limits and the cluster still bind.
func TestCapsOfLLMJobs(t *testing.T) {
	opt := DefaultOptions() // 64 GPUs, 16 nodes
	lim := models.Limits{InitBatch: 8, MaxBatch: 8192, MinLocal: 1, MaxLocal: 16}
	for _, tc := range []struct {
		name              string
		floor, req, seen  int
		maxGPUsPerJob     int
		total, capacity   int
		usable, max, node int
	}{
		{"reference job asking 256", 0, 256, 128, 64, 8000, 8, 64, 64, 16},
		{"LLM job asking 256", 15, 256, 128, 64, 8000, 8, 256, 256, 32},
		{"LLM job asking 256, seen 64", 15, 256, 64, 64, 8000, 8, 256, 128, 32},
		{"LLM job asking 1024", 70, 1024, 0, 64, 8000, 8, 1024, 70, 128},
		{"LLM job asking 8", 1, 8, 4, 64, 8000, 8, 64, 8, 16},
		{"LLM job on a small cluster", 15, 256, 128, 64, 128, 8, 128, 128, 32},
		{"floor above the cap", 15, 8, 0, 8, 8000, 8, 15, 15, 16},
		{"no GPU cap", 15, 256, 200, 0, 8000, 8, 8000, 400, 32},
		{"4-GPU nodes", 15, 256, 128, 64, 8000, 4, 256, 256, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opt
			o.MaxGPUsPerJob = tc.maxGPUsPerJob
			j := policies.Job{MinGPUs: tc.floor, Request: policies.Request{GPUs: tc.req}, MaxSeenGPUs: tc.seen, Limits: lim}
			if got := usableGPUs(&j, o, tc.total); got != tc.usable {
				t.Errorf("usableGPUs = %d, want %d", got, tc.usable)
			}
			if got := maxGPUs(&j, o, tc.total); got != tc.max {
				t.Errorf("maxGPUs = %d, want %d", got, tc.max)
			}
			if got := maxNodes(&j, o, tc.capacity); got != tc.node {
				t.Errorf("maxNodes = %d, want %d", got, tc.node)
			}
		})
	}
}

// TestLLMJobGrowsPastReferenceCap: alone on 64 × 8 GPUs, a job whose
// goodput keeps growing with its GPUs and that asks for 256 is grown past
// the reference's 64-GPU cap when it has a memory floor, up to its
// request, and held at 64 GPUs on at most 16 nodes when it has none.
func TestLLMJobGrowsPastReferenceCap(t *testing.T) {
	c := policies.Cluster{Nodes: 64, GPUsPerNode: 8}
	params := models.Params{AlphaC: 0.1, BetaC: 0.05, AlphaR: 0.01, BetaR: 0.001, AlphaN: 0.01, BetaN: 0.0001, Gamma: 1.5}
	for _, floor := range []int{0, 15} {
		j := policies.Job{
			Name: "big", App: "toy", Age: 3600, MinGPUs: floor,
			Request:     policies.Request{GPUs: 256, Batch: 4096},
			Limits:      models.Limits{InitBatch: 8, MaxBatch: 8192, MinLocal: 1, MaxLocal: 16},
			MaxSeenGPUs: 128, Params: &params,
			Grad: models.GradStats{Sqr: 1, Var: 1e5},
		}
		p := New(DefaultOptions())
		k, n := 0, 0
		for round := 0; round < 20; round++ {
			dec := p.Schedule(float64(60*round), c, []policies.Job{j})
			k, n = policies.Sum(dec.Alloc[0]), 0
			for _, v := range dec.Alloc[0] {
				if v > 0 {
					n++
				}
			}
			if k > 0 {
				j.Alloc = dec.Alloc[0]
				j.MaxSeenGPUs = max(j.MaxSeenGPUs, k)
			}
			j.Age += 60
		}
		switch {
		case floor == 0 && (k > 64 || n > 16):
			t.Errorf("no floor: %d GPUs on %d nodes, want at most 64 on at most 16", k, n)
		case floor > 0 && (k <= 64 || k > 256 || n > 32):
			t.Errorf("floor %d: %d GPUs on %d nodes, want more than 64 and at most 256 on at most 32", floor, k, n)
		}
		t.Logf("floor %d: %d GPUs on %d nodes", floor, k, n)
	}
}
