package models

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// grid of allocation shapes used by the fit tests: (nodes, GPUs).
var fitShapes = [][2]int{{1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 2}, {2, 4}, {2, 8}, {3, 6}, {3, 12}, {4, 8}, {4, 16}}

func synthObs(p Params, shapes [][2]int, locals []float64, noise float64, rng *rand.Rand) []Observation {
	var obs []Observation
	for _, sh := range shapes {
		for _, m := range locals {
			f := func() float64 {
				if noise == 0 {
					return 1
				}
				return math.Exp(noise * rng.NormFloat64())
			}
			obs = append(obs, Observation{
				Nodes: sh[0], GPUs: sh[1], Local: m,
				TIter: p.TIter(sh[0], sh[1], m, 0) * f(),
				TGrad: p.TGrad(m) * f(),
			})
		}
	}
	return obs
}

func TestFitGradientMatchesFiniteDifferences(t *testing.T) {
	truth := Params{0.05, 0.002, 0.03, 0.004, 0.12, 0.01, 2.5}
	obs := synthObs(truth, fitShapes, []float64{16, 64}, 0.05, rand.New(rand.NewPCG(1, 1)))
	obs[3].Accum = 2
	obs[3].TIter *= 2.5
	pr := newFitProblem(obs)
	at := Params{0.07, 0.003, 0.02, 0.006, 0.09, 0.02, 3.1}
	var g [nParams]float64
	pr.lossGrad(at, &g)
	v := at.vec()
	for i := 0; i < nParams; i++ {
		h := 1e-7 * math.Max(1, math.Abs(v[i]))
		up, dn := v, v
		up[i] += h
		dn[i] -= h
		fd := (pr.loss(paramsOf(up)) - pr.loss(paramsOf(dn))) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("d loss / d param %d: analytic %.8g, numeric %.8g", i, g[i], fd)
		}
	}
}

// TestFitRecovery: observations from a known θ_sys with 5 % multiplicative
// noise; the fitted model predicts held-out configurations within 5 %
// (median) of the truth.
func TestFitRecovery(t *testing.T) {
	truth := Params{AlphaC: 0.05, BetaC: 0.002, AlphaR: 0.03, BetaR: 0.004, AlphaN: 0.12, BetaN: 0.01, Gamma: 2.5}
	rng := rand.New(rand.NewPCG(7, 7))
	obs := synthObs(truth, fitShapes, []float64{8, 32, 128}, 0.05, rng)
	fitted, err := Fit(obs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held := [][2]int{{1, 1}, {2, 6}, {3, 9}, {4, 12}, {5, 20}, {8, 32}, {1, 4}, {2, 3}}
	var errs []float64
	for _, sh := range held {
		for _, m := range []float64{12, 48, 96, 200} {
			want := truth.TIter(sh[0], sh[1], m, 1)
			got := fitted.TIter(sh[0], sh[1], m, 1)
			errs = append(errs, math.Abs(got-want)/want)
		}
	}
	sort.Float64s(errs)
	med := errs[len(errs)/2]
	t.Logf("held-out median relative error %.2f%%, max %.2f%%; fitted %+v", 100*med, 100*errs[len(errs)-1], fitted)
	if med > 0.05 {
		t.Errorf("median held-out error %.3f > 5%%", med)
	}
}

func TestFitBoundsAndPriors(t *testing.T) {
	truth := Params{0.05, 0.002, 0.03, 0.004, 0.12, 0.01, 2.5}
	// Only single-GPU observations at one batch size: nothing about
	// synchronisation is known, so the model stays optimistic.
	obs := []Observation{{Nodes: 1, GPUs: 1, Local: 32, TIter: truth.TIter(1, 1, 32, 0), TGrad: truth.TGrad(32)}}
	p, err := Fit(obs, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.AlphaR > 1e-6 || p.BetaR > 1e-6 || p.AlphaN > 1e-6 || p.BetaN > 1e-6 {
		t.Errorf("unexplored sync parameters not at zero: %+v", p)
	}
	near(t, "alpha_c prior", p.AlphaC, truth.TGrad(32)/2, 1e-9)
	// Single node, up to 2 GPUs: retrogression frozen, node pair ≥ 1.1 local.
	obs = synthObs(truth, [][2]int{{1, 1}, {1, 2}}, []float64{16, 64}, 0, nil)
	p, _ = Fit(obs, FitOptions{})
	if p.BetaR > 1e-6 {
		t.Errorf("beta_r fitted without >2 GPUs: %+v", p)
	}
	if p.AlphaN < 1.1*p.AlphaR-1e-12 || p.AlphaR <= 1e-6 {
		t.Errorf("node prior not applied: %+v", p)
	}
	for _, q := range []Params{p} {
		for i, v := range q.vec() {
			if v < 0 || math.IsNaN(v) {
				t.Errorf("param %d = %v", i, v)
			}
		}
		if q.Gamma < GammaMin || q.Gamma > GammaMax {
			t.Errorf("gamma %v out of bounds", q.Gamma)
		}
	}
}

func TestFitRejectsBadObservations(t *testing.T) {
	if _, err := Fit(nil, FitOptions{}); err == nil {
		t.Error("empty fit accepted")
	}
	bad := []Observation{{Nodes: 1, GPUs: 1, Local: 8, TIter: math.NaN()}}
	if _, err := Fit(bad, FitOptions{}); err == nil {
		t.Error("NaN iteration time accepted")
	}
	bad = []Observation{{Nodes: 3, GPUs: 2, Local: 8, TIter: 1}}
	if _, err := Fit(bad, FitOptions{}); err == nil {
		t.Error("more nodes than GPUs accepted")
	}
}

func TestFitWarmStart(t *testing.T) {
	truth := Params{0.05, 0.002, 0.03, 0.004, 0.12, 0.01, 2.5}
	obs := synthObs(truth, fitShapes, []float64{8, 32, 128}, 0, nil)
	cold, _ := Fit(obs, FitOptions{})
	warm, _ := Fit(obs, FitOptions{Start: &cold})
	if MeanRelError(warm, obs) > MeanRelError(cold, obs)+1e-6 {
		t.Errorf("warm start worse: %v vs %v", MeanRelError(warm, obs), MeanRelError(cold, obs))
	}
	if e := MeanRelError(cold, obs); e > 0.02 {
		t.Errorf("noise-free fit error %.3f", e)
	}
}

// TestLogOverlapMatchesOverlap: the fit's log-space overlap equals the
// model's overlap up to rounding, and its shares are (a/ov)^γ and
// (b/ov)^γ, on both orders of a and b, at both ends of γ and with b = 0.
func TestLogOverlapMatchesOverlap(t *testing.T) {
	for _, a := range []float64{1e-6, 0.01, 0.3, 2} {
		for _, b := range []float64{0, 1e-7, 0.02, 0.3, 5} {
			for _, g := range []float64{1, 1.0001, 2.5, 9.99} {
				ov, lov, wa, wb := logOverlap(a, b, math.Log(a), math.Log(b), g)
				want := overlap(a, b, g)
				if math.Abs(ov-want) > 1e-12*want || math.Abs(lov-math.Log(want)) > 1e-12 {
					t.Errorf("a=%g b=%g γ=%g: ov %v (ln %v), overlap %v", a, b, g, ov, lov, want)
				}
				wantA, wantB := math.Pow(a/want, g), 0.0
				if b > 0 {
					wantB = math.Pow(b/want, g)
				}
				if math.Abs(wa-wantA) > 1e-12 || math.Abs(wb-wantB) > 1e-12 || math.Abs(wa+wb-1) > 1e-15 {
					t.Errorf("a=%g b=%g γ=%g: shares %v %v, want %v %v", a, b, g, wa, wb, wantA, wantB)
				}
			}
		}
	}
}
