package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// TestMinimizeLBFGSMatchesGonum checks that the fit's in-goroutine driver
// takes exactly the steps of optimize.Minimize with the same settings: the
// same final location, bit for bit, on fits of random observation sets,
// cold and warm started.
func TestMinimizeLBFGSMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	settings := func() *optimize.Settings {
		return &optimize.Settings{
			GradientThreshold: fitGradTol,
			MajorIterations:   fitMajorIters,
			FuncEvaluations:   fitFuncEvals,
			Converger:         &optimize.FunctionConverge{Absolute: fitConvergeAbs, Relative: fitConvergeRel, Iterations: fitConvergeIters},
		}
	}
	for trial := 0; trial < 60; trial++ {
		truth := Params{0.02 + 0.1*rng.Float64(), 0.001 + 0.01*rng.Float64(), 0.05 * rng.Float64(), 0.01 * rng.Float64(),
			0.2 * rng.Float64(), 0.02 * rng.Float64(), 1 + 9*rng.Float64()}
		n := 1 + rng.IntN(len(fitShapes))
		obs := synthObs(truth, fitShapes[:n], []float64{16, 32, 64}[:1+rng.IntN(3)], 0.05*rng.Float64(), rng)
		pr := newFitProblem(obs)
		start := Params{0.1, 0.01, 0.1, 0.01, 0.1, 0.01, GammaMin + startGammaOffset}
		if trial%2 == 1 {
			start = truth
		}
		sv := start.vec()
		u0 := make([]float64, len(pr.free))
		for j, i := range pr.free {
			u0[j] = toFree(i, sv[i])
		}
		got := minimizeLBFGS(pr.objective(), pr.gradient, u0)
		res, _ := optimize.Minimize(optimize.Problem{Func: pr.objective(), Grad: pr.gradient}, u0, settings(), &optimize.LBFGS{})
		if res == nil || len(res.X) != len(got) {
			t.Fatalf("trial %d: gonum gave %v", trial, res)
		}
		for j := range got {
			if math.Float64bits(got[j]) != math.Float64bits(res.X[j]) {
				t.Fatalf("trial %d: x[%d] = %v, gonum's Minimize %v", trial, j, got[j], res.X[j])
			}
		}
	}
}
