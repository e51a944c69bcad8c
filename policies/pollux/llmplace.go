package pollux

import (
	"github.com/polluxsim/polluxsim/models/llm"
	"github.com/polluxsim/polluxsim/policies"
)

// LLM jobs' placement. The search decides how many GPUs each job gets, and
// for the six measured applications where: its rows are allocations. An
// LLM job (policies.Job.NodeUnit > 0) trains with tensor-parallel groups
// that must stay inside a node, so where its GPUs sit decides which
// tensor degrees it can use; the search's goodput model tells one node
// from several and nothing more. placeLLM therefore re-places every LLM
// job whose row the search changed, keeping its GPU count, with llm.Place:
// a multiple of the job's TensorUnit(K) on every node (every tensor degree
// of K stays open), on the fewest racks, then on the fewest nodes. A job
// that keeps its allocation keeps its nodes (a move is a restart).

// placeLLM re-places the LLM jobs of st (rows in jobs' priority order) on
// cluster c, in priority order, around every other row of st, and reports
// whether it moved any. The result is st rewritten in place (so that the
// population the next round starts from holds it), or a new state when st
// is the current allocation pr.base. A job whose GPU count no longer fits
// in whole units gets the most GPUs at or above its floor (Job.MinGPUs)
// that do, or none. Interference avoidance and the per-job node cap hold
// as in the search. It does nothing, at no cost, when no job has a
// NodeUnit.
func placeLLM(pr *problem, c policies.Cluster, jobs []policies.Job, st *state) (*state, bool) {
	var moved []int
	for i := range jobs {
		if r := st.row(i); jobs[i].NodeUnit > 0 && len(r) > 0 &&
			!(equalRows(r, pr.base.row(i)) && wholeUnits(r, jobs[i].TensorUnit(rowGPUs(r)))) {
			moved = append(moved, i)
		}
	}
	if len(moved) == 0 {
		return st, false
	}
	pl := llmPlacer{c: c, avoid: pr.avoid,
		topo:  llm.Topology{RackNodes: c.RackNodes(), Oversubscription: c.Oversubscription},
		free:  make([]int, pr.nNodes),
		multi: make([]bool, pr.nNodes)}
	for n := range pl.free {
		pl.free[n] = int(pr.caps[n])
	}
	rows := make([][]entry, pr.nJobs)
	k := 0
	for i := range rows {
		if k < len(moved) && moved[k] == i {
			k++
			continue
		}
		rows[i] = st.row(i)
		pl.take(rows[i])
	}
	for _, i := range moved {
		rows[i] = pl.place(&jobs[i], st.row(i), pr.minGPUs[i], pr.maxNodes[i])
		pl.take(rows[i])
	}
	var out state
	out.begin()
	for _, r := range rows {
		out.ents = append(out.ents, r...)
		out.endRow()
	}
	if st == &pr.base {
		return &out, true
	}
	st.copyFrom(&out)
	return st, true
}

// llmPlacer places LLM jobs on what the other jobs leave free.
type llmPlacer struct {
	c     policies.Cluster
	topo  llm.Topology
	avoid bool
	free  []int  // free GPUs per node
	multi []bool // nodes holding a multi-node job
}

// take marks row r's GPUs used.
func (pl *llmPlacer) take(r []entry) {
	for _, e := range r {
		pl.free[e.node] -= int(e.gpus)
		if len(r) > 1 {
			pl.multi[e.node] = true
		}
	}
}

// place is job j's new row for the search's row r: its GPUs (on the GPU
// type of most of them, as OneType keeps, on a cluster of several) placed
// by llm.Place, or the most GPUs down to its floor that can be, or none;
// on at most maxNodes nodes (0: no cap).
func (pl *llmPlacer) place(j *policies.Job, r []entry, floor, maxNodes int) []entry {
	k := rowGPUs(r)
	free := pl.free
	if pl.c.Heterogeneous() {
		one := OneType(pl.c, j, denseOf(r, len(pl.free)))
		t := pl.c.AllocType(one)
		if t == "" {
			return nil
		}
		k = policies.Sum(one)
		free = make([]int, len(pl.free))
		for n := range free {
			if pl.c.NodeType(n) == t {
				free[n] = pl.free[n]
			}
		}
	}
	// Nodes no other multi-node job holds, for a job on several nodes.
	clean := free
	if pl.avoid {
		clean = make([]int, len(free))
		for n, f := range free {
			if !pl.multi[n] {
				clean[n] = f
			}
		}
	}
	for ; k >= max(floor, 1); k-- {
		u := j.TensorUnit(k)
		if a, ok := pl.try(free, clean, k, u, maxNodes); ok {
			out := make([]entry, len(a))
			for x, s := range a {
				out[x] = entry{node: int32(s.Node), gpus: int32(s.GPUs)}
			}
			return out
		}
	}
	return nil
}

// try places k GPUs in multiples of u: on one node of free if one holds
// them, else on the nodes of clean within the node cap maxNodes (0: none).
func (pl *llmPlacer) try(free, clean []int, k, u, maxNodes int) (llm.Allocation, bool) {
	one, usable := false, 0
	for n := range free {
		one = one || free[n]/u*u >= k
		usable += clean[n] / u * u
	}
	f := clean
	switch {
	case one:
		f = free
	case usable < k:
		return nil, false
	}
	a, err := llm.Place(f, pl.topo, k, u)
	if err != nil || maxNodes > 0 && len(a) > maxNodes {
		return nil, false
	}
	return a, true
}

// wholeUnits reports whether every entry of r is a multiple of u.
func wholeUnits(r []entry, u int) bool {
	for _, e := range r {
		if int(e.gpus)%u != 0 {
			return false
		}
	}
	return true
}

// rowGPUs is the GPUs of row r.
func rowGPUs(r []entry) int {
	k, _ := rowStats(r)
	return k
}

// denseOf is row r as GPUs per node of a cluster of nodes nodes.
func denseOf(r []entry, nodes int) []int {
	out := make([]int, nodes)
	for _, e := range r {
		out[e.node] = int(e.gpus)
	}
	return out
}
