package sia

import (
	"math/rand/v2"
	"testing"
)

// TestBranchAndBoundNodeBudget: with a node budget the branch and bound
// returns a feasible solution whose gap bounds its distance from the
// optimum (value + gap ≥ optimum), and a zero gap only with the optimum.
// Over many instances the smallest budget must actually stop some
// searches, or the test would not exercise the budget.
func TestBranchAndBoundNodeBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	stopped := 0
	for i := 0; i < 300; i++ {
		p := randomProblem(rng, 4+rng.IntN(5), 1+rng.IntN(3), 12, i%2 == 0)
		exact, err := SolveDP(p, dpCells)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{1, 3, 50} {
			p.MaxNodes = budget
			sol, err := SolveBB(p)
			if err != nil {
				t.Fatal(err)
			}
			v, err := p.Value(sol.Choice)
			if err != nil {
				t.Fatalf("instance %d, budget %d: infeasible choice: %v", i, budget, err)
			}
			if d := v - sol.Value; d > 1e-9 || d < -1e-9 {
				t.Fatalf("instance %d: reported value %v, choice is worth %v", i, sol.Value, v)
			}
			if sol.Gap < 0 || sol.Value > exact.Value+1e-9 || sol.Value+sol.Gap < exact.Value-1e-9 {
				t.Fatalf("instance %d, budget %d: value %v, gap %v, optimum %v", i, budget, sol.Value, sol.Gap, exact.Value)
			}
			if sol.Gap == 0 && sol.Value < exact.Value-1e-9 {
				t.Fatalf("instance %d, budget %d: gap 0 below the optimum (%v < %v)", i, budget, sol.Value, exact.Value)
			}
			if sol.Gap > 0 {
				stopped++
			}
		}
		p.MaxNodes = 0
	}
	if stopped == 0 {
		t.Fatal("no search was stopped by its budget: the instances are too easy for this test")
	}
	t.Logf("%d of 900 searches stopped by their budget", stopped)
}
