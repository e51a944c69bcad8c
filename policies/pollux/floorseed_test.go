package pollux

import (
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// TestFloorSeed on random rounds (2-16 nodes of 8 GPUs, jobs holding one
// GPU each, waiting jobs with floors of 2-40): the seed is feasible (the
// search may start from it), keeps every allocated job's row, gives each
// waiting job with a floor either nothing or at least its floor, and
// gives one to the first such job whenever its floor fits in what is
// free; a round without such a job has no seed.
func TestFloorSeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 4))
	seeded := 0
	for inst := 0; inst < 500; inst++ {
		c := policies.Cluster{Nodes: 2 + rng.IntN(15), GPUsPerNode: 8}
		jobs := testJobs(1+rng.IntN(10), c.Nodes, rng.Uint64())
		floors := 0
		for i := range jobs {
			if jobs[i].Alloc == nil && rng.IntN(2) == 0 {
				jobs[i].MinGPUs = 2 + rng.IntN(39)
				floors++
			}
		}
		opt := DefaultOptions()
		opt.NoInterferenceAvoidance = rng.IntN(2) == 0
		pr, sorted := sortedProblem(c, jobs, opt)
		seed := pr.floorSeed(c, sorted, &searcher{pr: pr})
		if floors == 0 {
			if seed != nil {
				t.Fatalf("instance %d: a seed without a waiting job with a floor", inst)
			}
			continue
		}
		if seed == nil {
			continue
		}
		seeded++
		if !pr.feasible(seed) {
			t.Fatalf("instance %d: infeasible seed %v", inst, seed)
		}
		first := true
		freeGPUs := c.TotalGPUs()
		for i := 0; i < pr.nJobs; i++ {
			freeGPUs -= rowGPUs(pr.base.row(i))
		}
		for i := 0; i < pr.nJobs; i++ {
			r, base := seed.row(i), pr.base.row(i)
			if len(base) > 0 || pr.minGPUs[i] <= 1 {
				if !equalRows(r, base) {
					t.Fatalf("instance %d: job %d moved: %v -> %v", inst, i, base, r)
				}
				continue
			}
			if k := rowGPUs(r); k > 0 && k < pr.minGPUs[i] {
				t.Fatalf("instance %d: job %d given %d GPUs, below its floor %d", inst, i, k, pr.minGPUs[i])
			}
			if first && pr.minGPUs[i] <= freeGPUs && pr.minGPUs[i] <= c.GPUsPerNode && rowGPUs(r) == 0 {
				t.Fatalf("instance %d: the first waiting job's floor %d fits a node, but it got nothing", inst, pr.minGPUs[i])
			}
			first = false
		}
	}
	if seeded < 100 {
		t.Errorf("only %d of 500 rounds seeded: the test shows little", seeded)
	}
}

// TestFloorSeedOneType on random rounds on clusters of two or three GPU
// types (1-5 nodes of 4 or 8 GPUs each), waiting jobs with floors of 2-24
// offering some of the types: each seeded row lies on the nodes of one
// type the job offers and holds at least its floor; the first such job is
// seeded whenever a node of a type it offers holds its floor, on the
// offered type with the most free GPUs when one of its nodes does. (The
// seed used to be nil on every cluster of several types, and a 70B job,
// worth nothing below 15 GPUs, waited for ever on a cluster of H100s and
// A100s.)
func TestFloorSeedOneType(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 5))
	names := []string{"h100", "a100-40gb", "t4"}
	seeded := 0
	for inst := 0; inst < 500; inst++ {
		var pools []policies.Pool
		for _, tp := range names[:2+rng.IntN(2)] {
			pools = append(pools, policies.Pool{Type: tp, Nodes: 1 + rng.IntN(5), GPUsPerNode: 4 << rng.IntN(2)})
		}
		rng.Shuffle(len(pools), func(a, b int) { pools[a], pools[b] = pools[b], pools[a] })
		c := policies.NewCluster(pools...)
		types := c.Types()
		jobs := testJobs(1+rng.IntN(8), c.Nodes, rng.Uint64())
		for i := range jobs {
			if jobs[i].Alloc == nil && rng.IntN(3) > 0 {
				jobs[i].MinGPUs = 2 + rng.IntN(23)
				for _, tp := range types {
					if rng.IntN(2) == 0 {
						jobs[i].Types = append(jobs[i].Types, tp)
					}
				}
			}
		}
		opt := DefaultOptions()
		opt.NoInterferenceAvoidance = rng.IntN(2) == 0
		pr, sorted := sortedProblem(c, jobs, opt)
		seed := pr.floorSeed(c, sorted, &searcher{pr: pr})
		if seed != nil {
			seeded++
			if !pr.feasible(seed) {
				t.Fatalf("instance %d: infeasible seed %v", inst, seed)
			}
		}
		free := make([]int, c.Nodes)
		for n := range free {
			free[n] = c.NodeGPUs(n)
		}
		for i := 0; i < pr.nJobs; i++ {
			for _, e := range pr.base.row(i) {
				free[e.node] -= int(e.gpus)
			}
		}
		first := true
		for i := 0; i < pr.nJobs; i++ {
			j := &sorted[i]
			base := pr.base.row(i)
			if len(base) > 0 || j.MinGPUs <= 1 {
				if seed != nil && !equalRows(seed.row(i), base) {
					t.Fatalf("instance %d: job %d moved: %v -> %v", inst, i, base, seed.row(i))
				}
				continue
			}
			var r []entry
			if seed != nil {
				r = seed.row(i)
			}
			nodes := make([]int, len(r))
			for x, e := range r {
				nodes[x] = int(e.node)
			}
			on := c.NodesType(nodes)
			if len(r) > 0 && (on == "" || !j.Offers(on) || rowGPUs(r) < j.MinGPUs) {
				t.Fatalf("instance %d: job %d (floor %d, types %v) seeded %v on %q: not one offered type holding its floor", inst, i, j.MinGPUs, j.Types, r, on)
			}
			if first {
				// The offered type with the most free GPUs (ties: the
				// lowest node's), and whether a node of any offered type,
				// and of that one, holds the floor.
				best, fits, bestFits := "", false, false
				freeOf := map[string]int{}
				for n, f := range free {
					freeOf[c.NodeType(n)] += f
				}
				for n, f := range free {
					tp := c.NodeType(n)
					if !j.Offers(tp) {
						continue
					}
					fits = fits || f >= j.MinGPUs
					if best == "" || freeOf[tp] > freeOf[best] {
						best = tp
					}
				}
				for n, f := range free {
					bestFits = bestFits || c.NodeType(n) == best && f >= j.MinGPUs
				}
				if fits && len(r) == 0 {
					t.Fatalf("instance %d: the first waiting job's floor %d fits a node of a type it offers (%v), but it got nothing", inst, j.MinGPUs, j.Types)
				}
				if bestFits && on != best {
					t.Fatalf("instance %d: the first waiting job was seeded on %q, not on %q, the offered type with the most free GPUs (free %v)", inst, on, best, free)
				}
			}
			first = false
		}
	}
	if seeded < 200 {
		t.Errorf("only %d of 500 rounds seeded: the test shows little", seeded)
	}
}
