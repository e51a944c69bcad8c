package gavel

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/internal/glpktest"
)

// maxSumLP writes Gavel's max-sum-throughput program of a round as Gavel's
// scheduler/policies/max_sum_throughput.py states it, in CPLEX LP form:
// maximise Σ_i Σ_k thr_ik·x_ik (raw steps per second) subject to
// Σ_k x_ik ≤ 1 per job and Σ_i gpus_i·x_ik ≤ GPUs_k per type, 0 ≤ x ≤ 1,
// with x_ik fixed at 0 where job i cannot run on type k. It is written
// from the round's data, not from this package's program.
func maxSumLP(caps, scale []float64, thr [][]float64) []byte {
	var b bytes.Buffer
	name := func(i, k int) string { return fmt.Sprintf("x_%d_%d", i, k) }
	ok := func(i, k int) bool { return thr[i][k] > 0 && scale[i] <= caps[k] }
	b.WriteString("Maximize\n obj:")
	for i := range thr {
		for k := range caps {
			if ok(i, k) {
				fmt.Fprintf(&b, "\n + %.17g %s", thr[i][k], name(i, k))
			}
		}
	}
	b.WriteString("\nSubject To\n")
	for i := range thr {
		fmt.Fprintf(&b, " job%d: 0 x_none", i)
		for k := range caps {
			if ok(i, k) {
				fmt.Fprintf(&b, "\n + %s", name(i, k))
			}
		}
		b.WriteString(" <= 1\n")
	}
	for k := range caps {
		fmt.Fprintf(&b, " type%d: 0 x_none", k)
		for i := range thr {
			if ok(i, k) {
				fmt.Fprintf(&b, "\n + %.17g %s", scale[i], name(i, k))
			}
		}
		fmt.Fprintf(&b, " <= %.17g\n", caps[k])
	}
	b.WriteString("Bounds\n x_none = 0\n")
	for i := range thr {
		for k := range caps {
			if ok(i, k) {
				fmt.Fprintf(&b, " %s <= 1\n", name(i, k))
			}
		}
	}
	b.WriteString("End\n")
	return b.Bytes()
}

// rawObjective is Σ thr·X.
func rawObjective(thr, X [][]float64) float64 {
	s := 0.0
	for i := range thr {
		for k := range thr[i] {
			s += thr[i][k] * X[i][k]
		}
	}
	return s
}

// handRounds are rounds shaped like the Sia evaluation's: three GPU types
// (24 T4, 16 A100, 24 RTX 2080 Ti), jobs of 1–8 GPUs whose steps per
// second differ by model (ncf- and cifar10-like jobs step ten to a hundred
// times faster than imagenet- and bert-like ones) and by type; some jobs
// cannot run on a type.
func handRounds() []*problem {
	caps := []float64{24, 16, 24}
	rounds := []*problem{
		// Fast-stepping jobs win the scarce A100s under the raw objective.
		{caps: caps, scale: []float64{8, 8, 4, 1, 2},
			thr: [][]float64{{2, 9, 4}, {0.2, 0.9, 0.4}, {30, 60, 40}, {1.5, 3, 2}, {0, 5, 3}}},
		// More GPUs asked for than there are.
		{caps: caps, scale: []float64{16, 16, 8, 8, 8, 4, 4, 2},
			thr: [][]float64{{1, 4, 2}, {0.5, 3, 1}, {10, 25, 12}, {10, 25, 12}, {0.3, 0.8, 0}, {5, 7, 6}, {0.1, 0.5, 0.2}, {50, 80, 60}}},
	}
	rng := rand.New(rand.NewPCG(36, 1))
	for range 10 {
		n := 5 + rng.IntN(40)
		p := &problem{caps: caps, scale: make([]float64, n), thr: make([][]float64, n)}
		for i := range n {
			p.scale[i] = float64([]int{1, 1, 2, 4, 8}[rng.IntN(5)])
			base := math.Pow(10, -1+2.5*rng.Float64()) // 0.1 to 30 steps per second
			p.thr[i] = make([]float64, len(caps))
			for k := range caps {
				if rng.IntN(8) > 0 {
					p.thr[i][k] = base * (0.5 + 3*rng.Float64())
				}
			}
		}
		rounds = append(rounds, p)
	}
	return rounds
}

// gavel-throughput's default objective is Gavel's code's, raw steps per
// second: on hand-made rounds its allocation, by the simplex method and by
// the interior-point one (lp=interior), is feasible and reaches glpsol's
// optimum of the program written from the round; the normalised
// form's allocation reaches less of it where the two differ.
func TestMaxSumThroughputAgainstGLPK(t *testing.T) {
	glpsol := glpktest.Path(t)
	dir := t.TempDir()
	differ := 0
	for n, p := range handRounds() {
		want, err := glpktest.Solve(glpsol, filepath.Join(dir, fmt.Sprint("r", n)), maxSumLP(p.caps, p.scale, p.thr), "OPTIMAL")
		if err != nil {
			t.Fatal(err)
		}
		X, err := p.throughput(false, false)
		if err != nil {
			t.Fatal(err)
		}
		checkFeasible(t, n, p, X)
		if got := rawObjective(p.thr, X); math.Abs(got-want) > 1e-7*(1+want) {
			t.Errorf("round %d: raw throughput %v, glpsol's optimum %v", n, got, want)
		}
		// lp=interior reaches the same optimum (within the barrier
		// method's gap), feasibly; where the optimum is not unique its
		// allocation may differ (interior_test.go).
		Xi, err := p.throughput(false, true)
		if err != nil {
			t.Fatalf("round %d: %v", n, err)
		}
		checkFeasible(t, n, p, Xi)
		if got := rawObjective(p.thr, Xi); math.Abs(got-want) > 1e-6*(1+want) {
			t.Errorf("round %d: interior raw throughput %v, glpsol's optimum %v", n, got, want)
		}
		Xn, err := p.throughput(true, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := rawObjective(p.thr, Xn); got > want+1e-7*(1+want) {
			t.Errorf("round %d: the normalised allocation's raw throughput %v passes the optimum %v", n, got, want)
		} else if got < want*(1-1e-6) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the normalised objective chose the raw optimum on every round: the rounds do not tell the two apart")
	}
}
