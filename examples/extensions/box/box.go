// Package box is a figure kind of one's own, in one file: "box", one box
// per cell of a metric's values over the workloads. A spec lists it with
// its parameters, which the kind decodes strictly itself:
//
//	{"name": "jct-box", "kind": "box", "metric": "avg_jct_s",
//	 "params": {"whisker": 1.5, "scale": 3600}}
//
// whisker is how many interquartile ranges the whiskers reach beyond the
// box (the values further out are drawn as points); scale divides the
// values (3600: seconds to hours).
package box

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// Params are the kind's parameters.
type Params struct {
	Whisker float64 `json:"whisker"`
	Scale   float64 `json:"scale"`
}

func params(p *experiments.PlotSpec) (Params, error) {
	v := Params{Whisker: 1.5, Scale: 1}
	if err := p.DecodeParams(&v); err != nil {
		return v, err
	}
	if !(v.Whisker > 0 && v.Whisker <= 10) {
		return v, fmt.Errorf("params: whisker must be in (0, 10], got %v", v.Whisker)
	}
	if !(v.Scale > 0) || math.IsInf(v.Scale, 0) {
		return v, fmt.Errorf("params: scale must be positive, got %v", v.Scale)
	}
	return v, nil
}

// Kind is the figure kind: app.WithKind(box.Kind).
var Kind = figures.Kind{
	Name: "box", Doc: "example: a metric's values over the workloads as one box per cell",
	Check: func(p *experiments.PlotSpec, e *experiments.Experiment) error {
		if !results.KnownMetric(e.MetricSet(), p.Metric) {
			return fmt.Errorf("unknown metric %q", p.Metric)
		}
		_, err := params(p)
		return err
	},
	Draw: draw,
}

func draw(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (figures.Figure, error) {
	prm, err := params(&ps)
	if err != nil {
		return figures.Figure{}, err
	}
	p := plot.New()
	p.Title.Text = ps.Title
	p.Y.Label.Text = ps.Metric
	var names []string
	for i, c := range exp.Cells {
		_, vals := sweep.CellValuesIn(exp.MetricSet(), byCell[c.Name], ps.Metric)
		if len(vals) == 0 {
			continue
		}
		vs := make(plotter.Values, len(vals))
		for j, v := range vals {
			vs[j] = v / prm.Scale
		}
		b, err := plotter.NewBoxPlot(vg.Points(20), float64(len(names)), vs)
		if err != nil {
			return figures.Figure{}, err
		}
		// The whiskers reach the furthest values within whisker IQRs.
		iqr := b.Quartile3 - b.Quartile1
		lo, hi := b.Quartile1-prm.Whisker*iqr, b.Quartile3+prm.Whisker*iqr
		b.AdjLow, b.AdjHigh, b.Outside = b.Median, b.Median, nil
		for j, v := range vs {
			if v < lo || v > hi {
				b.Outside = append(b.Outside, j)
				continue
			}
			b.AdjLow, b.AdjHigh = math.Min(b.AdjLow, v), math.Max(b.AdjHigh, v)
		}
		p.Add(b)
		names = append(names, exp.Cells[i].Name)
	}
	if len(names) == 0 {
		return figures.Figure{}, fmt.Errorf("no runs of any cell")
	}
	p.NominalX(slices.Clone(names)...)
	return figures.NewFigure([]*plot.Plot{p}, nil, 6*vg.Inch, 4*vg.Inch), nil
}
