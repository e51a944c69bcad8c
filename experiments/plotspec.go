package experiments

import (
	"errors"
	"fmt"
	"math"
	"strings"

	reg "github.com/polluxsim/polluxsim/internal/registry"

	"github.com/polluxsim/polluxsim/experiments/results"
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
	check, ok := plotChecks.Lookup(p.Kind)
	if !ok {
		return fmt.Errorf("unknown kind %q (want %s)", p.Kind, strings.Join(plotChecks.Names(), ", "))
	}
	return check(p, e)
}

// PlotCheck checks a plot spec of one kind against its experiment, naming
// the offending field.
type PlotCheck func(p *PlotSpec, e *Experiment) error

// plotChecks are the plot kinds a spec may list, with their checks: the
// built-in ones, and those registered with RegisterPlotKind (a figure
// kind of one's own, see figures.Register).
var plotChecks = reg.New[PlotCheck]("plot kind")

// RegisterPlotKind adds a plot kind specs may list, with its check (nil:
// the common checks only: name and cells); it panics on a malformed or
// taken name (a programming error, found at init). figures.Register calls
// it with a kind's check.
func RegisterPlotKind(kind string, check PlotCheck) {
	if !reg.CheckName(strings.ReplaceAll(kind, "_", "-")) {
		panic(fmt.Sprintf("plot kind %q: want lower-case letters, digits, '-' and '_'", kind))
	}
	if check == nil {
		check = func(*PlotSpec, *Experiment) error { return nil }
	}
	if err := plotChecks.Add(kind, check); err != nil {
		panic(err)
	}
}

// PlotKinds lists the plot kinds specs may list.
func PlotKinds() []string { return plotChecks.Names() }

func init() {
	RegisterPlotKind(PlotJCTCDF, nil)
	RegisterPlotKind(PlotRhoCDF, nil)
	RegisterPlotKind(PlotTimeline, checkWorkloadPlot)
	RegisterPlotKind(PlotElastic, checkWorkloadPlot)
	RegisterPlotKind(PlotLines, checkLines)
	RegisterPlotKind(PlotBars, (*PlotSpec).checkBars)
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
	if !results.KnownMetric(p.Metric) {
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
		if !results.KnownMetric(m) {
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
