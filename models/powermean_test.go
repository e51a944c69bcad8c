package models

import (
	"math"
	"testing"
)

// naivePowerMean is the textbook formula, exact where nothing overflows.
func naivePowerMean(p, off float64, v []float64) float64 {
	if p == 0 {
		s := 0.0
		for _, x := range v {
			s += math.Log(math.Max(x, off))
		}
		return math.Exp(s / float64(len(v)))
	}
	s := 0.0
	for _, x := range v {
		s += math.Pow(x+off, p)
	}
	return math.Pow(s/float64(len(v)), 1/p)
}

func TestPowerMeanMatchesFormula(t *testing.T) {
	v := []float64{0, 0.1, 0.25, 0.5, 1.2}
	for _, p := range []float64{-16, -10, -2, -1, -0.5, 0, 0.5, 1, 2, 16, 20, -20, 1e-4, -1e-4, 1e-13, 50, -50} {
		got := NewPowerMean(p, 1e-3).Mean(v)
		want := naivePowerMean(p, 1e-3, v)
		if p != 0 && math.Abs(p) < GeometricExponent {
			want = naivePowerMean(0, 1e-3, v)
		}
		if rel := math.Abs(got-want) / want; !(rel < 1e-9) {
			t.Errorf("p=%v: mean %v, formula %v (rel %v)", p, got, want, rel)
		}
	}
}

// TestPowerMeanHarmonicExact pins the default p = −1 to the bits of the
// plain formula, which the reference numbers depend on.
func TestPowerMeanHarmonicExact(t *testing.T) {
	v := []float64{0, 0.1, 0.25, 0.5, 1.2}
	pm := NewPowerMean(-1, 1e-3)
	sum := 0.0
	for _, x := range v {
		sum += 1 / (x + 1e-3)
	}
	if got, want := pm.Mean(v), math.Pow(sum/5, -1); got != want {
		t.Errorf("p=-1: %v, want exactly %v", got, want)
	}
}

// TestPowerMeanExtreme: for every finite p the mean is finite, lies
// between the smallest and largest shifted value, approaches the max
// (p → +∞), the min (p → −∞) and the geometric mean (p → 0), and still
// tells a better vector from a worse one where the mean depends on it.
func TestPowerMeanExtreme(t *testing.T) {
	const off = 1e-3
	v := []float64{0, 0.02, 0.25, 3}
	lo, hi := off, 3+off
	geo := naivePowerMean(0, off, v)
	for _, p := range []float64{200, -200, 1000, -1000, 1e308, -1e308, math.MaxFloat64, -math.MaxFloat64,
		1e-300, -1e-300, 5e-324, 1e-20, -1e-9, 1e-3, 16.0001} {
		pm := NewPowerMean(p, off)
		m := pm.Mean(v)
		if math.IsNaN(m) || math.IsInf(m, 0) || m < lo*(1-1e-12) || m > hi*(1+1e-12) {
			t.Fatalf("p=%v: mean %v outside [%v, %v]", p, m, lo, hi)
		}
		switch {
		case p >= 1000:
			if math.Abs(m-hi)/hi > 0.01 {
				t.Errorf("p=%v: mean %v, want about the max %v", p, m, hi)
			}
		case p <= -1000:
			if math.Abs(m-lo)/lo > 0.01 {
				t.Errorf("p=%v: mean %v, want about the min %v", p, m, lo)
			}
		case math.Abs(p) < 1e-9:
			if math.Abs(m-geo)/geo > 1e-6 {
				t.Errorf("p=%v: mean %v, want the geometric mean %v", p, m, geo)
			}
		}
		// Raising the extreme value that decides the mean raises it.
		better := append([]float64(nil), v...)
		if p > 0 {
			better[3] = 3.5
		} else {
			better[0] = 0.01
		}
		if mb := pm.Mean(better); !(mb > m) && math.Abs(p) >= 1e-300 {
			t.Errorf("p=%v: raising the deciding value gives %v, not above %v", p, mb, m)
		}
	}
}

// TestPowerMeanSums: terms at a fixed centre sum to the mean (the O(1)
// update local search relies on), and a larger sum is better exactly when
// Increasing says so.
func TestPowerMeanSums(t *testing.T) {
	v := []float64{0, 0.3, 0.6}
	w := []float64{0, 0.3, 0.9} // better for every p
	for _, p := range []float64{-1000, -20, -1, -1e-6, 0, 1e-6, 1, 20, 1000} {
		pm := NewPowerMean(p, 1e-3)
		c := pm.Center(v)
		sv, sw := 0.0, 0.0
		for i := range v {
			sv += pm.Term(v[i], c)
			sw += pm.Term(w[i], c)
		}
		if got, want := pm.FromSum(sv, len(v), c), pm.Mean(v); math.Abs(got-want) > 1e-12*want {
			t.Errorf("p=%v: FromSum %v, Mean %v", p, got, want)
		}
		if (sw > sv) != pm.Increasing() {
			t.Errorf("p=%v: sums %v → %v, Increasing %v", p, sv, sw, pm.Increasing())
		}
		if !(pm.Mean(w) >= pm.Mean(v)) {
			t.Errorf("p=%v: mean of the better vector %v below %v", p, pm.Mean(w), pm.Mean(v))
		}
	}
}

func TestRestartFactor(t *testing.T) {
	if got := RestartFactor(270, 2, 30); got != 210.0/300 {
		t.Errorf("RestartFactor(270, 2, 30) = %v", got)
	}
	if got := RestartFactor(30, 5, 30); got != 0 {
		t.Errorf("clamped factor = %v", got)
	}
}
