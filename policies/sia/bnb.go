package sia

import (
	"math"
	"slices"
	"sort"
)

// branchAndBound solves the reduced problem exactly. Its bound is the
// linear-programming relaxation, reached through its Lagrangian dual:
// with a price μ_t ≥ 0 per GPU of type t, every solution is worth at most
//
//	L(μ) = μ·C + Σ_j u_j,  u_j = max(0, max_o (v_o − μ_t(o)·k_o)),
//
// and min_μ L(μ) equals the relaxation's optimum (dual.go finds it by
// column generation). A solution's shortfall from L(μ) is the sum of its
// jobs' losses u_j − (v_o − μ·k_o) plus the price of the GPUs it leaves
// idle, so once a good solution is known (heuristic.go), only options whose
// loss is below the gap L(μ) − incumbent can appear in a better one
// (reduced-cost fixing). In Sia's rounds that leaves a few jobs with more
// than one candidate; a depth-first search over those, cutting a subtree
// when its bound cannot beat the incumbent, proves optimality. It returns
// the pick per reduced job, the number of search nodes and the gap: 0 when
// the pick is proven optimal; when the search stopped after maxNodes nodes
// (maxNodes > 0), the bound minus the pick's value.
func (r *reduced) branchAndBound(maxNodes int) ([]int, int, float64) {
	J := len(r.jobs)
	pick := make([]int, J)
	for i := range pick {
		pick[i] = -1
	}
	if J == 0 {
		return pick, 0, 0
	}
	s := newSearch(r)
	mu, upper := s.dual()
	incumbent, heur := s.heuristic(mu)
	copy(pick, heur)
	// When every value is a multiple of a grain (Sia's values are rounded
	// to 0.01), an improvement is worth at least the grain: a subtree must
	// reach the incumbent plus the grain.
	margin := eps
	if g := r.grain(); g > 0 {
		margin = g - eps
	}
	if upper < incumbent+margin {
		return pick, 1, 0
	}
	incumbent = s.polish(mu, pick, upper, margin)
	if upper < incumbent+margin {
		return pick, 1, 0
	}
	return s.enumerate(mu, upper, incumbent, margin, pick, maxNodes)
}

// search holds the reduced problem for the branch and bound: per job its
// undominated options (an option is dominated by one of the same type
// with no more GPUs and at least its value).
type search struct {
	r    *reduced
	opts [][]int // per job: indices into r.opts[i]
}

func newSearch(r *reduced) *search {
	s := &search{r: r, opts: make([][]int, len(r.jobs))}
	for i, ops := range r.opts {
		idx := make([]int, len(ops))
		for o := range idx {
			idx[o] = o
		}
		// ops are sorted by decreasing value: an option is kept when no
		// earlier one of its type takes no more GPUs.
		fewest := map[int]int{}
		for _, o := range idx {
			op := ops[o]
			if k, ok := fewest[op.Type]; ok && k <= op.GPUs {
				continue
			}
			fewest[op.Type] = op.GPUs
			s.opts[i] = append(s.opts[i], o)
		}
	}
	return s
}

// reducedProfit is v_o − μ·k_o.
func reducedProfit(op Option, mu []float64) float64 {
	return op.Value - mu[op.Type]*float64(op.GPUs)
}

// candidate is one option a job may still take in a better solution.
type candidate struct {
	o    int // index into r.opts[i], -1: none
	typ  int
	gpus int
	val  float64
	loss float64
}

// enumerate runs the depth-first search below the gap. pick holds the
// incumbent on entry and the optimum on return, or, when the search
// stopped after maxNodes nodes (maxNodes > 0), the best pick found, with
// upper minus its value as the returned gap.
func (s *search) enumerate(mu []float64, upper, incumbent, margin float64, pick []int, maxNodes int) ([]int, int, float64) {
	r := s.r
	T := len(r.capacity)
	gap := upper - incumbent - margin + 1e-9
	rem := make([]int, T)
	copy(rem, r.capacity)
	val := 0.0
	cur := make([]int, len(r.jobs))
	var free []int           // jobs with more than one candidate
	cands := [][]candidate{} // their candidates, least loss first
	for i, ops := range r.opts {
		u := 0.0
		for _, o := range s.opts[i] {
			u = math.Max(u, reducedProfit(ops[o], mu))
		}
		var cs []candidate
		if u <= gap {
			cs = append(cs, candidate{o: -1, typ: -1, loss: u})
		}
		for _, o := range s.opts[i] {
			if l := u - reducedProfit(ops[o], mu); l <= gap {
				cs = append(cs, candidate{o: o, typ: ops[o].Type, gpus: ops[o].GPUs, val: ops[o].Value, loss: l})
			}
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].loss < cs[b].loss })
		switch len(cs) {
		case 0:
			return pick, 1, 0 // cannot happen: the best option has loss 0
		case 1:
			cur[i] = cs[0].o
			if cs[0].o >= 0 {
				rem[cs[0].typ] -= cs[0].gpus
				val += cs[0].val
			}
		default:
			cur[i] = -1
			free = append(free, i)
			cands = append(cands, cs)
		}
	}
	for _, c := range rem {
		if c < 0 {
			return pick, 1, 0 // the forced options overflow: no better solution
		}
	}
	// Larger decisions first; identical jobs next to each other, where
	// they take candidates in order (they are interchangeable).
	order := make([]int, len(free))
	for d := range order {
		order[d] = d
	}
	most := func(cs []candidate) int {
		m := 0
		for _, c := range cs {
			m = max(m, c.gpus)
		}
		return m
	}
	same := func(a, b []candidate) bool {
		return slices.EqualFunc(a, b, func(x, y candidate) bool {
			return x.typ == y.typ && x.gpus == y.gpus && x.val == y.val && x.loss == y.loss
		})
	}
	sort.SliceStable(order, func(a, b int) bool { return most(cands[order[a]]) > most(cands[order[b]]) })
	for d := 1; d < len(order); d++ {
		// Pull identical jobs forward behind their first twin.
		for e := d; e < len(order); e++ {
			if same(cands[order[e]], cands[order[d-1]]) {
				order[d], order[e] = order[e], order[d]
				break
			}
		}
	}
	D := len(order)
	twin := make([]bool, D)
	for d := 1; d < D; d++ {
		twin[d] = same(cands[order[d]], cands[order[d-1]])
	}
	// Suffix sums: the best reduced profit, the most and the fewest GPUs
	// per type the remaining jobs can take.
	sufU := make([]float64, D+1)
	sufMost := make([][]int, D+1)
	sufLeast := make([][]int, D+1)
	for d := D; d >= 0; d-- {
		sufMost[d], sufLeast[d] = make([]int, T), make([]int, T)
		if d == D {
			continue
		}
		copy(sufMost[d], sufMost[d+1])
		copy(sufLeast[d], sufLeast[d+1])
		cs := cands[order[d]]
		sufU[d] = sufU[d+1] + reducedProfitOf(cs[0], mu)
		mostT := make([]int, T)
		only := cs[0].typ
		least := math.MaxInt
		for _, c := range cs {
			if c.typ < 0 {
				only = -2
				continue
			}
			mostT[c.typ] = max(mostT[c.typ], c.gpus)
			if c.typ != only {
				only = -2
			}
			least = min(least, c.gpus)
		}
		for t := range mostT {
			sufMost[d][t] += mostT[t]
		}
		if only >= 0 {
			sufLeast[d][only] += least
		}
	}
	// exact[t][d][c] bounds what jobs d.. can add with c GPUs of type t
	// left: a knapsack exact in type t, its options taking GPUs, and
	// priced at μ in the other types (v − μ·k).
	exact := make([][][]float64, T)
	for t := range exact {
		exact[t] = make([][]float64, D+1)
		exact[t][D] = make([]float64, rem[t]+1)
		for d := D - 1; d >= 0; d-- {
			next := exact[t][d+1]
			f := make([]float64, rem[t]+1)
			copy(f, next)
			for _, c := range cands[order[d]] {
				switch {
				case c.typ < 0:
				case c.typ == t:
					for x := c.gpus; x <= rem[t]; x++ {
						f[x] = math.Max(f[x], next[x-c.gpus]+c.val)
					}
				default:
					p := reducedProfitOf(c, mu)
					for x := range f {
						f[x] = math.Max(f[x], next[x]+p)
					}
				}
			}
			exact[t][d] = f
		}
	}
	pos := make([]int, D)
	nodes := 0
	stopped := false
	var dfs func(d int, val float64)
	dfs = func(d int, val float64) {
		if stopped {
			return
		}
		if nodes++; maxNodes > 0 && nodes > maxNodes {
			stopped = true
			return
		}
		priced := 0.0
		for t := 0; t < T; t++ {
			if rem[t] < sufLeast[d][t] {
				return
			}
			priced += mu[t] * float64(min(rem[t], sufMost[d][t]))
		}
		bound := val + sufU[d] + priced
		for t := 0; t < T && bound >= incumbent+margin; t++ {
			bound = math.Min(bound, val+exact[t][d][rem[t]]+priced-mu[t]*float64(min(rem[t], sufMost[d][t])))
		}
		if bound < incumbent+margin {
			return
		}
		if d == D {
			incumbent = val
			copy(pick, cur)
			for e, x := range order {
				pick[free[x]] = cands[x][pos[e]].o
			}
			return
		}
		cs := cands[order[d]]
		first := 0
		if twin[d] {
			first = pos[d-1]
		}
		for k := first; k < len(cs); k++ {
			c := cs[k]
			if c.typ >= 0 && c.gpus > rem[c.typ] {
				continue
			}
			pos[d] = k
			if c.typ >= 0 {
				rem[c.typ] -= c.gpus
				dfs(d+1, val+c.val)
				rem[c.typ] += c.gpus
			} else {
				dfs(d+1, val)
			}
		}
	}
	dfs(0, val)
	if stopped {
		return pick, nodes, math.Max(0, upper-incumbent)
	}
	return pick, nodes, 0
}

// reducedProfitOf is a candidate's v − μ·k (0 for none).
func reducedProfitOf(c candidate, mu []float64) float64 {
	if c.typ < 0 {
		return 0
	}
	return c.val - mu[c.typ]*float64(c.gpus)
}

// grain returns 0.01 when every option's value is a whole multiple of it
// (to 1e-9), else 0.
func (r *reduced) grain() float64 {
	for _, ops := range r.opts {
		for _, op := range ops {
			if x := op.Value * 100; math.Abs(x-math.Round(x)) > 1e-6 {
				return 0
			}
		}
	}
	return 0.01
}
