package profiles

import (
	"errors"
	"math"
	"sort"
)

// ErrorStats summarise a list of relative errors.
type ErrorStats struct {
	N                      int
	Mean, Median, P90, Max float64
	// RMS is the root mean square of the errors.
	RMS float64
}

func summarize(errs []float64) ErrorStats {
	if len(errs) == 0 {
		return ErrorStats{}
	}
	e := append([]float64(nil), errs...)
	sort.Float64s(e)
	s, s2 := 0.0, 0.0
	for _, v := range e {
		s += v
		s2 += v * v
	}
	return ErrorStats{
		N:      len(e),
		RMS:    math.Sqrt(s2 / float64(len(e))),
		Mean:   s / float64(len(e)),
		Median: quantile(e, 0.5),
		P90:    quantile(e, 0.9),
		Max:    e[len(e)-1],
	}
}

// quantile of sorted values by linear interpolation between order
// statistics.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return lerp(sorted[i], sorted[i+1], pos-float64(i))
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// LeaveOneOut measures how well the interpolation of measured tables
// predicts placements that were not measured. Pairs holds out each
// (nodes, replicas) pair of scalability.csv in turn and predicts its rows
// from all other rows; Levels holds out each node count of scalability.csv
// that has measured node counts on both sides (6, 8 and 12 in the
// reference data) and predicts its rows from the others. Errors are
// relative errors of the step time.
type LeaveOneOut struct {
	Pairs, Levels ErrorStats
}

// LeaveOneOutError computes the leave-one-out errors of an application read
// from measured tables.
func LeaveOneOutError(app *App) (LeaveOneOut, error) {
	tt, ok := app.Truth.(*TableTruth)
	if !ok {
		return LeaveOneOut{}, errors.New("leave-one-out needs an application read from measured tables")
	}
	all := referenceSamples(tt.Placements, tt.Scalability)
	held := func(keep func(gridSample) bool) []float64 {
		var rest, out []gridSample
		for _, s := range all {
			if keep(s) {
				rest = append(rest, s)
			} else {
				out = append(out, s)
			}
		}
		g := buildGrid(rest)
		if g == nil {
			return nil
		}
		errs := make([]float64, 0, len(out))
		for _, s := range out {
			step, _ := g.at(s.nodes, s.reps, s.local)
			errs = append(errs, relErr(step, s.step))
		}
		return errs
	}
	var res LeaveOneOut
	type pair struct{ n, r int }
	var pairs []pair
	seen := map[pair]bool{}
	levels := map[int]bool{}
	for _, r := range tt.Scalability {
		p := pair{r.Nodes, r.Replicas}
		if !seen[p] {
			seen[p] = true
			pairs = append(pairs, p)
		}
		levels[r.Nodes] = true
	}
	var pairErrs []float64
	for _, p := range pairs {
		pairErrs = append(pairErrs, held(func(s gridSample) bool { return s.nodes != p.n || s.reps != p.r })...)
	}
	res.Pairs = summarize(pairErrs)
	lo, hi := math.MaxInt, 0
	for _, s := range all {
		lo, hi = min(lo, s.nodes), max(hi, s.nodes)
	}
	var levelErrs []float64
	for _, n := range sortedKeys(levels) {
		if n > lo && n < hi {
			levelErrs = append(levelErrs, held(func(s gridSample) bool { return s.nodes != n })...)
		}
	}
	res.Levels = summarize(levelErrs)
	return res, nil
}

// Comparison measures how far a model of an application (e.g. the embedded
// compact one) is from the measured tables.
type Comparison struct {
	// Step: relative error of the step time over every row of
	// placements.csv and scalability.csv.
	Step ErrorStats
	// Efficiency: relative error of the statistical efficiency at every
	// validated batch size above B0 and every epoch.
	Efficiency ErrorStats
	// Iterations: relative error of the cumulative optimizer steps
	// Iterations(B, e) at every validated batch size above B0 and every
	// epoch.
	Iterations ErrorStats
	// Target: relative error of the progress target.
	Target float64
}

// Compare measures model against real, an application read from measured
// tables.
func Compare(real, model *App) (Comparison, error) {
	tt, ok := real.Truth.(*TableTruth)
	if !ok {
		return Comparison{}, errors.New("compare needs an application read from measured tables")
	}
	var c Comparison
	var errs []float64
	for _, r := range tt.Placements {
		step, _ := model.Truth.Step(r.Placement, r.Local)
		errs = append(errs, relErr(step, r.Step))
	}
	for _, r := range tt.Scalability {
		step, _ := model.Truth.Step(SpreadPlacement(r.Replicas, r.Nodes), r.Local)
		errs = append(errs, relErr(step, r.Step))
	}
	c.Step = summarize(errs)
	m0 := float64(real.Limits.InitBatch)
	errs = errs[:0]
	var iters []float64
	for _, b := range real.ValidatedBatches {
		fb := float64(b)
		if b == real.Limits.InitBatch {
			continue
		}
		for e := 0; e < real.Epochs; e++ {
			iters = append(iters, relErr(model.Truth.Iterations(fb, e), real.Truth.Iterations(fb, e)))
			want := real.Truth.Grad(fb, e).Efficiency(m0, fb)
			got := model.Truth.Grad(fb, e).Efficiency(m0, fb)
			errs = append(errs, relErr(got, want))
		}
	}
	c.Efficiency = summarize(errs)
	c.Iterations = summarize(iters)
	c.Target = relErr(model.Target(), real.Target())
	return c, nil
}

// CompareSteps measures the step times of model against real, an
// application read from measured tables, over the rows of placements.csv
// and scalability.csv whose per-GPU batch size real may use (at most
// Limits.MaxLocal): the relative error of the step time.
func CompareSteps(real, model *App) (ErrorStats, error) {
	tt, ok := real.Truth.(*TableTruth)
	if !ok {
		return ErrorStats{}, errors.New("compare needs an application read from measured tables")
	}
	limit := float64(real.Limits.MaxLocal)
	var errs []float64
	for _, r := range tt.Placements {
		if r.Local <= limit {
			step, _ := model.Truth.Step(r.Placement, r.Local)
			errs = append(errs, relErr(step, r.Step))
		}
	}
	for _, r := range tt.Scalability {
		if r.Local <= limit {
			step, _ := model.Truth.Step(SpreadPlacement(r.Replicas, r.Nodes), r.Local)
			errs = append(errs, relErr(step, r.Step))
		}
	}
	return summarize(errs), nil
}

// SpreadPlacement spreads gpus GPUs as evenly as possible over nodes nodes
// (the first nodes get one more when it does not divide).
func SpreadPlacement(gpus, nodes int) []int {
	if nodes <= 0 || gpus < nodes {
		return nil
	}
	p := make([]int, nodes)
	for i := range p {
		p[i] = gpus / nodes
		if i < gpus%nodes {
			p[i]++
		}
	}
	return p
}
