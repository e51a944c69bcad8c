package models

import "math"

// Params are the system throughput parameters θ_sys of one job.
//
// AlphaC and BetaC model the compute time of one micro-step as a linear
// function of the per-GPU batch size. AlphaR/BetaR model the gradient
// synchronisation time when all GPUs are on one node, AlphaN/BetaN when they
// span several nodes; the beta terms grow with the number of GPUs beyond two
// (ring all-reduce retrogression). Gamma in [1, 10] models how much compute
// and synchronisation overlap: 1 is no overlap (times add up), large values
// approach perfect overlap (the maximum of the two).
type Params struct {
	AlphaC, BetaC float64
	AlphaR, BetaR float64
	AlphaN, BetaN float64
	Gamma         float64
}

// GammaMin and GammaMax bound the overlap exponent γ.
const (
	GammaMin = 1.0
	GammaMax = 10.0
)

// TGrad is the time of one forward/backward micro-step at per-GPU batch m.
func (p Params) TGrad(m float64) float64 {
	return p.AlphaC + p.BetaC*m
}

// TSync is the gradient synchronisation time on k GPUs spread over n nodes.
// It is zero on a single GPU.
func (p Params) TSync(n, k int) float64 {
	if k <= 1 {
		return 0
	}
	retro := math.Max(float64(k-2), 0)
	if n <= 1 {
		return p.AlphaR + p.BetaR*retro
	}
	return p.AlphaN + p.BetaN*retro
}

// TIter is the time of one optimizer step with s accumulation micro-steps
// before the synchronised one: s·T_grad + (T_grad^γ + T_sync^γ)^(1/γ).
func (p Params) TIter(n, k int, m float64, s int) float64 {
	tg := p.TGrad(m)
	return float64(s)*tg + overlap(tg, p.TSync(n, k), p.Gamma)
}

// Throughput is the number of training samples processed per second,
// M / T_iter with M = k·m·(s+1).
func (p Params) Throughput(n, k int, m float64, s int) float64 {
	t := p.TIter(n, k, m, s)
	if t <= 0 {
		return 0
	}
	return float64(k) * m * float64(s+1) / t
}

// overlap combines compute time a and synchronisation time b with the
// γ-norm (a^γ + b^γ)^(1/γ), computed without overflow for large γ.
func overlap(a, b, gamma float64) float64 {
	if b <= 0 {
		return a
	}
	if a <= 0 {
		return b
	}
	if gamma == 1 {
		return a + b
	}
	// With hi = max(a, b) and lo = min(a, b):
	// (a^γ + b^γ)^(1/γ) = hi·(1 + (lo/hi)^γ)^(1/γ).
	hi, lo := a, b
	if lo > hi {
		hi, lo = lo, hi
	}
	t := math.Exp(gamma * math.Log(lo/hi))
	return hi * math.Exp(math.Log1p(t)/gamma)
}

// logOverlap is overlap(a, b, γ) for a > 0, b ≥ 0 computed in log space
// from la = ln a and lb = ln b (unused if b = 0), with ln ov and the
// shares wa = a^γ/(a^γ + b^γ), wb = b^γ/(a^γ + b^γ) of its two terms: the
// partial derivatives of the overlap are wa·ov/a, wb·ov/b and
// ov·(wa·ln a + wb·ln b − ln ov)/γ. The fit uses it; it equals overlap up
// to rounding.
func logOverlap(a, b, la, lb, gamma float64) (ov, lov, wa, wb float64) {
	if b <= 0 {
		return a, la, 1, 0
	}
	lhi, llo, aHi := la, lb, true
	if lb > la {
		lhi, llo, aHi = lb, la, false
	}
	t := math.Exp(gamma * (llo - lhi))
	lov = lhi + math.Log1p(t)/gamma
	whi, wlo := 1/(1+t), t/(1+t)
	if aHi {
		return math.Exp(lov), lov, whi, wlo
	}
	return math.Exp(lov), lov, wlo, whi
}
