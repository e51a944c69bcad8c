package simplex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The duals certify optimality: y ≥ 0, Aᵀy ≥ C (dual feasible), Bᵀy equals
// the objective (strong duality) and y_i = 0 on rows with slack
// (complementary slackness), on random programs.
func TestSolveDualCertifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		vars, rows := 1+rng.IntN(12), 1+rng.IntN(8)
		lp := &LP{C: make([]float64, vars), B: make([]float64, rows)}
		for j := range lp.C {
			lp.C[j] = math.Round(10*(rng.Float64()*2-0.5)) / 2
		}
		for i := range lp.B {
			row := make([]float64, vars)
			for j := range row {
				if rng.IntN(3) > 0 {
					row[j] = float64(rng.IntN(5))
				}
			}
			lp.A = append(lp.A, row)
			lp.B[i] = float64(rng.IntN(10))
		}
		// Keep it bounded: a row with every variable.
		all := make([]float64, vars)
		for j := range all {
			all[j] = 1
		}
		lp.A, lp.B = append(lp.A, all), append(lp.B, 20)
		x, y, obj, err := lp.SolveDual()
		if err != nil {
			t.Fatalf("program %d: %v", n, err)
		}
		dual := 0.0
		for i, b := range lp.B {
			if y[i] < 0 {
				t.Fatalf("program %d: y[%d] = %v < 0", n, i, y[i])
			}
			dual += b * y[i]
			s := 0.0
			for j, a := range lp.A[i] {
				s += a * x[j]
			}
			if s > b+1e-9 {
				t.Fatalf("program %d: row %d infeasible", n, i)
			}
			if s < b-1e-7 && y[i] > 1e-9 {
				t.Fatalf("program %d: row %d has slack %v and price %v", n, i, b-s, y[i])
			}
		}
		if math.Abs(dual-obj) > 1e-7*(1+math.Abs(obj)) {
			t.Fatalf("program %d: dual objective %v, primal %v", n, dual, obj)
		}
		for j, c := range lp.C {
			s := 0.0
			for i := range lp.A {
				s += lp.A[i][j] * y[i]
			}
			if s < c-1e-7 {
				t.Fatalf("program %d: dual constraint %d violated: %v < %v", n, j, s, c)
			}
		}
	}
}

// A production plan: two products sharing two machines; the duals are the
// machines' shadow prices.
func ExampleLP_SolveDual() {
	lp := &LP{
		C: []float64{3, 5},                     // profit per unit
		A: [][]float64{{1, 0}, {0, 2}, {3, 2}}, // machine hours per unit
		B: []float64{4, 12, 18},                // machine hours available
	}
	x, y, obj, _ := lp.SolveDual()
	fmt.Println(x, y, obj)
	// Output: [2 6] [0 1.5 1] 36
}
