package figures

import (
	"fmt"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/profiles"
)

// Kind is a kind of figure: its name, its check and how it is drawn. A
// new kind is one file that declares it; a binary adds it to its
// extensions (app.WithKind, extensions.WithKind), where the spec format,
// Plot and the report find it.
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
	// when a spec is read (nil: the common checks only, its name and
	// cells, and no params). A kind with parameters decodes them here,
	// strictly, from the plot's Params (PlotSpec.DecodeParams). The
	// built-in kinds' checks live with the spec format
	// (experiments.BuiltinPlotCheck).
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

// KindName implements extensions.FigureKind.
func (k Kind) KindName() string { return k.Name }

// DrawsSweep implements experiments.PlotKind: whether a spec may list the
// kind.
func (k Kind) DrawsSweep() bool { return k.From() == FromSweep }

// CheckPlot implements experiments.PlotKind: Check, or without one, no
// params.
func (k Kind) CheckPlot(p *experiments.PlotSpec, e *experiments.Experiment) error {
	if k.Check != nil {
		return k.Check(p, e)
	}
	if len(p.Params) > 0 {
		return fmt.Errorf("kind %q takes no params", p.Kind)
	}
	return nil
}

// check says what is wrong with a kind's declaration: it needs exactly
// one Draw function, and a spec check only if it draws from a sweep.
func (k Kind) check() error {
	set := 0
	for _, f := range []bool{k.Draw != nil, k.DrawRun != nil, k.DrawProfile != nil} {
		if f {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("figure kind %q has %d of Draw, DrawRun and DrawProfile; it needs exactly one", k.Name, set)
	}
	if k.Check != nil && k.Draw == nil {
		return fmt.Errorf("figure kind %q has a spec check but is not a sweep figure", k.Name)
	}
	return nil
}

// Kinds lists ext's figure kinds by name (those that are a Kind).
func Kinds(ext *extensions.Extensions) []Kind {
	var out []Kind
	for _, f := range ext.FigureKinds().All() {
		if k, ok := f.(Kind); ok {
			out = append(out, k)
		}
	}
	return out
}

// KindsFrom lists ext's figure kinds that draw from the given input
// (FromSweep, FromRun or FromProfile), by name.
func KindsFrom(ext *extensions.Extensions, from string) []Kind {
	var out []Kind
	for _, k := range Kinds(ext) {
		if k.From() == from {
			out = append(out, k)
		}
	}
	return out
}

// lookup finds a kind of ext that draws from the given input, or says
// which kinds there are.
func lookup(ext *extensions.Extensions, name, from string) (Kind, error) {
	f, ok := ext.FigureKinds().Lookup(name)
	k, isKind := f.(Kind)
	ok = ok && isKind
	if ok && k.From() == from {
		return k, nil
	}
	var names []string
	for _, k := range KindsFrom(ext, from) {
		names = append(names, k.Name)
	}
	if ok {
		return k, fmt.Errorf("figure kind %q draws from a %s, not a %s (the %s kinds: %s)", name, k.From(), from, from, strings.Join(names, ", "))
	}
	return k, fmt.Errorf("no figure kind %q is registered in this binary (the %s kinds: %s)", name, from, strings.Join(names, ", "))
}

// Builtin are the built-in figure kinds: the sweep kinds a spec may list
// (jct_cdf, rho_cdf, timeline, lines, bars, elastic, failure-rate), Fig 6's
// run kind and Fig 3's profile kind.
func Builtin() []Kind {
	ks := []Kind{
		{Name: experiments.PlotJCTCDF, Doc: "distribution of job completion times per cell, pooled over workloads", Draw: jctCDF},
		{Name: experiments.PlotRhoCDF, Doc: "distribution of finish-time fairness ρ per cell (paper Fig 7)", Draw: rhoCDF},
		{Name: experiments.PlotTimeline, Doc: "GPUs allocated and mean statistical efficiency over time on one workload (paper Fig 5)", Draw: timeline},
		{Name: experiments.PlotLines, Doc: "a metric's mean and 95 % CI against a numeric setting, one line per series (paper Fig 8)", Draw: linesPlot},
		{Name: experiments.PlotBars, Doc: "a metric's mean and 95 % CI as grouped bars", Draw: barsPlot},
		{Name: experiments.PlotElastic, Doc: "an elastic cluster's nodes, batch size and efficiency over time (paper Fig 9)", Draw: elasticPlot},
		coAdaptationKind, profileFitKind,
	}
	for i := range ks {
		if ks[i].Draw != nil {
			ks[i].Check = experiments.BuiltinPlotCheck(ks[i].Name)
		}
	}
	// A sweep kind with a check of its own (docs/failures.md).
	return append(ks, failureRateKind)
}

// Extension returns kinds as extensions.FigureKind values, checked (a
// malformed kind is an error), for extensions.WithKind.
func Extension(kinds ...Kind) ([]extensions.FigureKind, error) {
	var out []extensions.FigureKind
	for _, k := range kinds {
		if err := k.check(); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// WithKind is extensions.WithKind for figure kinds, checked as Extension
// does.
func WithKind(kinds ...Kind) extensions.Option {
	return func(e *extensions.Extensions) error {
		fs, err := Extension(kinds...)
		if err != nil {
			return err
		}
		return extensions.WithKind(fs...)(e)
	}
}

// PlotRun draws the run figure of ext's kind called kind from a run's output
// folder into outDir, in each of opt's formats.
func PlotRun(ext *extensions.Extensions, kind string, in RunInput, outDir string, opt PlotOptions) (*PlotReport, error) {
	k, err := lookup(ext, kind, FromRun)
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
func PlotProfile(ext *extensions.Extensions, kind string, app *profiles.App, source, outDir string, opt PlotOptions) (*PlotReport, error) {
	k, err := lookup(ext, kind, FromProfile)
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
