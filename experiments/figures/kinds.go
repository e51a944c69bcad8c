package figures

import (
	"fmt"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/results"
	reg "github.com/polluxsim/polluxsim/internal/registry"
	"github.com/polluxsim/polluxsim/profiles"
)

// Kind is a kind of figure: its name, its check and how it is drawn. A
// new kind is one file that calls Register in its init.
//
// A kind draws from one of three inputs, and exactly one of its Draw
// functions is set:
//
//   - Draw: a sweep's stored runs. These are the kinds an experiment's
//     spec lists ("kind" of a plot), drawn by Plot and the report.
//   - DrawRun: one run's output folder (its jobs, rounds and cluster
//     tables), as Fig 6. Drawn by PlotRun; `polluxsim plot NAME --in RUN`.
//   - DrawProfile: one application's measured profile, as Fig 3. Drawn by
//     PlotProfile; `polluxsim profiles plot APP --kind NAME`.
type Kind struct {
	// Name is the kind's name: lower-case letters, digits, '-' and '_'.
	Name string
	// Doc is a one-line description.
	Doc string
	// Check checks a sweep figure of this kind against its experiment
	// (nil: the common checks only, its name and cells); it is registered
	// with experiments.RegisterPlotKind. The built-in kinds' checks live
	// with the spec format, so specs are checked without this package.
	Check experiments.PlotCheck
	// Draw draws a sweep figure from the runs of each cell.
	Draw func(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error)
	// DrawRun draws a figure from one run's output folder.
	DrawRun func(in RunInput) (Figure, error)
	// DrawProfile draws a figure of one application's profile; source
	// names the profile set (for the caption).
	DrawProfile func(app *profiles.App, source string) (Figure, error)
	// File is the base name of the file a run or profile figure is
	// written to (Name when empty); a profile figure's name is File + "-"
	// + the application. A sweep figure is named by its spec.
	File string
}

// RunInput is what a run figure (Kind.DrawRun) is drawn from.
type RunInput struct {
	// Dir is the run's output folder (polluxsim run --out DIR).
	Dir string
	// Jobs are the jobs to draw, for kinds that draw chosen jobs (Fig 6);
	// empty: the kind's default choice.
	Jobs []string
}

// Figure inputs, as Kind.From reports them.
const (
	FromSweep   = "sweep"
	FromRun     = "run"
	FromProfile = "profile"
)

// From reports what the kind draws from: FromSweep, FromRun or
// FromProfile.
func (k Kind) From() string {
	switch {
	case k.DrawRun != nil:
		return FromRun
	case k.DrawProfile != nil:
		return FromProfile
	}
	return FromSweep
}

// FileName is the base name (without its format's extension) of the file
// a run figure of this kind is written to, or with app a profile figure
// of that application.
func (k Kind) FileName(app string) string {
	f := k.File
	if f == "" {
		f = k.Name
	}
	if app != "" {
		f += "-" + app
	}
	return f
}

var kinds = reg.New[Kind]("figure kind")

// Register adds a figure kind; it panics on a malformed or taken name, or
// a kind without exactly one Draw function (programming errors, found at
// init).
func Register(k Kind) {
	set := 0
	for _, f := range []bool{k.Draw != nil, k.DrawRun != nil, k.DrawProfile != nil} {
		if f {
			set++
		}
	}
	if set != 1 {
		panic(fmt.Sprintf("figure kind %q has %d of Draw, DrawRun and DrawProfile; it needs exactly one", k.Name, set))
	}
	if k.Check != nil && k.Draw == nil {
		panic(fmt.Sprintf("figure kind %q has a spec check but is not a sweep figure", k.Name))
	}
	if err := kinds.Add(k.Name, k); err != nil {
		panic(err)
	}
	if _, builtin := builtinChecked[k.Name]; !builtin && k.Draw != nil {
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

// KindsFrom lists the registered figure kinds that draw from the given
// input (FromSweep, FromRun or FromProfile), by name.
func KindsFrom(from string) []Kind {
	var out []Kind
	for _, k := range Kinds() {
		if k.From() == from {
			out = append(out, k)
		}
	}
	return out
}

// lookup finds a registered kind that draws from the given input, or says
// which kinds there are.
func lookup(name, from string) (Kind, error) {
	k, ok := kinds.Lookup(name)
	if ok && k.From() == from {
		return k, nil
	}
	var names []string
	for _, k := range KindsFrom(from) {
		names = append(names, k.Name)
	}
	if ok {
		return k, fmt.Errorf("figure kind %q draws from a %s, not a %s (the %s kinds: %s)", name, k.From(), from, from, strings.Join(names, ", "))
	}
	return k, fmt.Errorf("no figure kind %q is registered in this binary (the %s kinds: %s)", name, from, strings.Join(names, ", "))
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

// PlotRun draws the run figure of the named kind from a run's output
// folder into outDir, in each of opt's formats.
func PlotRun(kind string, in RunInput, outDir string, opt PlotOptions) (*PlotReport, error) {
	k, err := lookup(kind, FromRun)
	if err != nil {
		return nil, err
	}
	fig, err := k.DrawRun(in)
	if err != nil {
		return nil, err
	}
	return fig.saveResolved(outDir, k.FileName(""), opt)
}

// PlotProfile draws the profile figure of the named kind for one
// application into outDir, in each of opt's formats; source names the
// profile set.
func PlotProfile(kind string, app *profiles.App, source, outDir string, opt PlotOptions) (*PlotReport, error) {
	k, err := lookup(kind, FromProfile)
	if err != nil {
		return nil, err
	}
	fig, err := k.DrawProfile(app, source)
	if err != nil {
		return nil, err
	}
	return fig.saveResolved(outDir, k.FileName(app.Name), opt)
}

// saveResolved resolves opt's defaults (creating outDir) and writes the
// figure as outDir/name.<format> in each format.
func (f Figure) saveResolved(outDir, name string, opt PlotOptions) (*PlotReport, error) {
	opt, err := opt.resolved(outDir, name)
	if err != nil {
		return nil, err
	}
	rep := &PlotReport{}
	return rep, f.saveAll(rep, outDir, name, opt)
}
