package experiments

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"encoding/json"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/internal/strictjson"
)

// Kinds of plot (PlotSpec.Kind).
const (
	// PlotJCTCDF: the distribution of job completion times per cell,
	// pooled over workloads.
	PlotJCTCDF = "jct_cdf"
	// PlotRhoCDF: the distribution of finish-time fairness ρ per cell
	// (paper Fig 7).
	PlotRhoCDF = "rho_cdf"
	// PlotTimeline: GPUs allocated and average statistical efficiency over
	// time on one workload (paper Fig 5).
	PlotTimeline = "timeline"
	// PlotLines: a metric's mean over workloads with its 95 % confidence
	// interval against a numeric setting, one line per series (paper Fig
	// 8), with the reference numbers dashed.
	PlotLines = "lines"
	// PlotBars: a metric's mean over workloads with its 95 % confidence
	// interval as grouped bars: one bar per series in each group (e.g. a
	// policy per workload set, or per GPU type).
	PlotBars = "bars"
)

// PlotElastic: nodes (ready plus provisioning), the running jobs' mean
// total batch size and their mean statistical efficiency over time on one
// workload of an elastic cluster (paper Fig 9a/9b).
const PlotElastic = "elastic"

// PlotSpec describes one figure of an experiment; `polluxsim plot` writes
// it as <name>.png and <name>.svg.
type PlotSpec struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Title string `json:"title,omitempty"`
	// Cells are the cells drawn by CDF and timeline plots (default all).
	Cells []string `json:"cells,omitempty"`
	// Workload is the workload a timeline shows (default 1).
	Workload int `json:"workload,omitempty"`

	// Lines plots: the metric, and either a divisor for its values (Scale,
	// e.g. 3600 for hours) or a cell that every point is divided by,
	// workload by workload (Normalize).
	Metric    string  `json:"metric,omitempty"`
	Scale     float64 `json:"scale,omitempty"`
	Normalize string  `json:"normalize,omitempty"`
	XLabel    string  `json:"x_label,omitempty"`
	// LogX spaces the x values logarithmically (e.g. doubling intervals).
	LogX   bool         `json:"log_x,omitempty"`
	YLabel string       `json:"y_label,omitempty"`
	Series []PlotSeries `json:"series,omitempty"`
	// Groups are the groups of a bars plot, left to right; each series
	// gives one cell per group.
	Groups []PlotGroup `json:"groups,omitempty"`
	// Reference names the source (Experiment.Sources) whose numbers are
	// drawn dashed beside ours.
	Reference string `json:"reference,omitempty"`
	// Params are the parameters of a kind of one's own, a JSON object
	// its check decodes strictly itself (DecodeParams); the built-in
	// kinds take none (their settings are the fields above).
	Params json.RawMessage `json:"params,omitempty"`
}

// DecodeParams decodes a plot's params into v strictly (unknown keys,
// ill-typed values and data after the object are errors); no params leave
// v as it is.
func (p *PlotSpec) DecodeParams(v any) error {
	if len(p.Params) == 0 {
		return nil
	}
	if err := strictjson.Decode(p.Params, v); err != nil {
		return fmt.Errorf("params: %w", err)
	}
	return nil
}

// PlotSeries is one line of a lines plot, or one colour of bars.
type PlotSeries struct {
	Label  string      `json:"label"`
	Points []PlotPoint `json:"points,omitempty"`
	// Cells are a bars plot's cells, one per group ("" leaves the group's
	// bar out).
	Cells []string `json:"cells,omitempty"`
}

// PlotGroup is one group of bars: its label under the axis and, when the
// groups show different metrics of the same cells (e.g. GPU-hours per
// type), its own metric.
type PlotGroup struct {
	Label  string `json:"label"`
	Metric string `json:"metric,omitempty"`
}

// PlotPoint places a cell's result at X.
type PlotPoint struct {
	X    float64 `json:"x"`
	Cell string  `json:"cell"`
}

// MaxPlotX bounds the x of a lines plot's points and a plot's scale.
const MaxPlotX = 1e12

func (p *PlotSpec) check(e *Experiment) error {
	if err := checkName(p.Name); err != nil {
		return err
	}
	for _, c := range p.Cells {
		if e.Cell(c) == nil {
			return fmt.Errorf("unknown cell %q", c)
		}
	}
	k, ok := e.ext.FigureKinds().Lookup(p.Kind)
	if !ok {
		if e.stored {
			e.skip(fmt.Sprintf("plot %q: figure kind %q is not in this binary; not drawn", p.Name, p.Kind))
			return nil
		}
		return fmt.Errorf("unknown kind %q (want %s)", p.Kind, strings.Join(e.SweepPlotKinds(), ", "))
	}
	pk, ok := k.(PlotKind)
	if !ok || !pk.DrawsSweep() {
		return fmt.Errorf("kind %q does not draw from a sweep (the sweep kinds: %s)", p.Kind, strings.Join(e.SweepPlotKinds(), ", "))
	}
	return pk.CheckPlot(p, e)
}

// SweepPlotKinds lists the figure kinds a spec may list in this binary.
func (e *Experiment) SweepPlotKinds() []string {
	var out []string
	for _, k := range e.ext.FigureKinds().All() {
		if pk, ok := k.(PlotKind); ok && pk.DrawsSweep() {
			out = append(out, k.KindName())
		}
	}
	return out
}

// PlotCheck checks a plot spec of one kind against its experiment, naming
// the offending field.
type PlotCheck func(p *PlotSpec, e *Experiment) error

// PlotKind is what the spec format asks of a figure kind (figures.Kind is
// one): whether it draws from a sweep (only those may be listed in a
// spec's "plots") and its check, run when a spec is read.
type PlotKind interface {
	extensions.FigureKind
	DrawsSweep() bool
	CheckPlot(p *PlotSpec, e *Experiment) error
}

// BuiltinPlotCheck is the check of a built-in kind (the spec format's own
// fields are theirs), nil for another kind.
func BuiltinPlotCheck(kind string) PlotCheck {
	noParams := func(check PlotCheck) PlotCheck {
		return func(p *PlotSpec, e *Experiment) error {
			if len(p.Params) > 0 {
				return fmt.Errorf("kind %q takes no params", p.Kind)
			}
			if check == nil {
				return nil
			}
			return check(p, e)
		}
	}
	switch kind {
	case PlotJCTCDF, PlotRhoCDF:
		return noParams(nil)
	case PlotTimeline, PlotElastic:
		return noParams(checkWorkloadPlot)
	case PlotLines:
		return noParams(checkLines)
	case PlotBars:
		return noParams((*PlotSpec).checkBars)
	}
	return nil
}

// checkWorkloadPlot checks a plot of one workload (timeline, elastic).
func checkWorkloadPlot(p *PlotSpec, e *Experiment) error {
	if n := e.maxCount(); p.Workload < 0 || p.Workload > n {
		return fmt.Errorf("workload %d is not one of 1..%d", p.Workload, n)
	}
	return nil
}

// checkLines checks a lines plot: a known metric, series of known cells.
func checkLines(p *PlotSpec, e *Experiment) error {
	if !results.KnownMetric(e.MetricSet(), p.Metric) {
		return fmt.Errorf("unknown metric %q", p.Metric)
	}
	if p.Normalize != "" && e.Cell(p.Normalize) == nil {
		return fmt.Errorf("normalize: unknown cell %q", p.Normalize)
	}
	if !(p.Scale >= 0 && p.Scale <= MaxPlotX) {
		return fmt.Errorf("scale must be in [0, %g], got %v", MaxPlotX, p.Scale)
	}
	if p.Reference != "" {
		if _, ok := e.Sources[p.Reference]; !ok {
			return fmt.Errorf("reference source %q is not described in \"sources\"", p.Reference)
		}
	}
	if len(p.Series) == 0 {
		return errors.New("no series")
	}
	for _, s := range p.Series {
		for _, pt := range s.Points {
			if e.Cell(pt.Cell) == nil {
				return fmt.Errorf("series %q: unknown cell %q", s.Label, pt.Cell)
			}
			// Beyond the bound a point was skipped when drawn, and a log
			// axis drew x <= 0 linearly, both silently.
			if !(math.Abs(pt.X) <= MaxPlotX) {
				return fmt.Errorf("series %q: point of cell %q: x %v must be in [-%g, %g]", s.Label, pt.Cell, pt.X, MaxPlotX, MaxPlotX)
			}
			if p.LogX && !(pt.X > 0) {
				return fmt.Errorf("series %q: point of cell %q: x %v must be positive on a log_x axis", s.Label, pt.Cell, pt.X)
			}
		}
	}
	return nil
}

// PlotsOf returns the experiment's plots, or by default a JCT CDF, a ρ
// CDF and a timeline of all its cells.
func PlotsOf(e *Experiment) []PlotSpec {
	if len(e.Plots) > 0 {
		return e.Plots
	}
	return []PlotSpec{
		{Name: "jct-cdf", Kind: PlotJCTCDF, Title: e.Name + ": job completion times"},
		{Name: "rho-cdf", Kind: PlotRhoCDF, Title: e.Name + ": finish-time fairness"},
		{Name: "timeline", Kind: PlotTimeline, Title: e.Name + ": cluster over time, workload 1"},
	}
}

// checkBars checks a bars plot: groups, one cell per group in every
// series, a known metric for every group.
func (p *PlotSpec) checkBars(e *Experiment) error {
	if len(p.Groups) == 0 {
		return errors.New("no groups")
	}
	if len(p.Series) == 0 {
		return errors.New("no series")
	}
	if p.Scale < 0 {
		return errors.New("scale must be positive")
	}
	for _, g := range p.Groups {
		m := p.GroupMetric(g)
		if m == "" {
			return fmt.Errorf("group %q: no metric (give the plot's or the group's)", g.Label)
		}
		if !results.KnownMetric(e.MetricSet(), m) {
			return fmt.Errorf("group %q: unknown metric %q", g.Label, m)
		}
	}
	for _, s := range p.Series {
		if len(s.Points) > 0 {
			return fmt.Errorf("series %q: a bars plot takes cells, not points", s.Label)
		}
		if len(s.Cells) != len(p.Groups) {
			return fmt.Errorf("series %q: %d cells for %d groups", s.Label, len(s.Cells), len(p.Groups))
		}
		for _, c := range s.Cells {
			if c != "" && e.Cell(c) == nil {
				return fmt.Errorf("series %q: unknown cell %q", s.Label, c)
			}
		}
	}
	return nil
}

// GroupMetric is the metric a group of bars shows.
func (p *PlotSpec) GroupMetric(g PlotGroup) string {
	if g.Metric != "" {
		return g.Metric
	}
	return p.Metric
}
