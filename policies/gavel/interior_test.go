package gavel

import (
	"math"
	"testing"
)

// checkFeasible fails the test when X breaks the base constraints of p.
func checkFeasible(t *testing.T, n int, p *problem, X [][]float64) {
	t.Helper()
	for k := range p.caps {
		used := 0.0
		for i := range X {
			used += p.scale[i] * p.mult(i) * X[i][k]
		}
		if used > p.caps[k]+1e-7 {
			t.Errorf("round %d: type %d holds %v GPUs of %v", n, k, used, p.caps[k])
		}
	}
	for i := range X {
		s := 0.0
		for k := range X[i] {
			if X[i][k] < 0 || (X[i][k] > 0 && (p.thr[i][k] == 0 || p.scale[i] > p.caps[k])) {
				t.Errorf("round %d: X[%d][%d] = %v", n, i, k, X[i][k])
			}
			s += X[i][k]
		}
		if s > 1+1e-9 {
			t.Errorf("round %d: job %d's time fractions sum to %v", n, i, s)
		}
	}
}

// Where several allocations are optimal the interior point is the centre
// of the optimal face, worked out by hand: a job equally fast on two
// types with room for it runs half its time on each (the simplex method
// puts it on one); two identical jobs on one type's single slot share it
// evenly, merged into one row of multiplicity 2 or not; and with a unique
// optimum both methods agree.
func TestMaxSumInteriorCentre(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6 }
	p := &problem{caps: []float64{4, 4}, scale: []float64{2}, thr: [][]float64{{3, 3}}}
	X, err := p.throughput(false, true)
	if err != nil || !near(X[0][0], 0.5) || !near(X[0][1], 0.5) {
		t.Errorf("one job, two equal types: interior %v (%v), want [0.5 0.5]", X, err)
	}
	if V, _ := p.throughput(false, false); !(near(V[0][0]+V[0][1], 1) && (near(V[0][0], 1) || near(V[0][1], 1))) {
		t.Errorf("one job, two equal types: simplex %v, want a vertex", V)
	}
	two := &problem{caps: []float64{2}, scale: []float64{2, 2}, thr: [][]float64{{5}, {5}}}
	X, err = two.throughput(false, true)
	if err != nil || !near(X[0][0], 0.5) || !near(X[1][0], 0.5) {
		t.Errorf("two jobs, one slot: interior %v (%v), want 0.5 each", X, err)
	}
	merged := &problem{caps: []float64{2}, scale: []float64{2}, thr: [][]float64{{5}}, count: []float64{2}}
	X, err = merged.throughput(false, true)
	if err != nil || !near(X[0][0], 0.5) {
		t.Errorf("two jobs merged, one slot: interior %v (%v), want 0.5", X, err)
	}
	// Unique optimum: the fast job takes the only type's GPUs.
	uniq := &problem{caps: []float64{2}, scale: []float64{2, 2}, thr: [][]float64{{5}, {1}}}
	X, err = uniq.throughput(false, true)
	if err != nil || !near(X[0][0], 1) || X[1][0] > 1e-6 {
		t.Errorf("unique optimum: interior %v (%v), want [1] and [0]", X, err)
	}
}
