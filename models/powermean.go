package models

import "math"

// Bounds of the exponents the power mean computes with plain powers. Inside
// them the terms (v + offset)^p of values v + offset in [10⁻³, 10³] stay far
// from overflow and underflow, so the sum of terms is computed as written.
// Outside them PowerMean changes the form of its terms (see NewPowerMean).
const (
	// MaxPlainExponent is the largest |p| computed with plain powers.
	MaxPlainExponent = 16
	// MinPlainExponent is the smallest non-zero |p| computed with plain
	// powers.
	MinPlainExponent = 1e-3
	// GeometricExponent is the |p| below which the power mean is taken as
	// the geometric mean (its limit at p = 0): for values whose logarithms
	// span a range L, M_p/M_0 − 1 is about |p|·L²/8, below 10⁻¹⁰ for
	// values in [10⁻³, 10³].
	GeometricExponent = 1e-12
)

// powerForm is how a PowerMean computes its terms.
type powerForm int

const (
	formGeometric powerForm = iota // log(max(v, offset))
	formPlain                      // (v + offset)^p
	formSmall                      // expm1(p·log(v + offset))/p
	formCentered                   // exp(p·(log(v + offset) − c))
)

// PowerMean is the power mean of Pollux's fitness,
//
//	M_p(v) = ((1/n) Σ (v_i + offset)^p)^(1/p),  M_0(v) = (Π max(v_i, offset))^(1/n),
//
// kept as a sum of one term per value so that a search can change one
// value and update the sum in O(1). It is computed stably for every
// finite p: terms never overflow to NaN and distinct values stay
// distinguishable where the mean depends on them.
//
// The terms of the centred form (|p| > MaxPlainExponent) are relative to
// a centre c (from Center): they are exp(p·(log(v + offset) − c)), at most
// 1 for the values the centre was taken from. Sums of terms with different
// centres must not be compared; Mean picks the centre itself.
type PowerMean struct {
	p, offset float64
	form      powerForm
}

// NewPowerMean returns the power mean with exponent p (finite) whose
// values are shifted by offset > 0 (Pollux adds 10⁻³ to every speedup so
// that a job without GPUs keeps the mean defined). The form of the terms
// depends on p: p = 0 and |p| < GeometricExponent give the geometric mean
// (terms log(max(v, offset))); MinPlainExponent ≤ |p| ≤ MaxPlainExponent
// plain powers (v + offset)^p; smaller |p| the terms
// expm1(p·log(v + offset))/p, which keep the differences that plain powers
// round away; larger |p| centred terms (see PowerMean).
func NewPowerMean(p, offset float64) PowerMean {
	pm := PowerMean{p: p, offset: offset}
	switch a := math.Abs(p); {
	case a < GeometricExponent:
		pm.form = formGeometric
	case a < MinPlainExponent:
		pm.form = formSmall
	case a <= MaxPlainExponent:
		pm.form = formPlain
	default:
		pm.form = formCentered
	}
	return pm
}

// P is the exponent.
func (pm PowerMean) P() float64 { return pm.p }

// Increasing reports whether a larger sum of terms means a larger mean
// (false for the plain and centred forms with p < 0).
func (pm PowerMean) Increasing() bool {
	return pm.p > 0 || pm.form == formGeometric || pm.form == formSmall
}

// Centered reports whether terms depend on a centre (|p| > MaxPlainExponent).
func (pm PowerMean) Centered() bool { return pm.form == formCentered }

// Center returns the centre for terms of values: for the centred form the
// logarithm of the largest (p > 0) or smallest (p < 0) shifted value, so
// that every one of their terms is at most 1 and the extreme one is 1;
// 0 for the other forms, which ignore it.
func (pm PowerMean) Center(values []float64) float64 {
	if pm.form != formCentered || len(values) == 0 {
		return 0
	}
	c := values[0]
	for _, v := range values[1:] {
		if (pm.p > 0) == (v > c) {
			c = v
		}
	}
	return math.Log(c + pm.offset)
}

// Term is value v's term at centre c (see Center; ignored except by the
// centred form).
func (pm PowerMean) Term(v, c float64) float64 {
	switch pm.form {
	case formGeometric:
		return math.Log(math.Max(v, pm.offset))
	case formSmall:
		return math.Expm1(pm.p*math.Log(v+pm.offset)) / pm.p
	case formCentered:
		return math.Exp(pm.p * (math.Log(v+pm.offset) - c))
	}
	switch pm.p {
	case -1:
		return 1 / (v + pm.offset)
	case 1:
		return v + pm.offset
	}
	return math.Pow(v+pm.offset, pm.p)
}

// FromSum turns a sum of n terms at centre c into the mean.
func (pm PowerMean) FromSum(sum float64, n int, c float64) float64 {
	J := float64(n)
	switch pm.form {
	case formGeometric:
		return math.Exp(sum / J)
	case formSmall:
		return math.Exp(math.Log1p(pm.p*sum/J) / pm.p)
	case formCentered:
		return math.Exp(c + math.Log(sum/J)/pm.p)
	}
	return math.Pow(sum/J, 1/pm.p)
}

// Mean is the power mean of values, summing their terms in order.
func (pm PowerMean) Mean(values []float64) float64 {
	c := pm.Center(values)
	sum := 0.0
	for _, v := range values {
		sum += pm.Term(v, c)
	}
	return pm.FromSum(sum, len(values), c)
}

// RestartFactor is Pollux's re-allocation factor (T − R·δ)/(T + δ),
// clamped at 0 from below: the share of a job's life spent training if it
// is re-allocated once more now, for a job of age T (seconds since
// submission) that has restarted R times with restart delay δ. Pollux
// multiplies the speedup of any changed allocation by it.
func RestartFactor(age float64, restarts int, delay float64) float64 {
	return math.Max(age-float64(restarts)*delay, 0) / (age + delay)
}
