package figures

import (
	"fmt"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/results"
	reg "github.com/polluxsim/polluxsim/internal/registry"
)

// Kind is a kind of figure an experiment's spec may list ("kind" of a
// plot): its check, run when a spec is read, and how it is drawn from the
// sweep's stored runs. A new kind is one file that calls Register in its
// init.
type Kind struct {
	// Name is the spec's "kind": lower-case letters, digits, '-' and '_'.
	Name string
	// Doc is a one-line description.
	Doc string
	// Check checks a plot of this kind against its experiment (nil: the
	// common checks only, its name and cells); it is registered with
	// experiments.RegisterPlotKind. The built-in kinds' checks live with
	// the spec format, so specs are checked without this package.
	Check experiments.PlotCheck
	// Draw draws the figure from the runs of each cell.
	Draw func(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error)
}

var kinds = reg.New[Kind]("figure kind")

// Register adds a figure kind; it panics on a malformed or taken name (a
// programming error, found at init).
func Register(k Kind) {
	if k.Draw == nil {
		panic(fmt.Sprintf("figure kind %q has no Draw", k.Name))
	}
	if err := kinds.Add(k.Name, k); err != nil {
		panic(err)
	}
	if _, builtin := builtinChecked[k.Name]; !builtin {
		experiments.RegisterPlotKind(k.Name, k.Check)
	}
}

// Kinds lists the registered figure kinds by name.
func Kinds() []Kind {
	var out []Kind
	for _, n := range kinds.Names() {
		k, _ := kinds.Lookup(n)
		out = append(out, k)
	}
	return out
}

// builtinChecked are the kinds whose checks the spec format registers
// itself.
var builtinChecked = map[string]bool{
	experiments.PlotJCTCDF: true, experiments.PlotRhoCDF: true, experiments.PlotTimeline: true,
	experiments.PlotLines: true, experiments.PlotBars: true, experiments.PlotElastic: true,
}

func init() {
	for _, k := range []Kind{
		{Name: experiments.PlotJCTCDF, Doc: "distribution of job completion times per cell, pooled over workloads", Draw: jctCDF},
		{Name: experiments.PlotRhoCDF, Doc: "distribution of finish-time fairness ρ per cell (paper Fig 7)", Draw: rhoCDF},
		{Name: experiments.PlotTimeline, Doc: "GPUs allocated and mean statistical efficiency over time on one workload (paper Fig 5)", Draw: timeline},
		{Name: experiments.PlotLines, Doc: "a metric's mean and 95 % CI against a numeric setting, one line per series (paper Fig 8)", Draw: linesPlot},
		{Name: experiments.PlotBars, Doc: "a metric's mean and 95 % CI as grouped bars", Draw: barsPlot},
		{Name: experiments.PlotElastic, Doc: "an elastic cluster's nodes, batch size and efficiency over time (paper Fig 9)", Draw: elasticPlot},
	} {
		Register(k)
	}
}
