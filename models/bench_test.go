package models

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBestConfig: one (m, s) optimisation on 8 GPUs over 2 nodes.
func BenchmarkBestConfig(b *testing.B) {
	md := testModel()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		md.Best(2, 8)
	}
}

// BenchmarkFitThroughput: a fit of θ_sys on 30 observations (with noise).
func BenchmarkFitThroughput(b *testing.B) {
	truth := Params{0.05, 0.002, 0.03, 0.004, 0.12, 0.01, 2.5}
	obs := synthObs(truth, fitShapes[:10], []float64{8, 32, 128}, 0.05, rand.New(rand.NewPCG(1, 1)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Fit(obs, FitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitWarm: the same fit started from the previous solution, as
// the simulator's agent does when it refits after a new observation.
func BenchmarkFitWarm(b *testing.B) {
	truth := Params{0.05, 0.002, 0.03, 0.004, 0.12, 0.01, 2.5}
	obs := synthObs(truth, fitShapes[:10], []float64{8, 32, 128}, 0.05, rand.New(rand.NewPCG(1, 1)))
	prev, _ := Fit(obs[:len(obs)-1], FitOptions{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Fit(obs, FitOptions{Start: &prev}); err != nil {
			b.Fatal(err)
		}
	}
}
