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
//
// On a cluster of several GPU types a job holds GPUs of one type (OneType
// projects each row onto one after the search), so a waiting job's seed
// row lies on the nodes of one type: of the types the job offers
// (Job.Offers), the one with the most free GPUs (ties: the type of the
// lowest node, as policies.PlaceJob chooses), else the next in that order,
// the first where its floor packs (packFloor on that type's nodes alone).
// The floor a policy sees for a waiting job (Job.MinGPUs) is its largest
// over the types it is offered, those whose GPUs hold it, so a row of at
// least that many GPUs of any offered type is one the job runs on: the
// engine takes none of it back.

// floorSeed returns the seed state for jobs (in priority order, pr's), or
// nil when no waiting job with a floor can be seeded.
func (pr *problem) floorSeed(c policies.Cluster, jobs []policies.Job, s *searcher) *state {
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
		if r := pr.seedRow(c, &jobs[i], i, free, multi); r != nil {
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

// seedRow is job j's (row i's) seed row on free: packFloor's, on a
// cluster of several GPU types on the nodes of one type the job offers,
// tried in order of their free GPUs (most first, ties to the type of the
// lowest node); nil when its floor packs on none.
func (pr *problem) seedRow(c policies.Cluster, j *policies.Job, i int, free []int, multi []bool) []entry {
	if !c.Heterogeneous() {
		return pr.packFloor(i, free, multi)
	}
	var types []string // offered, in the order of their lowest node
	freeOf := map[string]int{}
	for n, f := range free {
		t := c.NodeType(n)
		if !j.Offers(t) {
			continue
		}
		if _, ok := freeOf[t]; !ok {
			types = append(types, t)
		}
		freeOf[t] += f
	}
	slices.SortStableFunc(types, func(a, b string) int { return cmp.Compare(freeOf[b], freeOf[a]) })
	masked := make([]int, len(free))
	for _, t := range types {
		for n, f := range free {
			masked[n] = 0
			if c.NodeType(n) == t {
				masked[n] = f
			}
		}
		if r := pr.packFloor(i, masked, multi); r != nil {
			return r
		}
	}
	return nil
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
