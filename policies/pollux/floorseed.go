package pollux

import (
	"cmp"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// A job with a memory floor (Job.MinGPUs > 1: an LLM job) is worth nothing
// below it, so the search has no slope to climb from a waiting job's empty
// row: the local search moves one GPU at a time, and a mutation raises at
// most a few nodes at once, so a floor above about 33 GPUs was never
// reached and the job waited on an idle cluster for ever. floorSeed is a
// starting state the search is given beside the current allocation: every
// job keeps its allocation, and each waiting job with a floor, in priority
// order, gets up to its GPU cap (at least its floor) on the GPUs the
// others leave free, whole free nodes first, within its node cap and
// interference avoidance. The search then keeps it or does better; a
// round without such a job gets no seed (and the random stream of the
// reference workloads is unchanged).

// floorSeed returns the seed state, or nil when no waiting job with a
// floor can be seeded (or the cluster has several GPU types: a row holds
// one type, which the seed does not choose).
func (pr *problem) floorSeed(c policies.Cluster, s *searcher) *state {
	if c.Heterogeneous() {
		return nil
	}
	var waiting []int
	for i := 0; i < pr.nJobs; i++ {
		if pr.minGPUs[i] > 1 && len(pr.base.row(i)) == 0 {
			waiting = append(waiting, i)
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	free := make([]int, pr.nNodes)
	multi := make([]bool, pr.nNodes)
	for n := range free {
		free[n] = int(pr.caps[n])
	}
	for i := 0; i < pr.nJobs; i++ {
		r := pr.base.row(i)
		for _, e := range r {
			free[e.node] -= int(e.gpus)
			multi[e.node] = multi[e.node] || len(r) > 1
		}
	}
	rows := make([][]entry, pr.nJobs)
	seeded := false
	for _, i := range waiting {
		if r := pr.packFloor(i, free, multi); r != nil {
			rows[i], seeded = r, true
			for _, e := range r {
				free[e.node] -= int(e.gpus)
				multi[e.node] = multi[e.node] || len(r) > 1
			}
		}
	}
	if !seeded {
		return nil
	}
	st := s.get()
	st.begin()
	for i := 0; i < pr.nJobs; i++ {
		if rows[i] != nil {
			st.ents = append(st.ents, rows[i]...)
		} else {
			st.ents = append(st.ents, pr.base.row(i)...)
		}
		st.endRow()
	}
	return st
}

// packFloor is job i's row of up to its GPU cap, at least its floor, on
// free: on one node if one holds its floor, else on the nodes with the
// most free GPUs (no other multi-node job's, under interference
// avoidance), at most its node cap; nil when the floor does not fit.
func (pr *problem) packFloor(i int, free []int, multi []bool) []entry {
	floor, want := pr.minGPUs[i], max(pr.maxGPUs[i], pr.minGPUs[i])
	order := make([]int, 0, len(free))
	for n, f := range free {
		if f > 0 {
			order = append(order, n)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(free[b], free[a]) })
	if len(order) > 0 && free[order[0]] >= floor {
		k := min(free[order[0]], want)
		return []entry{{node: int32(order[0]), gpus: int32(k)}}
	}
	var r []entry
	k := 0
	for _, n := range order {
		if k >= want || (pr.maxNodes[i] > 0 && len(r) >= pr.maxNodes[i]) {
			break
		}
		if pr.avoid && multi[n] {
			continue
		}
		take := min(free[n], want-k)
		r = append(r, entry{node: int32(n), gpus: int32(take)})
		k += take
	}
	if k < floor {
		return nil
	}
	slices.SortFunc(r, func(a, b entry) int { return cmp.Compare(a.node, b.node) })
	return r
}
