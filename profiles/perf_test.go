package profiles

import (
	"math"
	"testing"
)

// Perf agrees with the Truth it is built on: an accumulation step costs
// the compute part of a step, efficiency is gain over the batch ratio.
func TestPerfFromTruth(t *testing.T) {
	app, err := Default().App("cifar10")
	if err != nil {
		t.Fatal(err)
	}
	placement := []int{4, 0, 2}
	step, sync := app.Truth.Step(placement, 64)
	for accum := 0; accum < 3; accum++ {
		pf := app.Perf(placement, 64, accum, 5)
		if pf.Step != step || pf.Sync != sync || pf.Batch != float64(6*64*(accum+1)) {
			t.Fatalf("accum %d: %+v", accum, pf)
		}
		if want := step + float64(accum)*(step-sync); math.Abs(pf.Iter-want) > 1e-15*want {
			t.Errorf("accum %d: iter %v, want %v", accum, pf.Iter, want)
		}
		g := app.Truth.Grad(pf.Batch, 5)
		m0 := float64(app.Limits.InitBatch)
		s := pf.Batch / m0
		eff := (g.Var + g.Sqr) / (g.Var/s + g.Sqr) / s
		if math.Abs(pf.Efficiency-eff) > 1e-12 || math.Abs(pf.Goodput-pf.Batch/pf.Iter*eff) > 1e-9*pf.Goodput ||
			math.Abs(pf.Rate-eff*s/pf.Iter) > 1e-12*pf.Rate {
			t.Errorf("accum %d: %+v, efficiency %v", accum, pf, eff)
		}
	}
}
