package gavel

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/internal/glpktest"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// feasible checks x against the program's constraints.
func feasible(t *testing.T, p *LP, x []float64) {
	t.Helper()
	for j, v := range x {
		if v < -1e-9 {
			t.Errorf("x[%d] = %v < 0", j, v)
		}
	}
	for i, row := range p.A {
		s := 0.0
		for j, a := range row {
			s += a * x[j]
		}
		if s > p.B[i]+1e-7*(1+math.Abs(p.B[i])) {
			t.Errorf("row %d: %v > %v", i, s, p.B[i])
		}
	}
}

// Hand-solved programs: a textbook one with a unique vertex, and Beale's
// example, on which Dantzig's rule with a naive ratio test cycles.
func TestLPHandSolved(t *testing.T) {
	cases := []struct {
		name string
		p    LP
		obj  float64
		x    []float64
	}{
		{
			// max 3x+5y: x ≤ 4, 2y ≤ 12, 3x+2y ≤ 18 → (2, 6), 36.
			name: "textbook",
			p:    LP{C: []float64{3, 5}, A: [][]float64{{1, 0}, {0, 2}, {3, 2}}, B: []float64{4, 12, 18}},
			obj:  36, x: []float64{2, 6},
		},
		{
			// Beale (1955): optimum 5/4 at x1 = 1, x3 = 1.
			name: "beale",
			p: LP{
				C: []float64{0.75, -20, 0.5, -6},
				A: [][]float64{{0.25, -8, -1, 9}, {0.5, -12, -0.5, 3}, {0, 0, 1, 0}},
				B: []float64{0, 0, 1},
			},
			obj: 1.25, x: []float64{1, 0, 1, 0},
		},
		{
			// Nothing to gain: the origin is optimal.
			name: "origin",
			p:    LP{C: []float64{-1, -2}, A: [][]float64{{1, 1}}, B: []float64{3}},
			obj:  0, x: []float64{0, 0},
		},
	}
	for _, c := range cases {
		x, obj, err := c.p.Solve()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if math.Abs(obj-c.obj) > 1e-9 {
			t.Errorf("%s: objective %v, want %v", c.name, obj, c.obj)
		}
		for j := range x {
			if math.Abs(x[j]-c.x[j]) > 1e-9 {
				t.Errorf("%s: x = %v, want %v", c.name, x, c.x)
				break
			}
		}
		feasible(t, &c.p, x)
	}
}

func TestLPErrors(t *testing.T) {
	if _, _, err := (&LP{C: []float64{1, 0}, A: [][]float64{{-1, 1}}, B: []float64{1}}).Solve(); !errors.Is(err, ErrUnbounded) {
		t.Errorf("unbounded program: err = %v, want ErrUnbounded", err)
	}
	for _, p := range []LP{
		{C: []float64{1}, A: [][]float64{{1}}, B: []float64{-1}},
		{C: []float64{1}, A: [][]float64{{1}}, B: []float64{math.NaN()}},
		{C: []float64{1}, A: [][]float64{{1, 2}}, B: []float64{1}},
		{C: []float64{1}, A: [][]float64{{1}}, B: nil},
	} {
		if _, _, err := p.Solve(); err == nil || errors.Is(err, ErrUnbounded) {
			t.Errorf("%+v: err = %v, want a malformed-program error", p, err)
		}
	}
}

// randomGavelLP is a random max-min program of Gavel's shape: jobs × types
// time fractions and the minimum t, per-job rows t ≤ Σ c·x and Σ x ≤ 1, and
// per-type capacities. With degenerate set, throughputs repeat, so many
// vertices tie.
func randomGavelLP(rng *rand.Rand, jobs, types int, degenerate bool) (*problem, [][]float64) {
	p := &problem{caps: make([]float64, types)}
	for k := range p.caps {
		p.caps[k] = float64(1 + rng.IntN(12))
	}
	coef := make([][]float64, jobs)
	for i := range jobs {
		p.scale = append(p.scale, float64([]int{1, 1, 2, 4, 8}[rng.IntN(5)]))
		row := make([]float64, types)
		c := make([]float64, types)
		for k := range row {
			if rng.IntN(5) > 0 {
				row[k] = 0.1 + 3*rng.Float64()
				if degenerate {
					row[k] = float64(1 + rng.IntN(2))
				}
				c[k] = row[k]
			}
		}
		p.thr = append(p.thr, row)
		coef[i] = c
	}
	return p, coef
}

// gavelLP is the program maxMin solves.
func gavelLP(p *problem, coef [][]float64, secondary float64) *LP {
	lp, _ := p.maxMinLP(coef, secondary)
	return lp
}

// gonumSolve solves the program with gonum's simplex (standard form with
// slacks; gonum minimises).
func gonumSolve(p *LP) (float64, error) {
	n, m := len(p.C), len(p.A)
	A := mat.NewDense(m, n+m, nil)
	c := make([]float64, n+m)
	for j, v := range p.C {
		c[j] = -v
	}
	for i, row := range p.A {
		for j, v := range row {
			A.Set(i, j, v)
		}
		A.Set(i, n+i, 1)
	}
	f, _, err := lp.Simplex(c, A, p.B, 1e-10, nil)
	return -f, err
}

// The solver agrees with gonum's simplex on random programs of Gavel's
// shape (an independent implementation: revised simplex on the standard
// form), non-degenerate and degenerate.
func TestLPAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		p, coef := randomGavelLP(rng, 2+rng.IntN(12), 1+rng.IntN(4), n%2 == 1)
		prog := gavelLP(p, coef, tieBreak)
		x, obj, err := prog.Solve()
		if err != nil {
			t.Fatalf("instance %d: %v", n, err)
		}
		feasible(t, prog, x)
		want, err := gonumSolve(prog)
		if err != nil {
			t.Fatalf("instance %d: gonum: %v", n, err)
		}
		if math.Abs(obj-want) > 1e-7*(1+math.Abs(want)) {
			t.Errorf("instance %d: objective %v, gonum %v", n, obj, want)
		}
	}
}

// The solver agrees with GLPK's glpsol on larger random programs of
// Gavel's shape. Skips without glpsol (Debian package glpk-utils).
func TestLPAgainstGLPK(t *testing.T) {
	glpsol := glpktest.Path(t)
	rng := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for n := range 12 {
		p, coef := randomGavelLP(rng, 10+rng.IntN(60), 1+rng.IntN(5), n%3 == 0)
		prog := gavelLP(p, coef, tieBreak)
		x, obj, err := prog.Solve()
		if err != nil {
			t.Fatalf("instance %d: %v", n, err)
		}
		feasible(t, prog, x)
		want, err := solveGLPK(glpsol, filepath.Join(dir, fmt.Sprintf("p%d", n)), prog)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(obj-want) > 1e-6*(1+math.Abs(want)) {
			t.Errorf("instance %d (%d variables): objective %v, glpsol %v", n, len(prog.C), obj, want)
		}
	}
}

// solveGLPK writes p as a CPLEX LP file, solves it with glpsol and returns
// the optimal objective.
func solveGLPK(glpsol, base string, p *LP) (float64, error) {
	var b bytes.Buffer
	term := func(c float64, j int) {
		sign := "+"
		if math.Signbit(c) {
			sign, c = "-", -c
		}
		fmt.Fprintf(&b, "\n %s %.17g x%d", sign, c, j) // lines of at most 255 characters
	}
	b.WriteString("Maximize\n obj:")
	for j, c := range p.C {
		term(c, j)
	}
	b.WriteString("\nSubject To\n")
	for i, row := range p.A {
		fmt.Fprintf(&b, " r%d:", i)
		for j, a := range row {
			if a != 0 {
				term(a, j)
			}
		}
		fmt.Fprintf(&b, "\n <= %.17g\n", p.B[i])
	}
	b.WriteString("End\n")
	return glpktest.Solve(glpsol, base, b.Bytes(), "OPTIMAL")
}
