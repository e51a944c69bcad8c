package sia

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/internal/glpktest"
)

// randomProblem builds a Sia-like instance: types with capacities, jobs
// with configurations of 1, 2, 4, 8, ... GPUs per type and values that are
// multiples of 0.01 (Sia rounds its values to 2 decimals), some negative.
func randomProblem(rng *rand.Rand, jobs, types, maxCap int, fixed bool) *Problem {
	p := &Problem{Capacity: make([]int, types)}
	for t := range p.Capacity {
		p.Capacity[t] = 1 + rng.IntN(maxCap)
	}
	for j := 0; j < jobs; j++ {
		var opts []Option
		for t := 0; t < types; t++ {
			if rng.IntN(4) == 0 {
				continue // no table for this type
			}
			speed := 0.5 + rng.Float64()
			for k := 1; k <= p.Capacity[t]; k *= 2 {
				v := 1.1 - math.Pow(speed*math.Pow(float64(k), 0.7), -0.5)
				opts = append(opts, Option{Type: t, GPUs: k, Value: math.Round(v*100) / 100})
			}
		}
		p.Jobs = append(p.Jobs, opts)
	}
	if fixed {
		p.Fixed = make([]int, jobs)
		used := make([]int, types)
		for j := range p.Fixed {
			p.Fixed[j] = -1
			if len(p.Jobs[j]) > 0 && rng.IntN(5) == 0 {
				o := rng.IntN(len(p.Jobs[j]))
				op := p.Jobs[j][o]
				if used[op.Type]+op.GPUs <= p.Capacity[op.Type] {
					used[op.Type] += op.GPUs
					p.Fixed[j] = o
				}
			}
		}
	}
	return p
}

// bruteForce enumerates every choice.
func bruteForce(p *Problem) float64 {
	best := math.Inf(-1)
	choice := make([]int, len(p.Jobs))
	var rec func(j int)
	rec = func(j int) {
		if j == len(p.Jobs) {
			if v, err := p.Value(choice); err == nil && v > best {
				best = v
			}
			return
		}
		for o := -1; o < len(p.Jobs[j]); o++ {
			choice[j] = o
			rec(j + 1)
		}
	}
	rec(0)
	return best
}

func checkSolution(t *testing.T, p *Problem, sol Solution, want float64, what string) {
	t.Helper()
	v, err := p.Value(sol.Choice)
	if err != nil {
		t.Fatalf("%s: infeasible solution: %v", what, err)
	}
	if math.Abs(v-sol.Value) > 1e-7 {
		t.Fatalf("%s: reported value %v, its choice is worth %v", what, sol.Value, v)
	}
	if math.Abs(v-want) > 1e-7 {
		t.Fatalf("%s: value %v, optimum %v", what, v, want)
	}
}

func TestSolveMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		p := randomProblem(rng, 1+rng.IntN(5), 1+rng.IntN(3), 6, n%2 == 1)
		want := bruteForce(p)
		sol, err := SolveBB(p)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, p, sol, want, fmt.Sprintf("instance %d, branch and bound", n))
		dp, err := SolveDP(p, 1<<24)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, p, dp, want, fmt.Sprintf("instance %d, dynamic programming", n))
	}
}

func TestBranchAndBoundMatchesDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 40; n++ {
		p := randomProblem(rng, 6+rng.IntN(8), 3, 12, n%2 == 0)
		dp, err := SolveDP(p, 1<<26)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := SolveBB(p)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, p, sol, dp.Value, fmt.Sprintf("instance %d (%d jobs)", n, len(p.Jobs)))
	}
}

func TestSolveRejectsBadInput(t *testing.T) {
	for name, p := range map[string]*Problem{
		"negative capacity": {Capacity: []int{-1}},
		"unknown type":      {Capacity: []int{4}, Jobs: [][]Option{{{Type: 1, GPUs: 1, Value: 1}}}},
		"zero GPUs":         {Capacity: []int{4}, Jobs: [][]Option{{{Type: 0, GPUs: 0, Value: 1}}}},
		"NaN value":         {Capacity: []int{4}, Jobs: [][]Option{{{Type: 0, GPUs: 1, Value: math.NaN()}}}},
		"fixed overflow":    {Capacity: []int{1}, Jobs: [][]Option{{{Type: 0, GPUs: 2, Value: 1}}}, Fixed: []int{0}},
		"fixed length":      {Capacity: []int{1}, Jobs: [][]Option{{{Type: 0, GPUs: 1, Value: 1}}}, Fixed: []int{}},
	} {
		if _, err := Solve(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestSolveMatchesGLPK compares the optimum with GLPK's MIP solver on
// random instances of Sia's size (64 GPUs of three types, up to 60 jobs).
func TestSolveMatchesGLPK(t *testing.T) {
	glpsol := glpktest.Path(t)
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	for n := 0; n < 12; n++ {
		p := randomProblem(rng, 20+rng.IntN(40), 3, 24, n%3 == 0)
		sol, err := Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := solveGLPK(glpsol, filepath.Join(dir, fmt.Sprintf("p%d", n)), p)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, p, sol, want, fmt.Sprintf("instance %d (%d jobs) against glpsol", n, len(p.Jobs)))
	}
}

// solveGLPK writes p as a CPLEX LP file, solves it with glpsol and returns
// the optimal objective.
func solveGLPK(glpsol, base string, p *Problem) (float64, error) {
	var b bytes.Buffer
	// term writes coefficient·variable with its sign.
	term := func(c float64, j, o int) {
		sign := "+"
		if math.Signbit(c) {
			sign, c = "-", -c
		}
		fmt.Fprintf(&b, "\n %s %.10g x_%d_%d", sign, c, j, o) // lines of at most 255 characters
	}
	b.WriteString("Maximize\n obj:")
	for j, opts := range p.Jobs {
		for o, op := range opts {
			term(op.Value, j, o)
		}
	}
	b.WriteString("\nSubject To\n")
	for j, opts := range p.Jobs {
		if len(opts) == 0 {
			continue
		}
		fmt.Fprintf(&b, " one_%d:", j)
		for o := range opts {
			term(1, j, o)
		}
		b.WriteString(" <= 1\n")
		if p.Fixed != nil && p.Fixed[j] >= 0 {
			fmt.Fprintf(&b, " fix_%d: x_%d_%d = 1\n", j, j, p.Fixed[j])
		}
	}
	for t, c := range p.Capacity {
		fmt.Fprintf(&b, " cap_%d: 0 x_cap_%d", t, t)
		for j, opts := range p.Jobs {
			for o, op := range opts {
				if op.Type == t {
					term(float64(op.GPUs), j, o)
				}
			}
		}
		fmt.Fprintf(&b, " <= %d\n", c)
	}
	b.WriteString("Bounds\n")
	for t := range p.Capacity {
		fmt.Fprintf(&b, " x_cap_%d = 0\n", t)
	}
	b.WriteString("Binary\n")
	for j, opts := range p.Jobs {
		for o := range opts {
			fmt.Fprintf(&b, " x_%d_%d\n", j, o)
		}
	}
	b.WriteString("End\n")
	return glpktest.Solve(glpsol, base, b.Bytes(), "INTEGER OPTIMAL")
}
