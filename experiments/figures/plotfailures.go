package figures

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/results"
)

// KindFailureRate is the kind of a sweep figure of a metric against each
// cell's node failure rate (docs/failures.md).
const KindFailureRate = "failure-rate"

// rsc1Rate is the rate the x axis counts in by default: RSC-1's, failures
// per node-day (the faults package's rsc1 preset).
const rsc1Rate = 0.0065

// failureRateKind draws a metric against the node failure rate of each
// cell's fault model, one line per policy and workload kind, so that an
// experiment at several failure rates needs no hand-written series.
var failureRateKind = Kind{Name: KindFailureRate, Check: checkFailureRate, Draw: failureRatePlot,
	Doc: "a metric's mean and 95 % CI against each cell's node failure rate, one line per policy and workload kind (params: per, the rate the axis counts in)"}

// failureRateParams are a failure-rate plot's params.
type failureRateParams struct {
	// Per is the rate, failures per node-day, that the x axis counts in:
	// x = log2(1 + rate/Per). Default RSC-1's, 0.0065.
	Per float64 `json:"per"`
}

// checkFailureRate checks a failure-rate plot: a known metric, its params,
// no series or groups (the kind derives them from the cells).
func checkFailureRate(p *experiments.PlotSpec, e *experiments.Experiment) error {
	var pr failureRateParams
	if err := p.DecodeParams(&pr); err != nil {
		return err
	}
	switch {
	case !results.KnownMetric(e.MetricSet(), p.Metric):
		return fmt.Errorf("metric %q is not a metric of this binary", p.Metric)
	case pr.Per < 0 || math.IsNaN(pr.Per) || math.IsInf(pr.Per, 0):
		return fmt.Errorf("params: per must be a positive rate per node-day, got %v", pr.Per)
	case len(p.Series) > 0 || len(p.Groups) > 0:
		return errors.New("kind failure-rate takes no series or groups: it draws each cell at its failure rate")
	}
	return nil
}

// failureRateSeries derives the lines of a failure-rate plot from the
// cells (the plot's, or all) that have runs: each cell whose fault model is a node
// failure rate alone (none counts as 0; a fault log, failure domains,
// jobs' own failures or per-type rates are left out) is a point at
// log2(1 + rate/per) (to 4 decimals), on the line of its policy and
// workload trace.
func failureRateSeries(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult, per float64) []experiments.PlotSeries {
	var out []experiments.PlotSeries
	index := map[string]int{}
	for _, c := range plotCells(exp, ps, byCell) {
		m, err := c.Spec().FaultModel()
		if err != nil {
			continue
		}
		rate := 0.0
		if m != nil {
			if m.File != "" || m.DomainRate > 0 || m.JobFailRate > 0 || len(m.RateByType) > 0 {
				continue
			}
			rate = m.Rate
		}
		label := c.Spec().Policy
		if c.Workload != nil && c.Workload.Trace != "" {
			label += ", " + c.Workload.Trace
		}
		i, ok := index[label]
		if !ok {
			i = len(out)
			index[label] = i
			out = append(out, experiments.PlotSeries{Label: label})
		}
		// Rounded so that the axis ticks read (4.0875, not 4.087462841250339).
		x := math.Round(math.Log2(1+rate/per)*1e4) / 1e4
		out[i].Points = append(out[i].Points, experiments.PlotPoint{X: x, Cell: c.Name})
	}
	for i := range out {
		sort.SliceStable(out[i].Points, func(a, b int) bool { return out[i].Points[a].X < out[i].Points[b].X })
	}
	return out
}

// failureRatePlot draws a failure-rate figure: the lines plot of the
// series failureRateSeries derives.
func failureRatePlot(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error) {
	var pr failureRateParams
	if err := ps.DecodeParams(&pr); err != nil {
		return Figure{}, err
	}
	if pr.Per == 0 {
		pr.Per = rsc1Rate
	}
	lines := ps
	lines.Series = failureRateSeries(exp, ps, byCell, pr.Per)
	if len(lines.Series) == 0 {
		return Figure{}, errors.New("no cell has a node failure rate alone (or none) to draw")
	}
	if lines.XLabel == "" {
		lines.XLabel = fmt.Sprintf("log2(1 + node failure rate / %g per node-day)", pr.Per)
	}
	if lines.YLabel == "" {
		if m, ok := results.Declaration(exp.MetricSet(), ps.Metric); ok {
			lines.YLabel = m.Label
		}
	}
	return linesPlot(exp, lines, byCell)
}
