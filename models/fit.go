package models

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Observation is one measured configuration of a job: the allocation shape,
// the per-GPU batch m, the accumulation steps s, the measured time of one
// optimizer step (TIter, including the s accumulation micro-steps) and,
// when known, the time of one compute-only micro-step (TGrad; 0 = unknown).
type Observation struct {
	Nodes, GPUs int
	Local       float64
	Accum       int
	TIter       float64
	TGrad       float64
}

// Regularisation weights of the fit objective (as in the reference): a pull
// of γ towards 1, which keeps the α/β terms identifiable, and a penalty on
// the retrogression terms relative to their constant terms, which prefers
// optimistic scaling when the data cannot tell.
const (
	regGamma = 1e-3
	regRetro = 1e-2
	// paramFloor is the lower bound of every α and β, and the value of the
	// parameters the exploration priors freeze.
	paramFloor = 1e-8
)

// Search constants of the fit: the default starting point, how far a
// given start's γ is kept inside its bounds, how close to 0 or 1 the
// scaled γ may come before its logit, the floor of a parameter above
// paramFloor before its inverse softplus, and the L-BFGS settings.
const (
	startGammaOffset = 1e-3 // default start γ = GammaMin + this
	gammaMargin      = 1e-6
	logitClamp       = 1e-9
	softplusFloor    = 1e-12
	fitGradTol       = 1e-7
	fitMajorIters    = 300
	fitFuncEvals     = 1500
	fitConvergeAbs   = 1e-12
	fitConvergeRel   = 1e-10
	fitConvergeIters = 20
)

// parameter indices into the vector form of Params.
const (
	iAlphaC = iota
	iBetaC
	iAlphaR
	iBetaR
	iAlphaN
	iBetaN
	iGamma
	nParams
)

func (p Params) vec() [nParams]float64 {
	return [nParams]float64{p.AlphaC, p.BetaC, p.AlphaR, p.BetaR, p.AlphaN, p.BetaN, p.Gamma}
}

func paramsOf(v [nParams]float64) Params {
	return Params{v[iAlphaC], v[iBetaC], v[iAlphaR], v[iBetaR], v[iAlphaN], v[iBetaN], v[iGamma]}
}

// FitOptions tune Fit. The zero value is the default.
type FitOptions struct {
	// Start, when non-nil, is the initial guess (e.g. the previous fit of
	// the same job); otherwise the reference starting point is used.
	Start *Params
}

// ErrNoObservations is returned by Fit when there is nothing to fit.
var ErrNoObservations = errors.New("models: no observations to fit")

// Fit estimates θ_sys from observations by minimising the root-mean-squared
// log error of predicted T_iter (and of T_grad where observed), subject to
// α, β ≥ 0 and γ ∈ [1, 10], with small regularisers (see regGamma and
// regRetro). Bounds are handled by reparametrisation (softplus for α and β,
// a scaled sigmoid for γ) and the problem is solved with L-BFGS.
//
// Exploration priors, as in Pollux: parameters the observations cannot
// identify are frozen at (practically) zero so that the model is optimistic
// about configurations never tried:
//   - α_n, β_n while no multi-node configuration was observed, after which
//     they are raised to at least 1.1× α_r, β_r (inter-node is slower);
//   - α_r, β_r while no single-node multi-GPU configuration was observed;
//   - β_r, β_n while no configuration with more than 2 GPUs was observed;
//   - α_c is fixed to half the mean micro-step time when only one per-GPU
//     batch size was observed.
func Fit(obs []Observation, opt FitOptions) (Params, error) {
	if len(obs) == 0 {
		return Params{}, ErrNoObservations
	}
	for i, o := range obs {
		if err := CheckObservation(i, o); err != nil {
			return Params{}, err
		}
	}
	pr := newFitProblem(obs)
	start := Params{0.1, 0.01, 0.1, 0.01, 0.1, 0.01, GammaMin + startGammaOffset}
	if opt.Start != nil {
		start = *opt.Start
		start.Gamma = math.Min(math.Max(start.Gamma, GammaMin+gammaMargin), GammaMax-gammaMargin)
	}
	best := pr.solve(start)
	if opt.Start == nil {
		// A second start with more overlap guards against the flat
		// region of the sigmoid near γ = 1.
		alt := start
		alt.Gamma = 3
		if cand := pr.solve(alt); pr.loss(cand) < pr.loss(best) {
			best = cand
		}
	}
	if !pr.multiNode {
		best.AlphaN = math.Max(best.AlphaN, 1.1*best.AlphaR)
		best.BetaN = math.Max(best.BetaN, 1.1*best.BetaR)
	}
	return best, nil
}

// CheckObservation returns the error Fit gives when o, its observation
// number i, is not valid (nil if it is), so that a caller can check an
// observation when it is made and fit later.
func CheckObservation(i int, o Observation) error {
	if err := o.validate(); err != nil {
		return fmt.Errorf("models: observation %d: %w", i, err)
	}
	return nil
}

func (o Observation) validate() error {
	switch {
	case o.GPUs < 1 || o.Nodes < 1 || o.Nodes > o.GPUs:
		return fmt.Errorf("bad allocation: %d GPUs on %d nodes", o.GPUs, o.Nodes)
	case !(o.Local > 0) || math.IsInf(o.Local, 0):
		return fmt.Errorf("per-GPU batch %v must be positive", o.Local)
	case o.Accum < 0:
		return fmt.Errorf("accumulation steps %d must not be negative", o.Accum)
	case !(o.TIter > 0) || math.IsInf(o.TIter, 0):
		return fmt.Errorf("iteration time %v must be positive", o.TIter)
	case o.TGrad < 0 || math.IsNaN(o.TGrad) || math.IsInf(o.TGrad, 0):
		return fmt.Errorf("micro-step time %v must be non-negative", o.TGrad)
	}
	return nil
}

// fitProblem holds the observations and which parameters are free.
type fitProblem struct {
	obs       []Observation
	logIter   []float64 // log of each observation's TIter
	logGrad   []float64 // log of each observation's TGrad (0 if unknown)
	fixed     [nParams]bool
	fixedVal  [nParams]float64
	free      []int
	multiNode bool
	nGrad     int

	// The residuals of the last parameters evaluated: the optimiser asks
	// for the loss and then for the gradient at the same point.
	last      Params
	lastValid bool
	resid     []residual
	// lastU and lastP are the last free vector params mapped, and its
	// parameters (the same point comes back for the gradient).
	lastU []float64
	lastP Params
}

// residual is what lossGrad computes per observation before the
// derivatives: the predicted compute (a), sync (b), overlapped (ov) and
// step (t) times and the log errors of the step (r2) and of the compute
// time (r1, 0 if TGrad is unknown), with what the gradient reuses.
type residual struct {
	a, b, ov, t, r2, r1 float64
	// wa and wb are the overlap's shares (see logOverlap); la, lb, lov
	// and lt are ln a, ln b (b > 0), ln ov and ln t.
	wa, wb, la, lb, lov, lt float64
}

func newFitProblem(obs []Observation) *fitProblem {
	pr := &fitProblem{obs: obs, logIter: make([]float64, len(obs)), logGrad: make([]float64, len(obs)),
		resid: make([]residual, len(obs))}
	for i, o := range obs {
		pr.logIter[i] = math.Log(o.TIter)
		if o.TGrad > 0 {
			pr.logGrad[i] = math.Log(o.TGrad)
		}
	}
	localSeen := map[float64]bool{}
	singleNodeMulti, over2 := false, false
	var sumGrad, sumIter float64
	for _, o := range obs {
		localSeen[o.Local] = true
		if o.Nodes > 1 {
			pr.multiNode = true
		}
		if o.Nodes == 1 && o.GPUs > 1 {
			singleNodeMulti = true
		}
		if o.GPUs > 2 {
			over2 = true
		}
		if o.TGrad > 0 {
			pr.nGrad++
			sumGrad += o.TGrad
		}
		sumIter += o.TIter / float64(o.Accum+1)
	}
	freeze := func(i int, v float64) { pr.fixed[i], pr.fixedVal[i] = true, v }
	if len(localSeen) == 1 {
		if pr.nGrad > 0 {
			freeze(iAlphaC, sumGrad/float64(pr.nGrad)/2)
		} else {
			freeze(iAlphaC, sumIter/float64(len(obs))/2)
		}
	}
	if !pr.multiNode {
		freeze(iAlphaN, paramFloor)
		freeze(iBetaN, paramFloor)
	}
	if !singleNodeMulti {
		freeze(iAlphaR, paramFloor)
		freeze(iBetaR, paramFloor)
	}
	if !over2 {
		freeze(iBetaN, paramFloor)
		freeze(iBetaR, paramFloor)
	}
	for i := 0; i < nParams; i++ {
		if !pr.fixed[i] {
			pr.free = append(pr.free, i)
		}
	}
	return pr
}

// solve runs L-BFGS from start and returns the best parameters found.
func (pr *fitProblem) solve(start Params) Params {
	sv := start.vec()
	u0 := make([]float64, len(pr.free))
	for j, i := range pr.free {
		u0[j] = toFree(i, sv[i])
	}
	if len(u0) == 0 {
		return pr.params(u0)
	}
	x := minimizeLBFGS(pr.objective(), pr.gradient, u0)
	best := pr.params(u0)
	if len(x) == len(u0) {
		if cand := pr.params(x); pr.loss(cand) <= pr.loss(best) {
			best = cand
		}
	}
	return best
}

// objective is the loss as a function of the free vector u.
func (pr *fitProblem) objective() func(u []float64) float64 {
	return func(u []float64) float64 { return pr.lossGrad(pr.params(u), nil) }
}

// gradient writes the loss's gradient with respect to u into grad.
func (pr *fitProblem) gradient(grad, u []float64) {
	var g [nParams]float64
	x := pr.params(u)
	pr.lossGrad(x, &g)
	xv := x.vec()
	for j, i := range pr.free {
		grad[j] = g[i] * dFree(i, u[j], xv[i])
	}
}

// params maps the free vector u to Params, filling in frozen values.
func (pr *fitProblem) params(u []float64) Params {
	if pr.lastU != nil && slices.Equal(u, pr.lastU) {
		return pr.lastP
	}
	var v [nParams]float64
	for i := 0; i < nParams; i++ {
		if pr.fixed[i] {
			v[i] = pr.fixedVal[i]
		}
	}
	for j, i := range pr.free {
		v[i] = fromFree(i, u[j])
	}
	pr.lastU, pr.lastP = append(pr.lastU[:0], u...), paramsOf(v)
	return pr.lastP
}

func (pr *fitProblem) loss(p Params) float64 { return pr.lossGrad(p, nil) }

// lossGrad evaluates the objective at p and, if g is non-nil, its gradient
// with respect to the natural parameters.
func (pr *fitProblem) lossGrad(p Params, g *[nParams]float64) float64 {
	var sq1, sq2 float64
	var d1, d2 [nParams]float64
	gm := p.Gamma
	cached := pr.lastValid && p == pr.last
	for x, o := range pr.obs {
		rs := &pr.resid[x]
		if !cached {
			rs.a = p.TGrad(o.Local)
			rs.b = p.TSync(o.Nodes, o.GPUs)
			rs.la = math.Log(rs.a)
			rs.lb = 0
			if rs.b > 0 {
				rs.lb = math.Log(rs.b)
			}
			rs.ov, rs.lov, rs.wa, rs.wb = logOverlap(rs.a, rs.b, rs.la, rs.lb, gm)
			rs.t = float64(o.Accum)*rs.a + rs.ov
			rs.lt = rs.lov
			if o.Accum != 0 {
				rs.lt = math.Log(rs.t)
			}
			rs.r2 = rs.lt - pr.logIter[x]
			rs.r1 = 0
			if o.TGrad > 0 {
				rs.r1 = rs.la - pr.logGrad[x]
			}
		}
		a, b, ov, t, r2, r1 := rs.a, rs.b, rs.ov, rs.t, rs.r2, rs.r1
		sq2 += r2 * r2
		if o.TGrad > 0 {
			sq1 += r1 * r1
		}
		if g == nil {
			continue
		}
		// Partial derivatives of the overlap term.
		dOa, dOb, dOg := 1.0, 0.0, 0.0
		if b > 0 {
			dOa = rs.wa * ov / a
			dOb = rs.wb * ov / b
			dOg = ov * (rs.wa*rs.la + rs.wb*rs.lb - rs.lov) / gm
		}
		dTa := float64(o.Accum) + dOa
		w := r2 / t
		d2[iAlphaC] += w * dTa
		d2[iBetaC] += w * dTa * o.Local
		d2[iGamma] += w * dOg
		if b > 0 {
			retro := math.Max(float64(o.GPUs-2), 0)
			if o.Nodes > 1 {
				d2[iAlphaN] += w * dOb
				d2[iBetaN] += w * dOb * retro
			} else {
				d2[iAlphaR] += w * dOb
				d2[iBetaR] += w * dOb * retro
			}
		}
		if o.TGrad > 0 {
			d1[iAlphaC] += r1 / a
			d1[iBetaC] += r1 / a * o.Local
		}
	}
	pr.last, pr.lastValid = p, true
	n2 := float64(len(pr.obs))
	err2 := math.Sqrt(sq2 / n2)
	err1 := 0.0
	if pr.nGrad > 0 {
		err1 = math.Sqrt(sq1 / float64(pr.nGrad))
	}
	rn := p.BetaN / p.AlphaN
	rr := p.BetaR / p.AlphaR
	loss := err1 + err2 + regGamma*(gm-1)*(gm-1) + regRetro*(rn*rn+rr*rr)
	if g != nil {
		for i := range g {
			g[i] = 0
			if err2 > 0 {
				g[i] += d2[i] / (n2 * err2)
			}
			if err1 > 0 {
				g[i] += d1[i] / (float64(pr.nGrad) * err1)
			}
		}
		g[iGamma] += 2 * regGamma * (gm - 1)
		g[iBetaN] += 2 * regRetro * rn / p.AlphaN
		g[iAlphaN] -= 2 * regRetro * rn * rn / p.AlphaN
		g[iBetaR] += 2 * regRetro * rr / p.AlphaR
		g[iAlphaR] -= 2 * regRetro * rr * rr / p.AlphaR
	}
	return loss
}

// Reparametrisation: α, β = floor + softplus(u); γ = 1 + 9·sigmoid(u).
func fromFree(i int, u float64) float64 {
	if i == iGamma {
		return GammaMin + (GammaMax-GammaMin)*sigmoid(u)
	}
	return paramFloor + softplus(u)
}

func toFree(i int, x float64) float64 {
	if i == iGamma {
		f := (x - GammaMin) / (GammaMax - GammaMin)
		f = math.Min(math.Max(f, logitClamp), 1-logitClamp)
		return math.Log(f / (1 - f))
	}
	y := math.Max(x-paramFloor, softplusFloor)
	if y > 30 {
		return y
	}
	return math.Log(math.Expm1(y))
}

// dFree is dx/du at u (x is fromFree(i, u)).
func dFree(i int, u, _ float64) float64 {
	s := sigmoid(u)
	if i == iGamma {
		return (GammaMax - GammaMin) * s * (1 - s)
	}
	return s
}

func softplus(u float64) float64 {
	if u > 30 {
		return u
	}
	return math.Log1p(math.Exp(u))
}

func sigmoid(u float64) float64 { return 1 / (1 + math.Exp(-u)) }

// MeanRelError is the mean of |predicted − observed| / observed T_iter of
// params over obs: the accuracy figure the Pollux paper reports.
func MeanRelError(p Params, obs []Observation) float64 {
	if len(obs) == 0 {
		return 0
	}
	var sum float64
	for _, o := range obs {
		pred := p.TIter(o.Nodes, o.GPUs, o.Local, o.Accum)
		sum += math.Abs(pred-o.TIter) / o.TIter
	}
	return sum / float64(len(obs))
}
