package llm

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/optimize"
)

// Fit returns the calibration minimising the mean loss of
// Predict over ms, robustly (softL1 of the log errors; every row given
// is fitted, the caller holds rows back): e_max and A per stack and GPU
// type present, and the shared h₀, x₀ and ω. The search is gonum's
// Nelder-Mead over unbounded coordinates (logit of e_max and ω, log of
// A, h₀ and x₀) from a fixed start, so it is deterministic. It returns
// the calibration and its mean loss.
func Fit(ms []Measurement) (Calibration, float64, error) {
	if len(ms) == 0 {
		return Calibration{}, 0, fmt.Errorf("fit: no measurements")
	}
	keySet := map[string]bool{}
	for _, m := range ms {
		keySet[StackKey(m.Job.Stack, m.Job.GPU.Name)] = true
	}
	var keys []string
	for k := range keySet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	nk := len(keys)
	decode := func(u []float64) Calibration {
		cal := Calibration{Stacks: map[string]StackCalibration{}}
		for i, k := range keys {
			cal.Stacks[k] = StackCalibration{PeakFraction: sigmoid(u[2*i]), Attention: math.Exp(u[2*i+1])}
		}
		cal.HiddenHalf = math.Exp(u[2*nk])
		cal.TokensHalf = math.Exp(u[2*nk+1])
		cal.Overlap = sigmoid(u[2*nk+2])
		cal.Latency = math.Exp(u[2*nk+3])
		return cal
	}
	loss := func(u []float64) float64 {
		cal := decode(u)
		var sum float64
		for _, m := range ms {
			p, err := cal.Predict(m)
			if err != nil || !(p > 0) {
				return math.Inf(1)
			}
			sum += softL1(math.Log(p / m.Measured))
		}
		return sum / float64(len(ms))
	}
	u0 := make([]float64, 2*nk+4)
	for i := range nk {
		u0[2*i] = logit(0.6)
	}
	u0[2*nk], u0[2*nk+1], u0[2*nk+2] = math.Log(500), math.Log(500), logit(0.5)
	u0[2*nk+3] = math.Log(1e-6)
	if f := loss(u0); math.IsInf(f, 0) || math.IsNaN(f) {
		return Calibration{}, 0, fmt.Errorf("fit: a measurement cannot be predicted: %v", predictErr(decode(u0), ms))
	}
	best, bestF := u0, loss(u0)
	// Nelder-Mead restarted from its own optimum until it stops improving
	// (a restart rebuilds the simplex, escaping a collapsed one).
	for range 20 {
		res, err := optimize.Minimize(optimize.Problem{Func: loss}, best,
			&optimize.Settings{MajorIterations: 4000, Converger: &optimize.FunctionConverge{Absolute: 1e-12, Iterations: 200}},
			&optimize.NelderMead{})
		if err != nil && res == nil {
			return Calibration{}, 0, fmt.Errorf("fit: %w", err)
		}
		if res.F >= bestF-1e-12 {
			break
		}
		best, bestF = res.X, res.F
	}
	return decode(best), bestF, nil
}

func predictErr(cal Calibration, ms []Measurement) error {
	for _, m := range ms {
		if _, err := cal.Predict(m); err != nil {
			return fmt.Errorf("%s: %w", m.Label(), err)
		}
	}
	return nil
}

// robustScale is δ of the fit's soft-L1 loss: log errors well below it
// count as squares, larger ones about linearly, so a few anomalous
// measurements do not pull the fit (10 %, the median error aimed at).
const robustScale = 0.1

// softL1 is the soft-L1 loss 2·δ²·(√(1 + (r/δ)²) − 1) of a residual r.
func softL1(r float64) float64 {
	z := r / robustScale
	return 2 * robustScale * robustScale * (math.Sqrt(1+z*z) - 1)
}

func sigmoid(u float64) float64 { return 1 / (1 + math.Exp(-u)) }
func logit(p float64) float64   { return math.Log(p / (1 - p)) }
