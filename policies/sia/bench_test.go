package sia

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// benchRound builds one round on a cluster of Sia's three types scaled
// by s (s = 1: 6×4 T4 + 2×8 A100 + 3×8 RTX 2080 Ti, 64 GPUs) with jobs
// jobs of random throughput models that have run before.
func benchRound(s, jobs int) (policies.Cluster, []policies.Job) {
	c := policies.NewCluster(
		policies.Pool{Type: "t4", Nodes: 6 * s, GPUsPerNode: 4},
		policies.Pool{Type: "a100", Nodes: 2 * s, GPUsPerNode: 8},
		policies.Pool{Type: "rtx2080ti", Nodes: 3 * s, GPUsPerNode: 8},
	)
	rng := rand.New(rand.NewPCG(7, uint64(s)))
	lim := models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 16, MaxLocal: 512}
	speed := map[string]float64{"t4": 1, "a100": 3, "rtx2080ti": 1.5}
	js := make([]policies.Job, jobs)
	for i := range js {
		base := models.Params{AlphaC: 0.02 * (0.5 + rng.Float64()), BetaC: 0.0004 * (0.5 + rng.Float64()), AlphaR: 0.01, BetaR: 0.002, AlphaN: 0.05, BetaN: 0.01, Gamma: 1.3}
		tm := map[string]policies.TypeModel{}
		for t, sp := range speed {
			p := base
			p.AlphaC /= sp
			p.BetaC /= sp
			tm[t] = policies.TypeModel{Params: p, Limits: lim}
		}
		js[i] = policies.Job{
			Name: fmt.Sprintf("job-%d", i), App: "cifar10", Age: 3600, Limits: lim,
			Request: policies.Request{GPUs: 1, Batch: 128}, Params: &base,
			Grad: models.GradStats{Sqr: 1, Var: 20 + 200*rng.Float64()}, TypeModels: tm,
			Types: []string{"a100", "rtx2080ti", "t4"},
		}
	}
	return c, js
}

func benchmarkRound(b *testing.B, s, jobs int) {
	c, js := benchRound(s, jobs)
	p := New(DefaultOptions(), policies.Env{RestartDelay: 30})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Schedule(60, c, js)
	}
}

// BenchmarkRound64 is one Sia round on its default 64-GPU cluster with 40
// active jobs.
func BenchmarkRound64(b *testing.B) { benchmarkRound(b, 1, 40) }

// BenchmarkRound128 is one Sia round on the 64-GPU cluster doubled, with
// 80 active jobs.
func BenchmarkRound128(b *testing.B) { benchmarkRound(b, 2, 80) }

// BenchmarkRound2000 is one Sia round on the 64-GPU cluster scaled 31
// times (744 T4, 496 A100, 744 RTX 2080 Ti: 1,984 GPUs) with 600 active
// jobs: beyond the dynamic program, solved by the branch and bound.
func BenchmarkRound2000(b *testing.B) { benchmarkRound(b, 31, 600) }

// BenchmarkSolve2000 is the solver alone on the round of
// BenchmarkRound2000 (the rest of the round estimates 81,600
// configurations' goodputs).
func BenchmarkSolve2000(b *testing.B) {
	c, js := benchRound(31, 600)
	p, _ := New(DefaultOptions(), policies.Env{RestartDelay: 30}).problem(60, c, newRound(c), js)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Solve(p); err != nil {
			b.Fatal(err)
		}
	}
}
