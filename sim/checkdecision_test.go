package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// denseCheckDecision is checkDecision as a plain scan of every node of
// every allocation for each check: the reference the engine's check,
// which sums the node capacities over the nodes holding GPUs only, must
// agree with.
func denseCheckDecision(e *engine, active []*job, dec policies.Decision) error {
	c := e.cfg.Cluster
	if len(dec.Alloc) != len(active) {
		return fmt.Errorf("policy %s returned %d allocations for %d jobs at t=%v", e.policy.Name(), len(dec.Alloc), len(active), e.now)
	}
	used := make([]int, c.Nodes)
	for i, a := range dec.Alloc {
		if a == nil {
			continue
		}
		j := active[i]
		if len(a) != c.Nodes {
			return fmt.Errorf("policy %s gave job %s an allocation over %d nodes, the cluster has %d (t=%v)",
				e.policy.Name(), j.spec.Name, len(a), c.Nodes, e.now)
		}
		k := 0
		for n, v := range a {
			if v < 0 {
				return fmt.Errorf("policy %s gave job %s %d GPUs on node %d (t=%v)", e.policy.Name(), j.spec.Name, v, n, e.now)
			}
			k += v
		}
		if e.cfg.typed() && k > 0 {
			if err := e.checkTypedAlloc(j, c.AllocType(a)); err != nil {
				return err
			}
		}
		if e.traits.UserGPUs && k != 0 && k != j.spec.Replicas {
			return fmt.Errorf("policy %s gave job %s %d GPUs, it asked for exactly %d (t=%v)",
				e.policy.Name(), j.spec.Name, k, j.spec.Replicas, e.now)
		}
		for n, v := range a {
			used[n] += v
			if v > 0 && used[n] > c.NodeGPUs(n) {
				return fmt.Errorf("invariant violated: policy %s put %d GPUs on node %d, which has %d, when it gave job %s %d there (t=%v)",
					e.policy.Name(), used[n], n, c.NodeGPUs(n), j.spec.Name, v, e.now)
			}
		}
	}
	return nil
}

// TestCheckDecisionSparseEqualsDense: on random decisions (sparse rows,
// some over a node's capacity, a few negative, of the wrong length, of
// mixed GPU types or of a type the job has no tables for, off the
// request under a rigid policy) on clusters with and without pools, the
// engine's check returns exactly the dense reference's verdict, error
// text included, and leaves its per-node sums clear for the next round.
func TestCheckDecisionSparseEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 20))
	app := &profiles.App{Name: "toy", ByType: map[string]*profiles.App{"t4": {Name: "toy"}, "a100": {Name: "toy"}}}
	faults := 0
	for trial := 0; trial < 3000; trial++ {
		cfg := DefaultConfig()
		if trial%2 == 0 {
			cfg.Cluster = policies.Cluster{Nodes: 1 + rng.IntN(40), GPUsPerNode: 1 + rng.IntN(8)}
		} else {
			types := []string{"t4", "a100", "v100"}
			for range 1 + rng.IntN(3) {
				p := policies.Pool{Type: types[rng.IntN(len(types))], Nodes: 1 + rng.IntN(15), GPUsPerNode: 1 + rng.IntN(8)}
				cfg.Cluster.Pools = append(cfg.Cluster.Pools, p)
				cfg.Cluster.Nodes += p.Nodes
			}
		}
		e := &engine{cfg: cfg, policy: neverAllocator{}, traits: policies.Traits{UserGPUs: rng.IntN(2) == 0}}
		for round := 0; round < 3; round++ {
			N := cfg.Cluster.Nodes
			jobs := rng.IntN(8)
			active := make([]*job, jobs)
			dec := policies.Decision{Alloc: make([][]int, jobs)}
			for i := range active {
				active[i] = &job{spec: traces.Job{Name: fmt.Sprintf("j%d", i), Replicas: 1 + rng.IntN(8)}, app: app}
				if rng.IntN(5) == 0 {
					continue // nil: no GPUs
				}
				n := N
				if rng.IntN(60) == 0 {
					n = N + 1 - 2*rng.IntN(2)
				}
				a := make([]int, n)
				for k := rng.IntN(4); n > 0 && k > 0; k-- {
					a[rng.IntN(n)] += 1 + rng.IntN(4)
				}
				if n > 0 && rng.IntN(80) == 0 {
					a[rng.IntN(n)] = -1
				}
				dec.Alloc[i] = a
			}
			if rng.IntN(100) == 0 {
				dec.Alloc = dec.Alloc[:len(dec.Alloc)/2]
			}
			want := denseCheckDecision(e, active, dec)
			got := e.checkDecision(active, dec)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("trial %d round %d: checkDecision = %v, want %v (cluster %+v, decision %v)", trial, round, got, want, cfg.Cluster, dec.Alloc)
			}
			if want != nil {
				faults++
			}
			for n, u := range e.used {
				if u != 0 {
					t.Fatalf("trial %d round %d: node %d's sum left at %d after the check", trial, round, n, u)
				}
			}
		}
	}
	if faults < 1000 || faults > 8000 {
		t.Fatalf("%d of 9,000 random decisions were refused: the cases do not exercise both verdicts", faults)
	}
}
