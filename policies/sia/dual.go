package sia

import (
	"math"

	"github.com/polluxsim/polluxsim/internal/simplex"
)

// lagrangian evaluates L(μ) = μ·C + Σ_j max(0, max_o (v_o − μ·k_o)) and
// returns it with the maximising choice (per job an index into r.opts[i]
// or -1), its value and its GPUs per type: a column of the master problem.
func (s *search) lagrangian(mu []float64) (L float64, pick []int, val float64, gpus []float64) {
	r := s.r
	gpus = make([]float64, len(r.capacity))
	pick = make([]int, len(r.jobs))
	for t, c := range r.capacity {
		L += mu[t] * float64(c)
	}
	for i, ops := range r.opts {
		best, arg := 0.0, -1
		for _, o := range s.opts[i] {
			if x := reducedProfit(ops[o], mu); x > best+eps || (arg >= 0 && x > best-eps && ops[o].GPUs < ops[arg].GPUs) {
				best, arg = math.Max(best, x), o
			}
		}
		pick[i] = arg
		L += best
		if arg >= 0 {
			val += ops[arg].Value
			gpus[ops[arg].Type] += float64(ops[arg].GPUs)
		}
	}
	return L, pick, val, gpus
}

// dual minimises L(μ) over μ ≥ 0 by column generation (Kelley's cutting
// planes on the Lagrangian dual, Dantzig–Wolfe on the primal): the master
// program chooses a convex combination of whole choices (columns) within
// the capacities,
//
//	maximise Σ λ_c·V_c  subject to  Σ λ_c·K_c ≤ C,  Σ λ_c ≤ 1,  λ ≥ 0,
//
// whose dual prices on the capacity rows are the next μ; the choice that
// maximises L at μ is the next column. It stops when no column improves
// the master, when the master's optimum (a lower bound on min L) meets
// the best L found, or after dualSteps columns; the best μ is returned with
// its L. Any μ ≥ 0 bounds the optimum, so stopping early only weakens the
// bound.
func (s *search) dual() ([]float64, float64) {
	r := s.r
	T := len(r.capacity)
	mu := make([]float64, T)
	bestMu := make([]float64, T)
	master := &simplex.LP{A: make([][]float64, T+1), B: make([]float64, T+1)}
	for t, c := range r.capacity {
		master.B[t] = float64(c)
	}
	master.B[T] = 1
	add := func(val float64, gpus []float64) {
		master.C = append(master.C, val)
		for t := 0; t < T; t++ {
			master.A[t] = append(master.A[t], gpus[t])
		}
		master.A[T] = append(master.A[T], 1)
	}
	bestL, _, val, gpus := s.lagrangian(mu)
	add(val, gpus)
	for step := 0; step < dualSteps; step++ {
		_, y, lower, err := master.SolveDual()
		if err != nil {
			break // cannot happen (the master is bounded); keep the best μ
		}
		copy(mu, y[:T])
		L, _, val, gpus := s.lagrangian(mu)
		if L < bestL {
			bestL = L
			copy(bestMu, mu)
		}
		if bestL-lower <= 1e-9*(1+math.Abs(bestL)) {
			break
		}
		red := val - y[T]
		for t := 0; t < T; t++ {
			red -= mu[t] * gpus[t]
		}
		if red <= 1e-12 {
			break
		}
		add(val, gpus)
	}
	return bestMu, bestL
}

// dualSteps bounds the column generation.
const dualSteps = 2000
