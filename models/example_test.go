package models_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/models"
)

// A job's agent knows its throughput parameters and gradient noise; the
// optimiser picks the per-GPU batch size and accumulation steps that
// maximise goodput on an allocation.
func ExampleModel_Best() {
	md := &models.Model{
		Params: models.Params{AlphaC: 0.02, BetaC: 0.004, AlphaR: 0.05, BetaR: 0.01, AlphaN: 0.15, BetaN: 0.02, Gamma: 1.5},
		Grad:   models.GradStats{Sqr: 1, Var: 20},
		Limits: models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 32, MaxLocal: 256},
	}
	c := md.Best(2, 8) // 8 GPUs over 2 nodes
	fmt.Printf("m=%d s=%d M=%d efficiency=%.2f goodput=%.0f samples/s\n", c.Local, c.Accum, c.Batch, c.Efficiency, c.Goodput)
	// Output: m=132 s=0 M=1056 efficiency=0.74 goodput=1175 samples/s
}

// Fit recovers θ_sys from measured iteration times.
func ExampleFit() {
	truth := models.Params{AlphaC: 0.05, BetaC: 0.002, AlphaR: 0.03, BetaR: 0.004, AlphaN: 0.12, BetaN: 0.01, Gamma: 2}
	var obs []models.Observation
	for _, sh := range [][2]int{{1, 1}, {1, 2}, {1, 4}, {2, 4}, {2, 8}, {4, 16}} {
		for _, m := range []float64{16, 64} {
			obs = append(obs, models.Observation{Nodes: sh[0], GPUs: sh[1], Local: m,
				TIter: truth.TIter(sh[0], sh[1], m, 0), TGrad: truth.TGrad(m)})
		}
	}
	p, _ := models.Fit(obs, models.FitOptions{})
	fmt.Printf("mean error %.1f%%; predicted T_iter on 3 nodes x 12 GPUs at m=32: %.3f s (true %.3f s)\n",
		100*models.MeanRelError(p, obs), p.TIter(3, 12, 32, 0), truth.TIter(3, 12, 32, 0))
	// Output: mean error 0.0%; predicted T_iter on 3 nodes x 12 GPUs at m=32: 0.248 s (true 0.248 s)
}

// Speedup compares the best goodput on an allocation with the best on the
// fair share (the baseline Pollux's fitness uses).
func ExampleSpeedup() {
	md := &models.Model{
		Params: models.Params{AlphaC: 0.02, BetaC: 0.004, AlphaR: 0.05, BetaR: 0.01, AlphaN: 0.15, BetaN: 0.02, Gamma: 1.5},
		Grad:   models.GradStats{Sqr: 1, Var: 20},
		Limits: models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 32, MaxLocal: 256},
	}
	n, k := models.FairShare(64, 16) // 16 jobs on 64 GPUs: 4 GPUs on one node
	sp := models.NewSpeedup(md, n, k, nil)
	fmt.Printf("1 GPU %.2f, 4 GPUs %.2f, 8 GPUs on 2 nodes %.2f\n", sp.At(1, 1), sp.At(1, 4), sp.At(2, 8))
	// Output: 1 GPU 0.29, 4 GPUs 1.00, 8 GPUs on 2 nodes 1.42
}
