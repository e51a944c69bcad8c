package figures_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/profiles"
)

// dots is a figure kind defined outside the package: each cell's mean of
// a metric as one dot. Its check wants a metric.
var dots = figures.Kind{
	Name: "dots", Doc: "a metric's mean per cell as dots (a test kind)",
	Check: func(p *experiments.PlotSpec, e *experiments.Experiment) error {
		if !results.KnownMetric(outputs.Metrics{}, p.Metric) {
			return errors.New("dots: unknown metric " + p.Metric)
		}
		return nil
	},
	Draw: func(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (figures.Figure, error) {
		p := plot.New()
		p.Title.Text = ps.Name
		var xy plotter.XYs
		for i, c := range exp.Cells {
			w, v := sweep.CellValues(byCell[c.Name], ps.Metric)
			if len(w) == 0 {
				continue
			}
			sum := 0.0
			for _, x := range v {
				sum += x
			}
			xy = append(xy, plotter.XY{X: float64(i), Y: sum / float64(len(v))})
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return figures.Figure{}, err
		}
		p.Add(s)
		leg := figures.NewLegend()
		leg.Add("mean", s)
		return figures.NewFigure([]*plot.Plot{p}, leg, 6*vg.Inch, 4*vg.Inch), nil
	},
}

// doorExt are the built-ins with the three kinds of this file.
func doorExt(t *testing.T) *extensions.Extensions {
	t.Helper()
	ext, err := intree.With(figures.WithKind(dots, jobsBar, stepTimes))
	if err != nil {
		t.Fatal(err)
	}
	return ext
}

// TestFigureKindDoorFromOutside: a kind registered outside the package is
// checked when a spec is read and drawn by Plot like the built-in ones.
func TestFigureKindDoorFromOutside(t *testing.T) {
	ext := doorExt(t)
	full := exptest.TinyFull(t)
	_, runs, _, err := sweep.OpenSweep(full, ext)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(full, sweep.ExperimentFile))
	if err != nil {
		t.Fatal(err)
	}
	with := strings.Replace(string(data), `"plots": [`, `"plots": [{"name": "dots", "kind": "dots", "metric": "avg_jct_s"}, `, 1)
	e, err := experiments.ParseExperiment([]byte(with), "with-dots", ext)
	if err != nil {
		t.Fatalf("a spec with the outside kind: %v", err)
	}
	bad := strings.Replace(string(data), `"plots": [`, `"plots": [{"name": "dots", "kind": "dots", "metric": "nonsense"}, `, 1)
	if _, err := experiments.ParseExperiment([]byte(bad), "bad-dots", ext); err == nil || !strings.Contains(err.Error(), "dots: unknown metric nonsense") {
		t.Errorf("the kind's own check did not run: %v", err)
	}
	out := t.TempDir()
	rep, err := figures.Plot(e, runs, out, figures.PlotOptions{Formats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(out, "dots.png")); err != nil || st.Size() == 0 || len(rep.Skipped) != 0 {
		t.Errorf("dots.png: %v (skipped %v)", err, rep.Skipped)
	}
}

// jobsBar and stepTimes are a run kind and a profile kind defined outside
// the package: one bar per job of its completion time, read from the run's
// jobs.parquet; an application's measured step times against the per-GPU
// batch.
var jobsBar = figures.Kind{
	Name: "jobs-bar", Doc: "each job's completion time (a test kind)",
	DrawRun: func(in figures.RunInput) (figures.Figure, error) {
		jobs, err := outputs.ReadTableColumns(filepath.Join(in.Dir, sweep.JobsFile), "jct_s")
		if err != nil {
			return figures.Figure{}, err
		}
		p := plot.New()
		bars, err := plotter.NewBarChart(plotter.Values(jobs.Nums["jct_s"]), vg.Points(2))
		if err != nil {
			return figures.Figure{}, err
		}
		p.Add(bars)
		return figures.NewFigure([]*plot.Plot{p}, nil, 6*vg.Inch, 4*vg.Inch), nil
	},
}

var stepTimes = figures.Kind{
	Name: "step-times", Doc: "measured step times (a test kind)", File: "steps",
	DrawProfile: func(app *profiles.App, source string) (figures.Figure, error) {
		tt, ok := app.Truth.(*profiles.TableTruth)
		if !ok {
			return figures.Figure{}, errors.New(app.Name + ": not measured")
		}
		var xy plotter.XYs
		for _, o := range tt.Observations() {
			xy = append(xy, plotter.XY{X: o.Local, Y: o.TIter})
		}
		p := plot.New()
		p.Title.Text = app.Name + " (" + source + ")"
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return figures.Figure{}, err
		}
		p.Add(s)
		return figures.NewFigure([]*plot.Plot{p}, nil, 6*vg.Inch, 4*vg.Inch), nil
	},
}

// TestRunAndProfileKindDoorsFromOutside: run and profile kinds registered
// outside the package are drawn by PlotRun and PlotProfile like fig6 and
// fig3, are listed by what they draw from, are not kinds a spec may list,
// and a kind asked of the wrong input is refused naming the right ones.
func TestRunAndProfileKindDoorsFromOutside(t *testing.T) {
	ext := doorExt(t)
	run := t.TempDir()
	exptest.RunWithOptions(t, "fifo", "", run)
	out := t.TempDir()
	if _, err := figures.PlotRun(ext, "jobs-bar", figures.RunInput{Dir: run}, out, figures.PlotOptions{Formats: []string{"svg"}}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(out, "jobs-bar.svg")); err != nil || st.Size() == 0 {
		t.Errorf("jobs-bar.svg: %v", err)
	}
	app, err := profiles.Default().App("cifar10")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := figures.PlotProfile(ext, "step-times", app, "embedded", out, figures.PlotOptions{Formats: []string{"svg"}}); err != nil {
		t.Fatal(err)
	}
	if svg, err := os.ReadFile(filepath.Join(out, "steps-cifar10.svg")); err != nil || !strings.Contains(string(svg), "cifar10 (embedded)") {
		t.Errorf("steps-cifar10.svg: %v", err)
	}
	from := map[string][]string{}
	for _, f := range []string{figures.FromSweep, figures.FromRun, figures.FromProfile} {
		for _, k := range figures.KindsFrom(ext, f) {
			from[f] = append(from[f], k.Name)
		}
	}
	if !slices.Contains(from[figures.FromRun], "jobs-bar") || !slices.Contains(from[figures.FromRun], figures.KindCoAdaptation) ||
		!slices.Contains(from[figures.FromProfile], "step-times") || !slices.Contains(from[figures.FromProfile], figures.KindProfileFit) ||
		slices.Contains(from[figures.FromSweep], "jobs-bar") || !slices.Contains(from[figures.FromSweep], "dots") {
		t.Errorf("kinds by input: %v", from)
	}
	if _, err := figures.PlotRun(ext, "step-times", figures.RunInput{Dir: run}, out, figures.PlotOptions{}); err == nil ||
		!strings.Contains(err.Error(), `"step-times" draws from a profile, not a run`) || !strings.Contains(err.Error(), "jobs-bar") {
		t.Errorf("a profile kind asked of a run: %v", err)
	}
	full := exptest.TinyFull(t)
	data, err := os.ReadFile(filepath.Join(full, sweep.ExperimentFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"jobs-bar", figures.KindCoAdaptation, figures.KindProfileFit} {
		spec := strings.Replace(string(data), `"plots": [`, `"plots": [{"name": "x", "kind": "`+k+`"}, `, 1)
		if _, err := experiments.ParseExperiment([]byte(spec), "x", ext); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("a spec listing the %s kind: %v", k, err)
		}
	}
}
