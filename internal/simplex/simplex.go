// Package simplex is a small dense primal simplex method for linear
// programs whose origin is feasible (maximise Cᵀx subject to A·x ≤ B,
// x ≥ 0, B ≥ 0): Gavel's allocation programs and the master problem of the
// Sia solver's column generation.
package simplex

import (
	"errors"
	"fmt"
	"math"
)

// LP is a linear program in the form Gavel's allocation problems take:
//
//	maximise Cᵀx  subject to  A·x ≤ B,  x ≥ 0,  with B ≥ 0,
//
// so the origin is feasible and no phase one is needed.
type LP struct {
	C []float64   // objective, one per variable
	A [][]float64 // constraint rows, each len(C) long
	B []float64   // right-hand sides, non-negative
}

// ErrUnbounded is returned for a program whose objective has no maximum.
var ErrUnbounded = errors.New("lp: unbounded")

// lpEps is the tolerance of the simplex method's sign tests.
const lpEps = 1e-9

// Solve maximises the program with the primal simplex method on a dense
// tableau: Dantzig's rule (the most positive reduced cost enters) and, after
// a run of degenerate pivots, Bland's rule (the lowest index enters, ties in
// the ratio test go to the lowest basic index) until the objective moves
// again, which rules out cycling. It returns an optimal x and its objective.
func (lp *LP) Solve() (x []float64, obj float64, err error) {
	x, _, obj, err = lp.SolveDual()
	return x, obj, err
}

// SolveDual is Solve that also returns an optimal dual solution y ≥ 0, one
// price per row (minimising Bᵀy subject to Aᵀy ≥ C), read from the
// reduced costs of the slack columns at the optimal tableau.
func (lp *LP) SolveDual() (x, y []float64, obj float64, err error) {
	n, m := len(lp.C), len(lp.A)
	if len(lp.B) != m {
		return nil, nil, 0, fmt.Errorf("lp: %d rows but %d right-hand sides", m, len(lp.B))
	}
	for i, row := range lp.A {
		if len(row) != n {
			return nil, nil, 0, fmt.Errorf("lp: row %d has %d coefficients, want %d", i, len(row), n)
		}
		if !(lp.B[i] >= 0) || math.IsInf(lp.B[i], 0) {
			return nil, nil, 0, fmt.Errorf("lp: right-hand side %d is %v, want a finite value ≥ 0", i, lp.B[i])
		}
	}
	w := n + m + 1 // columns: variables, slacks, right-hand side
	t := make([]float64, m*w)
	basis := make([]int, m)
	for i, row := range lp.A {
		r := t[i*w : (i+1)*w]
		copy(r, row)
		r[n+i] = 1
		r[w-1] = lp.B[i]
		basis[i] = n + i
	}
	d := make([]float64, w) // reduced costs; d[w-1] is −objective
	copy(d, lp.C)
	degenerate := 0
	limit := 50 * (n + m + 10)
	for iter := 0; ; iter++ {
		if iter > limit {
			return nil, nil, 0, fmt.Errorf("lp: no optimum after %d pivots", limit)
		}
		bland := degenerate > 20
		e := -1
		for j := 0; j < n+m; j++ {
			if d[j] > lpEps && (e < 0 || (!bland && d[j] > d[e])) {
				e = j
				if bland {
					break
				}
			}
		}
		if e < 0 {
			break
		}
		r := -1
		var best float64
		for i := 0; i < m; i++ {
			a := t[i*w+e]
			if a <= lpEps {
				continue
			}
			q := t[i*w+w-1] / a
			if r < 0 || q < best-1e-12 || (q <= best+1e-12 && basis[i] < basis[r]) {
				r, best = i, q
			}
		}
		if r < 0 {
			return nil, nil, 0, ErrUnbounded
		}
		if best <= 1e-12 {
			degenerate++
		} else {
			degenerate = 0
		}
		pivot(t, d, w, m, r, e)
		basis[r] = e
	}
	x = make([]float64, n)
	for i, b := range basis {
		if b < n {
			x[b] = max(t[i*w+w-1], 0)
		}
	}
	for j, c := range lp.C {
		obj += c * x[j]
	}
	y = make([]float64, m)
	for i := range y {
		y[i] = max(-d[n+i], 0)
	}
	return x, y, obj, nil
}

// pivot makes column e basic in row r of the tableau t (m rows of w
// columns) and updates the reduced costs d. The pivot row is usually
// sparse, so only its nonzero columns are visited in the other rows.
func pivot(t, d []float64, w, m, r, e int) {
	pr := t[r*w : (r+1)*w]
	inv := 1 / pr[e]
	nz := make([]int, 0, 64)
	for j, v := range pr {
		if v != 0 {
			pr[j] = v * inv
			nz = append(nz, j)
		}
	}
	pr[e] = 1
	for i := 0; i < m; i++ {
		if i == r {
			continue
		}
		row := t[i*w : (i+1)*w]
		f := row[e]
		if f == 0 {
			continue
		}
		for _, j := range nz {
			row[j] -= f * pr[j]
		}
		row[e] = 0
	}
	if f := d[e]; f != 0 {
		for _, j := range nz {
			d[j] -= f * pr[j]
		}
		d[e] = 0
	}
}
