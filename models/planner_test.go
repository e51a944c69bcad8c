package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// inOrderBest is the optimiser written out plainly: every geometric
// candidate split and evaluated in order, the first of the largest
// goodputs kept (a zero-goodput configuration of candidate 0 if that one
// is infeasible). Best and Planner.Best must return exactly its result.
func inOrderBest(md *Model, n, k int) Config {
	if k <= 0 {
		return Config{}
	}
	if md.FixedBatch > 0 {
		m, s, _ := md.Limits.Split(k, float64(md.FixedBatch))
		return md.Evaluate(n, k, max(m, 1), s)
	}
	lo := math.Max(float64(md.Limits.InitBatch), float64(k*md.Limits.MinLocal))
	step := (math.Log(float64(md.Limits.MaxBatch)) - math.Log(lo)) / (DefaultCandidates - 1)
	var best Config
	first := true
	for i := 0; i < DefaultCandidates; i++ {
		batch := math.Exp(math.Log(lo) + step*float64(i))
		switch i {
		case 0:
			batch = lo
		case DefaultCandidates - 1:
			batch = float64(md.Limits.MaxBatch)
		}
		m, s, ok := md.Limits.Split(k, batch)
		if !ok {
			if first {
				best, first = Config{Nodes: n, GPUs: k, Local: m, Accum: s, Batch: k * m * (s + 1)}, false
			}
			continue
		}
		if c := md.Evaluate(n, k, m, s); first || c.Goodput > best.Goodput {
			best, first = c, false
		}
	}
	return best
}

func randomModel(rng *rand.Rand) Model {
	p := Params{rng.Float64() * 0.1, rng.Float64() * 0.01, rng.Float64() * 0.3, rng.Float64() * 0.05,
		rng.Float64(), rng.Float64() * 0.1, 1 + 9*rng.Float64()}
	switch rng.IntN(4) {
	case 0:
		p.Gamma = 1
	case 1:
		p.AlphaR, p.BetaR = 1e-8, 1e-8
	}
	m0 := 16 << rng.IntN(5)
	lim := Limits{InitBatch: m0, MaxBatch: m0 * (2 + rng.IntN(64)), MinLocal: 1 + rng.IntN(16), MaxLocal: 16 + rng.IntN(256)}
	md := Model{Params: p, Limits: lim, Grad: GradStats{Sqr: rng.Float64(), Var: rng.Float64() * math.Pow(10, 3*rng.Float64())}}
	if rng.IntN(8) == 0 {
		md.FixedBatch = m0 * (1 + rng.IntN(4))
	}
	return md
}

// TestPlannerMatchesInOrderBest checks Best and Planner.Best (whose
// throughput bound skips candidates) against the plain optimiser on random
// models, exactly, also when the gradient statistics change under one
// planner.
func TestPlannerMatchesInOrderBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 300; trial++ {
		md := randomModel(rng)
		pl := NewPlanner(md, 32)
		for q := 0; q < 40; q++ {
			if q%10 == 9 {
				md.Grad = GradStats{Sqr: rng.Float64(), Var: rng.Float64() * math.Pow(10, 3*rng.Float64())}
			}
			k := 1 + rng.IntN(40)
			n := 1 + rng.IntN(min(k, 8))
			want := inOrderBest(&md, n, k)
			if got := md.Best(n, k); got != want {
				t.Fatalf("trial %d: Best(%d, %d) = %+v, want %+v", trial, n, k, got, want)
			}
			if got := pl.Best(md.Grad, n, k); got != want {
				t.Fatalf("trial %d: Planner.Best(%d, %d) = %+v, want %+v", trial, n, k, got, want)
			}
		}
	}
}

// TestPlannerGrow keeps what a planner computed and extends its range.
func TestPlannerGrow(t *testing.T) {
	md := *testModel()
	pl := NewPlanner(md, 4)
	before := pl.Best(md.Grad, 1, 4)
	g := pl.Grow(16)
	if g.MaxGPUs() != 16 || pl.Grow(2) != pl {
		t.Fatalf("Grow: max %d", g.MaxGPUs())
	}
	if got := g.Best(md.Grad, 1, 4); got != before {
		t.Errorf("grown planner: %+v, want %+v", got, before)
	}
	if got, want := g.Best(md.Grad, 3, 12), md.Best(3, 12); got != want {
		t.Errorf("grown planner on 12 GPUs: %+v, want %+v", got, want)
	}
}
