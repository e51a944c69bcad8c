package figures_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// dots is a figure kind defined outside the package: each cell's mean of
// a metric as one dot. Its check wants a metric.
func init() {
	figures.Register(figures.Kind{
		Name: "dots", Doc: "a metric's mean per cell as dots (a test kind)",
		Check: func(p *experiments.PlotSpec, e *experiments.Experiment) error {
			if !results.KnownMetric(p.Metric) {
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
	})
}

// TestFigureKindDoorFromOutside: a kind registered outside the package is
// checked when a spec is read and drawn by Plot like the built-in ones.
func TestFigureKindDoorFromOutside(t *testing.T) {
	full := exptest.TinyFull(t)
	_, runs, _, err := sweep.OpenSweep(full)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(full, sweep.ExperimentFile))
	if err != nil {
		t.Fatal(err)
	}
	with := strings.Replace(string(data), `"plots": [`, `"plots": [{"name": "dots", "kind": "dots", "metric": "avg_jct_s"}, `, 1)
	e, err := experiments.ParseExperiment([]byte(with), "with-dots")
	if err != nil {
		t.Fatalf("a spec with the outside kind: %v", err)
	}
	bad := strings.Replace(string(data), `"plots": [`, `"plots": [{"name": "dots", "kind": "dots", "metric": "nonsense"}, `, 1)
	if _, err := experiments.ParseExperiment([]byte(bad), "bad-dots"); err == nil || !strings.Contains(err.Error(), "dots: unknown metric nonsense") {
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
