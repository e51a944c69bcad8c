package sia

import (
	"math"
	"sort"
)

// branchAndBound solves the reduced problem exactly by depth-first branch
// and bound: jobs in order of decreasing best value, each job's options in
// order of decreasing value and then "none"; a subtree is cut when its
// upper bound cannot beat the incumbent (the greedy solution at first).
// The bound of a subtree with remaining capacities rem and remaining jobs
// R is the smaller of Σ_{j∈R} best_j and the Lagrangian bound
// μ·rem + Σ_{j∈R} max(0, max_o (v_o − μ_{t(o)}·k_o)), valid for every μ ≥ 0
// (weak duality); μ comes from a subgradient descent at the root, so both
// bounds cost O(types) per node from precomputed suffix sums. It returns
// the pick per reduced job and the number of nodes visited.
func (r *reduced) branchAndBound() ([]int, int) {
	J, T := len(r.jobs), len(r.capacity)
	order := make([]int, J)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.opts[order[a]][0].Value > r.opts[order[b]][0].Value })
	incumbent, pick := r.greedy(order)
	mu := r.multipliers(incumbent)
	sufBest := make([]float64, J+1)
	sufMu := make([]float64, J+1)
	for d := J - 1; d >= 0; d-- {
		i := order[d]
		sufBest[d] = sufBest[d+1] + r.opts[i][0].Value
		sufMu[d] = sufMu[d+1] + lagrangeTerm(r.opts[i], mu)
	}
	// When every value is a multiple of a grain (Sia's values are rounded
	// to 0.01), an improvement is worth at least the grain: cut subtrees
	// whose bound does not reach the incumbent plus the grain.
	margin := eps
	if g := r.grain(); g > 0 {
		margin = g - eps
	}
	rem := append([]int(nil), r.capacity...)
	cur := make([]int, J)
	for i := range cur {
		cur[i] = -1
	}
	nodes := 0
	var dfs func(d int, val float64)
	dfs = func(d int, val float64) {
		nodes++
		if d == J {
			if val > incumbent+eps {
				incumbent = val
				copy(pick, cur)
			}
			return
		}
		bound := sufMu[d]
		for t := 0; t < T; t++ {
			bound += mu[t] * float64(rem[t])
		}
		if val+min(bound, sufBest[d]) < incumbent+margin {
			return
		}
		i := order[d]
		for o, op := range r.opts[i] {
			if op.GPUs > rem[op.Type] {
				continue
			}
			rem[op.Type] -= op.GPUs
			cur[i] = o
			dfs(d+1, val+op.Value)
			rem[op.Type] += op.GPUs
		}
		cur[i] = -1
		dfs(d+1, val)
	}
	dfs(0, 0)
	return pick, nodes
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

// lagrangeTerm is a job's term of the Lagrangian bound at multipliers mu.
func lagrangeTerm(opts []Option, mu []float64) float64 {
	best := 0.0
	for _, op := range opts {
		best = math.Max(best, op.Value-mu[op.Type]*float64(op.GPUs))
	}
	return best
}

// greedy takes, job by job in order, the best option that still fits. It
// returns the value and the pick per reduced job.
func (r *reduced) greedy(order []int) (float64, []int) {
	rem := append([]int(nil), r.capacity...)
	pick := make([]int, len(r.jobs))
	val := 0.0
	for _, i := range order {
		pick[i] = -1
		for o, op := range r.opts[i] {
			if op.GPUs <= rem[op.Type] {
				rem[op.Type] -= op.GPUs
				pick[i] = o
				val += op.Value
				break
			}
		}
	}
	return val, pick
}

// multipliers minimises the Lagrangian dual L(μ) = μ·C + Σ_j max(0,
// max_o (v_o − μ_t·k_o)) over μ ≥ 0 by projected subgradient steps (Polyak
// step towards the incumbent value lower). Any μ ≥ 0 gives a valid bound;
// a better one only prunes more.
func (r *reduced) multipliers(lower float64) []float64 {
	T := len(r.capacity)
	mu := make([]float64, T)
	best := make([]float64, T)
	bestL := math.Inf(1)
	g := make([]float64, T)
	scale, stall := 1.0, 0
	for it := 0; it < subgradientSteps; it++ {
		L := 0.0
		for t := 0; t < T; t++ {
			L += mu[t] * float64(r.capacity[t])
			g[t] = float64(r.capacity[t])
		}
		for _, opts := range r.opts {
			v, arg := 0.0, -1
			for o, op := range opts {
				if x := op.Value - mu[op.Type]*float64(op.GPUs); x > v {
					v, arg = x, o
				}
			}
			L += v
			if arg >= 0 {
				g[opts[arg].Type] -= float64(opts[arg].GPUs)
			}
		}
		if L < bestL-eps {
			bestL, stall = L, 0
			copy(best, mu)
		} else if stall++; stall >= 10 {
			scale, stall = scale/2, 0
		}
		norm := 0.0
		for t := 0; t < T; t++ {
			if mu[t] == 0 && g[t] > 0 {
				continue // projected: no descent direction there
			}
			norm += g[t] * g[t]
		}
		if norm == 0 || L-lower <= eps {
			break
		}
		step := scale * (L - lower) / norm
		for t := 0; t < T; t++ {
			mu[t] = math.Max(0, mu[t]-step*g[t])
		}
	}
	return best
}

// subgradientSteps bounds the root's subgradient descent.
const subgradientSteps = 200
