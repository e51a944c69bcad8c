package profiles

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/polluxsim/polluxsim/models"
)

// DeriveMethod summarises how Derive computes a compact model; it is
// recorded in the file's provenance.
const DeriveMethod = "throughput: θ_sys fitted with models.Fit on every placements.csv and scalability.csv row " +
	"(step time and compute time step−sync), times a piecewise-bilinear correction surface over " +
	"(nodes, GPUs per node) fitted by ridge least squares to the log residuals; noise: log(grad_var/grad_sqr) " +
	"piecewise linear in the epoch on a few knots times (B/B0)^κ, fitted to the statistical efficiency of every " +
	"validation row at every validated batch size; steps: a second curve of the same form fitted to the cumulative " +
	"optimizer steps of every validation row; progress: the target divided evenly over the epochs; tuned: the " +
	"TunedJobs candidates of the measured tables; numbers rounded to 6 significant digits"

// Regularisation of the derived fits.
const (
	// correctionRidge pulls the correction surface towards no correction
	// where the data say little.
	correctionRidge = 1e-3
	// noiseRidge keeps the noise knots near their starting values where
	// the efficiency does not depend on them (very noisy epochs).
	noiseRidge = 1e-6
	// maxLogRatio bounds log(var/sqr) (grad_sqr can be 0).
	maxLogRatio = 20.0
)

// Derive computes the compact model of every application of a set read
// from measured tables (see Load) and returns it with the given provenance
// (Method is filled in when empty).
func Derive(set *Set, prov Provenance) (*CompactFile, error) {
	if prov.Method == "" {
		prov.Method = DeriveMethod
	}
	f := &CompactFile{Format: CompactFormat, Provenance: prov}
	for _, name := range set.Names() {
		m, err := DeriveApp(set.Apps[name])
		if err != nil {
			return nil, fmt.Errorf("derive %s: %w", name, err)
		}
		f.Apps = append(f.Apps, m)
	}
	return f, nil
}

// DeriveApp computes the compact model of one application read from
// measured tables.
func DeriveApp(app *App) (*CompactModel, error) {
	tt, ok := app.Truth.(*TableTruth)
	if !ok {
		return nil, errors.New("needs an application read from measured tables")
	}
	m := &CompactModel{
		Name:             app.Name,
		InitBatch:        app.Limits.InitBatch,
		MaxBatch:         app.Limits.MaxBatch,
		MinLocal:         app.Limits.MinLocal,
		MaxLocal:         app.Limits.MaxLocal,
		Epochs:           app.Epochs,
		FixedBatch:       app.FixedBatch,
		MaxGPUs:          app.MaxGPUs,
		LRScaler:         AdaScale,
		ValidatedBatches: append([]int(nil), app.ValidatedBatches...),
		Target:           round6(app.Target()),
	}
	var err error
	if m.Throughput, m.Correction, err = fitThroughput(throughputObservations(tt)); err != nil {
		return nil, err
	}
	m.Noise = fitNoise(app, tt)
	m.Steps = fitSteps(app, tt, m.Noise)
	// The TunedJobs candidates of the measured tables, for 4-GPU nodes.
	for _, c := range TunedConfigs(app, defaultPacks) {
		c.JCT = round6(c.JCT)
		m.Tuned = append(m.Tuned, c)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("derived model is invalid: %w", err)
	}
	return m, nil
}

// fitThroughput fits θ_sys to the observations and the correction surface
// to what θ_sys leaves, both rounded.
func fitThroughput(obs []models.Observation) (CompactThroughput, CompactCorrection, error) {
	p, err := models.Fit(obs, models.FitOptions{})
	if err != nil {
		return CompactThroughput{}, CompactCorrection{}, err
	}
	tp := roundParams(p).Named()
	return tp, fitCorrection(tp.Params(), obs), nil
}

// throughputObservations turns every measured row into an observation.
func throughputObservations(tt *TableTruth) []models.Observation {
	obs := make([]models.Observation, 0, len(tt.Placements)+len(tt.Scalability))
	for _, r := range tt.Placements {
		obs = append(obs, models.Observation{Nodes: len(r.Placement), GPUs: sum(r.Placement),
			Local: r.Local, TIter: r.Step, TGrad: r.Step - r.Sync})
	}
	for _, r := range tt.Scalability {
		obs = append(obs, models.Observation{Nodes: r.Nodes, GPUs: r.Replicas,
			Local: r.Local, TIter: r.Step, TGrad: r.Step - r.Sync})
	}
	return obs
}

// fitCorrection fits log(step/T_iter) by a piecewise-bilinear surface over
// (nodes, GPUs per node) with knots at the node counts and the whole
// numbers of GPUs per node seen in obs.
func fitCorrection(p models.Params, obs []models.Observation) CompactCorrection {
	nodeSet := map[float64]bool{}
	maxPer := 1.0
	for _, o := range obs {
		nodeSet[float64(o.Nodes)] = true
		maxPer = math.Max(maxPer, float64(o.GPUs)/float64(o.Nodes))
	}
	c := CompactCorrection{}
	for n := range nodeSet {
		c.Nodes = append(c.Nodes, n)
	}
	sort.Float64s(c.Nodes)
	for g := 1.0; g < maxPer+1-1e-9; g++ {
		c.GPUsPerNode = append(c.GPUsPerNode, g)
	}
	ni, nj := len(c.Nodes), len(c.GPUsPerNode)
	dim := ni * nj
	ata := mat.NewSymDense(dim, nil)
	atb := mat.NewVecDense(dim, nil)
	type term struct {
		k int
		w float64
	}
	var terms [4]term
	for _, o := range obs {
		r := math.Log(o.TIter / p.TIter(o.Nodes, o.GPUs, o.Local, 0))
		i0, i1, wi := knotBracket(c.Nodes, float64(o.Nodes))
		j0, j1, wj := knotBracket(c.GPUsPerNode, float64(o.GPUs)/float64(o.Nodes))
		terms = [4]term{
			{i0*nj + j0, (1 - wi) * (1 - wj)}, {i0*nj + j1, (1 - wi) * wj},
			{i1*nj + j0, wi * (1 - wj)}, {i1*nj + j1, wi * wj},
		}
		for _, a := range terms {
			atb.SetVec(a.k, atb.AtVec(a.k)+a.w*r)
			for _, b := range terms {
				if b.k >= a.k {
					ata.SetSym(a.k, b.k, ata.At(a.k, b.k)+a.w*b.w)
				}
			}
		}
	}
	ridge := correctionRidge * float64(len(obs)) / float64(dim)
	for k := 0; k < dim; k++ {
		ata.SetSym(k, k, ata.At(k, k)+ridge)
	}
	var chol mat.Cholesky
	x := mat.NewVecDense(dim, nil)
	if !chol.Factorize(ata) || chol.SolveVecTo(x, atb) != nil {
		return CompactCorrection{} // no correction
	}
	c.LogFactor = make([][]float64, ni)
	for i := range c.LogFactor {
		c.LogFactor[i] = make([]float64, nj)
		for j := range c.LogFactor[i] {
			c.LogFactor[i][j] = round6(x.AtVec(i*nj + j))
		}
	}
	return c
}

// noiseKnots returns the knot epochs of the noise curve of a training of
// the given length: dense early in training, where the noise changes
// fastest, and the last epoch.
func noiseKnots(epochs int) []float64 {
	var knots []float64
	for _, k := range []int{0, 1, 2, 3, 5, 8, 13, 20, 30, 45, 65} {
		if k < epochs-1 {
			knots = append(knots, float64(k))
		}
	}
	return append(knots, float64(max(epochs-1, 0)))
}

// fitNoise fits the noise curve to the efficiency of every validation row.
func fitNoise(app *App, tt *TableTruth) CompactNoise {
	epochs := app.Epochs
	knots := noiseKnots(epochs)
	m0 := float64(app.Limits.InitBatch)
	type point struct {
		epoch   int
		logS    float64 // log(B/B0)
		scale   float64 // S = B/B0
		eff     float64 // measured efficiency
		logRhat float64 // measured log ratio, clamped
	}
	var pts []point
	for _, b := range app.ValidatedBatches {
		rows := tt.Validation[b]
		for e := 0; e < epochs && e < len(rows); e++ {
			g := models.GradStats{Sqr: rows[e].GradSqr, Var: rows[e].GradVar}
			lr := maxLogRatio
			if g.Sqr > 0 && g.Var > 0 {
				lr = math.Max(-maxLogRatio, math.Min(maxLogRatio, math.Log(g.Var/g.Sqr)))
			} else if g.Var == 0 {
				lr = -maxLogRatio
			}
			pts = append(pts, point{e, math.Log(float64(b) / m0), float64(b) / m0, g.Efficiency(m0, float64(b)), lr})
		}
	}
	// Start: the median measured log ratio over the batch sizes at each knot.
	start := make([]float64, len(knots)+1)
	for k, ke := range knots {
		var v []float64
		for _, p := range pts {
			if p.epoch == int(ke) {
				v = append(v, p.logRhat)
			}
		}
		sort.Float64s(v)
		if len(v) > 0 {
			start[k] = v[len(v)/2]
		}
	}
	nk := len(knots)
	loss := func(x, grad []float64) float64 {
		if grad != nil {
			for i := range grad {
				grad[i] = 0
			}
		}
		f := 0.0
		for _, p := range pts {
			if p.scale == 1 {
				continue
			}
			k0, k1, w := knotBracket(knots, float64(p.epoch))
			lr := lerp(x[k0], x[k1], w) + x[nk]*p.logS
			rho := math.Exp(math.Min(lr, 700))
			eff := (rho + 1) / (rho + p.scale)
			d := eff - p.eff
			f += d * d
			if grad != nil {
				// d eff / d lr = rho·(S−1)/(rho+S)².
				g := 2 * d * rho * (p.scale - 1) / ((rho + p.scale) * (rho + p.scale))
				grad[k0] += g * (1 - w)
				grad[k1] += g * w
				grad[nk] += g * p.logS
			}
		}
		return f + ridge(x, start, grad)
	}
	return ratioCurve(knots, minimize(loss, start))
}

// minimize runs L-BFGS on loss (which fills grad when it is non-nil) from
// start and returns the better of the result and start.
func minimize(loss func(x, grad []float64) float64, start []float64) []float64 {
	problem := optimize.Problem{
		Func: func(x []float64) float64 { return loss(x, nil) },
		Grad: func(grad, x []float64) { loss(x, grad) },
	}
	res, _ := optimize.Minimize(problem, start, &optimize.Settings{MajorIterations: 500}, &optimize.LBFGS{})
	if res != nil && len(res.X) == len(start) && loss(res.X, nil) < loss(start, nil) {
		return res.X
	}
	return start
}

// ratioCurve packs knot values x[:len(knots)] and the batch exponent
// x[len(knots)], bounded and rounded.
func ratioCurve(knots, x []float64) CompactNoise {
	nk := len(knots)
	nz := CompactNoise{Epochs: knots, LogRatio: make([]float64, nk)}
	for i := range nz.LogRatio {
		nz.LogRatio[i] = round6(math.Max(-2*maxLogRatio, math.Min(2*maxLogRatio, x[i])))
	}
	nz.BatchExponent = round6(math.Max(-5, math.Min(5, x[nk])))
	return nz
}

// fitSteps fits the Steps curve (see CompactModel) to the cumulative
// optimizer steps of every validation run, minimising squared log errors,
// starting from the noise curve.
func fitSteps(app *App, tt *TableTruth, noise CompactNoise) CompactNoise {
	knots := noise.Epochs
	nk := len(knots)
	start := append(append([]float64(nil), noise.LogRatio...), noise.BatchExponent)
	m0 := float64(app.Limits.InitBatch)
	perEpoch := round6(app.Target()) / float64(app.Epochs)
	type run struct {
		scale, logS float64
		iters       []float64
	}
	var runs []run
	for _, b := range app.ValidatedBatches {
		if b == app.Limits.InitBatch {
			continue
		}
		rows := tt.Validation[b]
		r := run{scale: float64(b) / m0, logS: math.Log(float64(b) / m0)}
		for e := 0; e < app.Epochs && e < len(rows); e++ {
			r.iters = append(r.iters, math.Max(rows[e].Iteration, 1))
		}
		runs = append(runs, r)
	}
	dI := make([]float64, nk+1)
	loss := func(x, grad []float64) float64 {
		if grad != nil {
			for i := range grad {
				grad[i] = 0
			}
		}
		f := 0.0
		for _, r := range runs {
			total := 0.0
			for i := range dI {
				dI[i] = 0
			}
			for e, want := range r.iters {
				k0, k1, w := knotBracket(knots, float64(e))
				lr := math.Min(lerp(x[k0], x[k1], w)+x[nk]*r.logS, 700)
				rho := math.Exp(lr)
				// Steps per unit of progress: 1/gain = (rho/S+1)/(rho+1).
				u := (rho/r.scale + 1) / (rho + 1)
				total += perEpoch * u
				du := perEpoch * rho * (1/r.scale - 1) / ((rho + 1) * (rho + 1))
				dI[k0] += du * (1 - w)
				dI[k1] += du * w
				dI[nk] += du * r.logS
				res := math.Log(total / want)
				f += res * res
				if grad != nil {
					for i := range grad {
						grad[i] += 2 * res * dI[i] / total
					}
				}
			}
		}
		return f + ridge(x, start, grad)
	}
	return ratioCurve(knots, minimize(loss, start))
}

func roundParams(p models.Params) models.Params {
	return models.Params{AlphaC: round6(p.AlphaC), BetaC: round6(p.BetaC), AlphaR: round6(p.AlphaR),
		BetaR: round6(p.BetaR), AlphaN: round6(p.AlphaN), BetaN: round6(p.BetaN), Gamma: round6(p.Gamma)}
}

// round6 rounds to 6 significant digits, so that files stay short and
// readable.
func round6(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// ridge is the penalty noiseRidge·|x − start|² that keeps a curve fit near
// its starting point; it adds its gradient to grad when grad is non-nil.
func ridge(x, start, grad []float64) float64 {
	f := 0.0
	for i := range x {
		d := x[i] - start[i]
		f += noiseRidge * d * d
		if grad != nil {
			grad[i] += 2 * noiseRidge * d
		}
	}
	return f
}
