package sia

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/internal/glpktest"
	"github.com/polluxsim/polluxsim/policies"
)

// siaProblem builds a round shaped like Sia's: types of nodes × GPUs per
// node (4 or 8), each job's candidate configurations per type (1, 2, 4, …
// GPUs on one node, then whole nodes up to a cap), a goodput that grows
// with diminishing returns at a per-type speed, normalised to the job's
// slowest configuration, restart-discounted except on its current
// configuration, and the value λ_n − round(s^−0.5, 2); some jobs fixed.
func siaProblem(rng *rand.Rand, jobs int, nodes, perNode []int) *Problem {
	T := len(nodes)
	p := &Problem{Capacity: make([]int, T), Fixed: make([]int, jobs)}
	for t := range nodes {
		p.Capacity[t] = nodes[t] * perNode[t]
	}
	used := make([]int, T)
	for j := 0; j < jobs; j++ {
		limit := []int{4, 8, 16, 32, 64, 256}[rng.IntN(6)]
		scaling := 0.3 + 0.65*rng.Float64() // goodput ∝ k^scaling, then saturating
		knee := 2 + 60*rng.Float64()
		type cfg struct {
			t, k int
			g    float64
		}
		var cs []cfg
		for t := 0; t < T; t++ {
			if rng.IntN(5) == 0 {
				continue // no table for this type
			}
			speed := 0.5 + 2*rng.Float64()
			var ks []int
			for k := 1; k < perNode[t]; k *= 2 {
				ks = append(ks, k)
			}
			for n := 1; n <= nodes[t]; n++ {
				ks = append(ks, n*perNode[t])
			}
			for _, k := range ks {
				if k > limit {
					break
				}
				x := float64(k)
				g := speed * math.Pow(x, scaling) / (1 + x/knee)
				if k > perNode[t] {
					g *= 0.9 // crossing nodes costs
				}
				cs = append(cs, cfg{t, k, g})
			}
		}
		lo := math.Inf(1)
		for _, c := range cs {
			lo = math.Min(lo, c.g)
		}
		cur := -1
		if len(cs) > 0 && rng.IntN(2) == 0 {
			cur = rng.IntN(len(cs))
		}
		factor := 0.5 + 0.5*rng.Float64()
		var opts []Option
		for o, c := range cs {
			s := c.g / lo
			if o != cur {
				s *= factor
			}
			a := math.Round(math.Pow(math.Max(s, zeroGain), -0.5)*100) / 100
			opts = append(opts, Option{Type: c.t, GPUs: c.k, Value: 1.1 - a})
		}
		p.Jobs = append(p.Jobs, opts)
		p.Fixed[j] = -1
		if cur >= 0 && rng.IntN(10) == 0 && used[cs[cur].t]+cs[cur].k <= p.Capacity[cs[cur].t] {
			used[cs[cur].t] += cs[cur].k
			p.Fixed[j] = cur
		}
	}
	return p
}

// The branch and bound agrees with the dynamic program on Sia-shaped
// rounds the dynamic program can still solve (64–128 GPUs, 20–80 jobs).
func TestBranchAndBoundMatchesDPOnSiaRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for n := 0; n < 16; n++ {
		s := 1 + n%2
		p := siaProblem(rng, 20+rng.IntN(60), []int{6 * s, 2 * s, 3 * s}, []int{4, 8, 8})
		dp, err := SolveDP(p, 1<<27)
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

// TestSolveMatchesGLPKAt2000GPUs compares the optimum with GLPK's MIP
// solver on Sia rounds of 1,984 GPUs of three types (the benchmark's
// cluster and jobs) with 600 jobs, beyond the dynamic program.
func TestSolveMatchesGLPKAt2000GPUs(t *testing.T) {
	glpsol := glpktest.Path(t)
	if testing.Short() {
		t.Skip("-short: skipping the 2,000-GPU comparison with glpsol")
	}
	dir := t.TempDir()
	for _, jobs := range []int{600} {
		c, js := benchRound(31, jobs)
		pol := New(DefaultOptions(), policies.Env{RestartDelay: 30})
		p, _ := pol.problem(60, c, newRound(c), js)
		if _, err := SolveDP(p, dpCells); !errors.Is(err, errTooLarge) {
			t.Fatalf("%d jobs: within the dynamic program's reach (%v)", jobs, err)
		}
		sol, err := Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := solveGLPK(glpsol, filepath.Join(dir, fmt.Sprintf("p%d", jobs)), p)
		if err != nil {
			t.Fatal(err)
		}
		checkSolution(t, p, sol, want, fmt.Sprintf("%d jobs, capacities %v, against glpsol", jobs, p.Capacity))
	}
}
