package gavel

import (
	"errors"
	"math"
)

// The Sia artifact's Gavel (and Gavel's own scheduler) solves its programs
// with cvxpy's default for them, ECOS, an interior-point method: where the
// optimum is not unique it returns a point inside the optimal face (the
// limit of the central path, its analytic centre), where a simplex method
// returns a vertex. The two allocate differently whenever several time
// fractions are optimal: the interior point spreads them (e.g. a job on
// two types at once, several jobs sharing a type), a vertex concentrates
// them. Option lp=interior solves gavel-throughput's program that way:
// a primal log-barrier method (Boyd and Vandenberghe, Convex
// Optimization, §11.3) with Newton steps, the barrier parameter lowered
// tenfold per stage until the duality gap of the central point is below
// interiorGap relative to the objective.

// interiorGap is the relative duality gap at which the barrier method
// stops (ECOS's default relative tolerance is 1e-8).
const interiorGap = 1e-9

// errInterior reports a barrier method that did not converge.
var errInterior = errors.New("gavel: the interior-point method did not converge")

// maxSumInterior is maxSum solved by the barrier method: the central path's
// end of maximise Σ coef·X subject to the base constraints. Identical jobs
// merged into a row of multiplicity m carry m times the barrier of one
// job's variables and row, so the result is the unmerged program's (whose
// centre gives identical jobs identical fractions).
func (p *problem) maxSumInterior(coef [][]float64) ([][]float64, error) {
	ps := p.pairs()
	if len(ps) == 0 {
		return p.allocation(nil, nil), nil
	}
	n, K := len(ps), len(p.caps)
	w := make([]float64, n) // objective
	a := make([]float64, n) // GPUs per unit of x in its type's row
	m := make([]float64, n) // barrier weight of x (the row's multiplicity)
	var jobs [][]int        // the pairs of each job row
	row := map[int]int{}
	for v, q := range ps {
		w[v] = coef[q.i][q.k] * p.mult(q.i)
		a[v] = p.scale[q.i] * p.mult(q.i)
		m[v] = p.mult(q.i)
		r, ok := row[q.i]
		if !ok {
			r = len(jobs)
			row[q.i] = r
			jobs = append(jobs, nil)
		}
		jobs[r] = append(jobs[r], v)
	}
	jm := make([]float64, len(jobs)) // barrier weight of each job row
	for r, vs := range jobs {
		jm[r] = m[vs[0]]
	}
	// A strictly feasible start: every fraction at half the most that
	// keeps all rows below their bounds.
	theta := 1.0
	for _, vs := range jobs {
		theta = math.Min(theta, 1/float64(len(vs)))
	}
	load := make([]float64, K)
	for v, q := range ps {
		load[q.k] += a[v]
	}
	for k, l := range load {
		if l > 0 {
			theta = math.Min(theta, p.caps[k]/l)
		}
	}
	x := make([]float64, n)
	for v := range x {
		x[v] = theta / 2
	}
	weight := float64(K) // total barrier weight: the duality gap is μ·weight
	for v := range m {
		weight += m[v]
	}
	for _, v := range jm {
		weight += v
	}
	slacks := func(x []float64) (u, s []float64, ok bool) {
		u = make([]float64, len(jobs))
		for r, vs := range jobs {
			u[r] = 1
			for _, v := range vs {
				u[r] -= x[v]
			}
			if !(u[r] > 0) {
				return nil, nil, false
			}
		}
		s = append([]float64(nil), p.caps...)
		for v, q := range ps {
			s[q.k] -= a[v] * x[v]
		}
		for v := range x {
			if !(x[v] > 0) {
				return nil, nil, false
			}
		}
		for k := range s {
			if load[k] > 0 && !(s[k] > 0) {
				return nil, nil, false
			}
		}
		return u, s, true
	}
	// F is the barrier objective (minimised) at μ.
	F := func(x, u, s []float64, mu float64) float64 {
		f := 0.0
		for v := range x {
			f -= w[v]*x[v] + mu*m[v]*math.Log(x[v])
		}
		for r := range u {
			f -= mu * jm[r] * math.Log(u[r])
		}
		for k := range s {
			if load[k] > 0 {
				f -= mu * math.Log(s[k])
			}
		}
		return f
	}
	obj := func(x []float64) float64 {
		o := 0.0
		for v := range x {
			o += w[v] * x[v]
		}
		return o
	}
	mu := 1.0
	for _, v := range w {
		mu = math.Max(mu, math.Abs(v))
	}
	g := make([]float64, n)
	d := make([]float64, n)
	dinv := make([]float64, n)
	z := make([][]float64, K) // B⁻¹U, column by column
	for k := range z {
		z[k] = make([]float64, n)
	}
	for stage := 0; stage < 60; stage++ {
		for iter := 0; ; iter++ {
			if iter == 200 {
				return nil, errInterior
			}
			u, s, _ := slacks(x)
			for v, q := range ps {
				r := row[q.i]
				g[v] = -w[v] - mu*m[v]/x[v] + mu*jm[r]/u[r] + mu*a[v]/s[q.k]
				dinv[v] = x[v] * x[v] / (mu * m[v])
			}
			// B⁻¹y per job block: D⁻¹y − D⁻¹1·(1ᵀD⁻¹y)/(1/ρ + 1ᵀD⁻¹1),
			// ρ = μ·m/u².
			solveB := func(y, out []float64) {
				for r, vs := range jobs {
					rho := mu * jm[r] / (u[r] * u[r])
					num, den := 0.0, 1/rho
					for _, v := range vs {
						num += dinv[v] * y[v]
						den += dinv[v]
					}
					for _, v := range vs {
						out[v] = dinv[v]*y[v] - dinv[v]*num/den
					}
				}
			}
			// Woodbury over the type rows: H = B + U·W·Uᵀ, W = diag(μ/s²).
			col := make([]float64, n)
			for k := 0; k < K; k++ {
				for v, q := range ps {
					col[v] = 0
					if q.k == k {
						col[v] = a[v]
					}
				}
				solveB(col, z[k])
			}
			S := make([][]float64, K)
			for k := range S {
				S[k] = make([]float64, K+1)
				if load[k] > 0 {
					S[k][k] = s[k] * s[k] / mu
				} else {
					S[k][k] = 1 // an unused type: a row of zeros in U
				}
			}
			for v, q := range ps {
				for k2 := 0; k2 < K; k2++ {
					S[q.k][k2] += a[v] * z[k2][v]
				}
			}
			neg := make([]float64, n)
			for v := range g {
				neg[v] = -g[v]
			}
			solveB(neg, d) // B⁻¹(−g)
			for k := 0; k < K; k++ {
				S[k][K] = 0
			}
			for v, q := range ps {
				S[q.k][K] += a[v] * d[v]
			}
			corr, ok := solveSmall(S)
			if !ok {
				return nil, errInterior
			}
			for v := range d {
				for k := 0; k < K; k++ {
					d[v] -= z[k][v] * corr[k]
				}
			}
			dec := 0.0 // Newton decrement squared
			for v := range d {
				dec -= g[v] * d[v]
			}
			if dec/2 <= 1e-12*math.Max(1, math.Abs(obj(x))) {
				break
			}
			f0 := F(x, u, s, mu)
			t := 1.0
			next := make([]float64, n)
			for ; t > 1e-20; t /= 2 {
				for v := range x {
					next[v] = x[v] + t*d[v]
				}
				if un, sn, ok := slacks(next); ok && F(next, un, sn, mu) <= f0-0.25*t*dec {
					break
				}
			}
			if t <= 1e-20 {
				break // no progress possible at this precision
			}
			copy(x, next)
		}
		if mu*weight <= interiorGap*math.Max(1, math.Abs(obj(x))) {
			return p.allocation(ps, x), nil
		}
		mu /= 10
	}
	return nil, errInterior
}

// solveSmall solves the K×K system held in S (its last column the right
// side) by Gaussian elimination with partial pivoting.
func solveSmall(S [][]float64) ([]float64, bool) {
	K := len(S)
	for c := 0; c < K; c++ {
		piv := c
		for r := c + 1; r < K; r++ {
			if math.Abs(S[r][c]) > math.Abs(S[piv][c]) {
				piv = r
			}
		}
		if S[piv][c] == 0 {
			return nil, false
		}
		S[c], S[piv] = S[piv], S[c]
		for r := c + 1; r < K; r++ {
			f := S[r][c] / S[c][c]
			for cc := c; cc <= K; cc++ {
				S[r][cc] -= f * S[c][cc]
			}
		}
	}
	x := make([]float64, K)
	for r := K - 1; r >= 0; r-- {
		v := S[r][K]
		for c := r + 1; c < K; c++ {
			v -= S[r][c] * x[c]
		}
		x[r] = v / S[r][r]
	}
	return x, true
}
