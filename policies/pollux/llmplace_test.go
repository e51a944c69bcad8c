package pollux

import (
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/models/llm"
	"github.com/polluxsim/polluxsim/policies"
)

// TestLLMPlacementKeepsTensorGroups: over random rounds on clusters of
// 8-GPU nodes, one tier or racks, no LLM job (NodeUnit 8) that Pollux
// allocates K GPUs has a node share that splits a tensor group of any
// degree K allows: models/llm lays out t = TensorUnit(K) (the largest)
// with PP = 1 and D = K/t in both layouts, which it refuses when a group
// would span nodes. Each allocation is at least the job's floor, the
// nodes' capacity holds, and with interference avoidance no node holds
// two multi-node jobs. Decisions are fed back as the next round's
// allocations, so kept and moved jobs both occur.
func TestLLMPlacementKeepsTensorGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 2))
	checked, split := 0, 0
	for inst := range 40 {
		nodes := 2 + rng.IntN(11)
		c := policies.Cluster{Nodes: nodes, GPUsPerNode: 8}
		if rng.IntN(2) == 0 && nodes%2 == 0 {
			c.Racks, c.Oversubscription = 2, 4
		}
		opt := DefaultOptions()
		opt.Seed = uint64(inst)
		opt.NoInterferenceAvoidance = rng.IntN(3) == 0
		p := New(opt)
		jobs := testJobs(2+rng.IntN(12), nodes, rng.Uint64())
		free := make([]int, nodes)
		for n := range free {
			free[n] = 8
		}
		for i := range jobs {
			// Half the jobs start on a few nodes with arbitrary shares
			// (as a policy that ignores tensor groups leaves them).
			jobs[i].Alloc = nil
			if rng.IntN(2) == 0 {
				a := make([]int, nodes)
				for range 1 + rng.IntN(3) {
					n := rng.IntN(nodes)
					v := rng.IntN(free[n] + 1)
					a[n] += v
					free[n] -= v
				}
				if policies.Sum(a) > 0 {
					jobs[i].Alloc = a
				}
			}
			jobs[i].MaxSeenGPUs = max(1+rng.IntN(32), policies.Sum(jobs[i].Alloc))
			if rng.IntN(3) > 0 {
				jobs[i].NodeUnit = 8
				jobs[i].MinGPUs = []int{0, 1, 3, 8, 15}[rng.IntN(5)]
			}
		}
		for round := range 6 {
			dec := p.Schedule(float64(60*round), c, jobs)
			used := make([]int, nodes)
			multi := make([]int, nodes)
			for i, a := range dec.Alloc {
				k := policies.Sum(a)
				for n, v := range a {
					used[n] += v
					if v > 0 && policies.NodesUsed(a) > 1 {
						multi[n]++
					}
				}
				if jobs[i].NodeUnit == 0 || k == 0 {
					continue
				}
				checked++
				if k < jobs[i].MinGPUs {
					t.Errorf("instance %d round %d: job %s on %d GPUs, below its floor %d", inst, round, jobs[i].Name, k, jobs[i].MinGPUs)
				}
				u := jobs[i].TensorUnit(k)
				par := llm.Parallelism{TP: u, PP: 1, DP: k / u}
				for _, l := range []llm.Layout{llm.ReplicasInNodes, llm.StagesAcrossNodes} {
					if _, err := l.Nodes(llm.AllocationOf(a), llm.Topology{}, par); err != nil {
						split++
						t.Errorf("instance %d round %d: job %s on %v: %v", inst, round, jobs[i].Name, a, err)
					}
				}
			}
			for n := range used {
				if used[n] > 8 || !opt.NoInterferenceAvoidance && multi[n] > 1 {
					t.Fatalf("instance %d round %d: node %d holds %d GPUs of %d multi-node jobs", inst, round, n, used[n], multi[n])
				}
			}
			for i := range jobs {
				jobs[i].Alloc = dec.Alloc[i]
				jobs[i].Age += 60
				if k := policies.Sum(dec.Alloc[i]); k > jobs[i].MaxSeenGPUs {
					jobs[i].MaxSeenGPUs = k
				}
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d LLM allocations checked", checked)
	}
	t.Logf("%d LLM allocations checked, %d split a tensor group", checked, split)
}
