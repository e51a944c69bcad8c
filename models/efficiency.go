package models

// GradStats are the gradient statistics a job measures during training:
// Sqr is the squared norm of the true gradient |g|², Var the trace of the
// per-sample-batch gradient covariance tr(Σ), both at the initial batch size
// M0 (and pre-conditioned when the optimizer uses a pre-conditioner).
type GradStats struct {
	Sqr, Var float64
}

// PGNS returns the pre-conditioned gradient noise scale φ = M0·Var/Sqr.
// It returns 0 when Sqr is not positive.
func (g GradStats) PGNS(m0 float64) float64 {
	if g.Sqr <= 0 {
		return 0
	}
	return m0 * g.Var / g.Sqr
}

// Gain is the progress one step at total batch M makes, in units of steps
// at the initial batch M0: (Var+Sqr)/(Var/S+Sqr) with S = M/M0. It is 1 at
// M = M0 and at most S. Degenerate statistics (a non-positive denominator)
// give a gain of 1.
func (g GradStats) Gain(m0, batch float64) float64 {
	scale := batch / m0
	denom := g.Var/scale + g.Sqr
	if denom <= 0 || scale <= 0 {
		return 1
	}
	return (g.Var + g.Sqr) / denom
}

// InverseGain splits the steps one unit of progress takes, 1/Gain, into a
// part that does not depend on the batch size and one inversely
// proportional to it: 1/Gain(M0, M) = fixed + scaled·M0/M for every M > 0,
// with fixed = Sqr/(Var+Sqr) and scaled = Var/(Var+Sqr). Sums of these over
// epochs give the steps at any batch size from two numbers. It holds for
// non-negative statistics; when both are zero (Gain is 1) it returns 1, 0.
func (g GradStats) InverseGain() (fixed, scaled float64) {
	total := g.Var + g.Sqr
	if !(total > 0) {
		return 1, 0
	}
	return g.Sqr / total, g.Var / total
}

// Efficiency is the statistical efficiency at total batch M relative to M0:
// Gain/S, which equals (φ + M0)/(φ + M).
func (g GradStats) Efficiency(m0, batch float64) float64 {
	if batch <= 0 {
		return 0
	}
	return g.Gain(m0, batch) * m0 / batch
}
