package figures

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/profiles"
)

// ProfileFitFile is the base name of an application's throughput-model
// figure: ProfileFitFile + "-" + application.
const ProfileFitFile = "fig3-throughput"

// ProfileFit is θ_sys fitted to an application's measured step times.
type ProfileFit struct {
	Params models.Params
	// Obs are the measured rows it was fitted to.
	Obs []models.Observation
	// RMSLogError is the root mean square of log(model/measured) step time.
	RMSLogError float64
}

// FitProfile fits the throughput model θ_sys (models.Fit) to every
// measured step time of an application read from measured tables.
func FitProfile(app *profiles.App) (*ProfileFit, error) {
	tt, ok := app.Truth.(*profiles.TableTruth)
	if !ok {
		return nil, fmt.Errorf("%s: the fit needs measured tables (--profiles embedded or a reference folder), not a compact model", app.Name)
	}
	obs := tt.Observations()
	p, err := models.Fit(obs, models.FitOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", app.Name, err)
	}
	f := &ProfileFit{Params: p, Obs: obs}
	for _, o := range obs {
		d := math.Log(p.TIter(o.Nodes, o.GPUs, o.Local, o.Accum) / o.TIter)
		f.RMSLogError += d * d
	}
	f.RMSLogError = math.Sqrt(f.RMSLogError / float64(len(obs)))
	return f, nil
}

// KindProfileFit is the figure kind of the paper's Fig 3 (a profile
// figure): PlotProfile(KindProfileFit, app, ...).
const KindProfileFit = "fig3"

// profileFitKind is Fig 3's kind (in Builtin).
var profileFitKind = Kind{Name: KindProfileFit, File: ProfileFitFile, DrawProfile: profileFit,
	Doc: "the throughput model fitted to an application's measured step times, against them (paper Fig 3)"}

// profileFit draws the paper's Fig 3 for one application: the fitted
// throughput model against the measured step times, (a) throughput against
// the number of GPUs (packed on the fewest nodes measured) at three per-GPU
// batch sizes and (b) step time against the per-GPU batch size on a few
// placements; measured values are marks, the model lines.
func profileFit(app *profiles.App, source string) (Figure, error) {
	fit, err := FitProfile(app)
	if err != nil {
		return Figure{}, err
	}
	// (a) throughput vs GPUs at a few per-GPU batch sizes.
	byLocal := map[float64][]models.Observation{}
	for _, o := range fit.Obs {
		byLocal[o.Local] = append(byLocal[o.Local], o)
	}
	locals := make([]float64, 0, len(byLocal))
	for m := range byLocal {
		locals = append(locals, m)
	}
	sort.Float64s(locals)
	var chosen []float64
	if len(locals) > 0 {
		for _, i := range []int{0, len(locals) / 2, len(locals) - 1} {
			if len(chosen) == 0 || chosen[len(chosen)-1] != locals[i] {
				chosen = append(chosen, locals[i])
			}
		}
	}
	a := newPlot(fmt.Sprintf("%s: throughput model vs. measurements (Fig 3)", app.Name), "GPUs (log scale)", "throughput (samples/s)")
	b := newPlot("", "per-GPU batch size (samples)", "step time (s)")
	leg := NewLegend()
	maxK, maxTput := 1, 0.0
	for i, m := range chosen {
		// The fewest nodes measured for each GPU count.
		best := map[int]models.Observation{}
		for _, o := range byLocal[m] {
			if c, ok := best[o.GPUs]; !ok || o.Nodes < c.Nodes {
				best[o.GPUs] = o
			}
		}
		ks := make([]int, 0, len(best))
		for k := range best {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		var meas, model plotter.XYs
		for _, k := range ks {
			o := best[k]
			x := math.Log2(float64(k))
			meas = append(meas, plotter.XY{X: x, Y: float64(k) * m / o.TIter})
			model = append(model, plotter.XY{X: x, Y: fit.Params.Throughput(o.Nodes, k, m, 0)})
			maxK = max(maxK, k)
			maxTput = math.Max(maxTput, math.Max(meas[len(meas)-1].Y, model[len(model)-1].Y))
		}
		if err := addFitLines(a, leg, i, meas, model, fmt.Sprintf("batch %g per GPU", m)); err != nil {
			return Figure{}, err
		}
	}
	var ticks []plot.Tick
	for k := 1; k <= maxK; k *= 2 {
		ticks = append(ticks, plot.Tick{Value: math.Log2(float64(k)), Label: strconv.Itoa(k)})
	}
	a.X.Tick.Marker = plot.ConstantTicks(ticks)
	a.X.Min, a.X.Max = -0.2, math.Log2(float64(maxK))+0.2
	a.Y.Min = 0
	a.Y.Max, a.Y.Tick.Marker = niceAxis(maxTput * 1.05)

	// (b) step time vs per-GPU batch on a few placements.
	type place struct{ n, k int }
	rows := map[place][]models.Observation{}
	for _, o := range fit.Obs {
		rows[place{o.Nodes, o.GPUs}] = append(rows[place{o.Nodes, o.GPUs}], o)
	}
	maxStep := 0.0
	for i, pl := range []place{{1, 1}, {1, 4}, {4, 16}, {16, 64}} {
		obs := rows[pl]
		if len(obs) == 0 {
			continue
		}
		sort.Slice(obs, func(x, y int) bool { return obs[x].Local < obs[y].Local })
		var meas, model plotter.XYs
		// Several measured placements may share (nodes, GPUs): one mark each.
		for _, o := range obs {
			meas = append(meas, plotter.XY{X: o.Local, Y: o.TIter})
			maxStep = math.Max(maxStep, o.TIter)
		}
		lo, hi := obs[0].Local, obs[len(obs)-1].Local
		for j := 0; j <= 40; j++ {
			m := lo + (hi-lo)*float64(j)/40
			model = append(model, plotter.XY{X: m, Y: fit.Params.TIter(pl.n, pl.k, m, 0)})
		}
		if err := addFitLines(b, leg, len(chosen)+i, meas, model, gpusOnNodes(pl.k, pl.n)); err != nil {
			return Figure{}, err
		}
	}
	b.Y.Min = 0
	b.Y.Max, b.Y.Tick.Marker = niceAxis(maxStep * 1.05)
	fig := Figure{plots: []*plot.Plot{a, b}, legend: leg, w: 8 * vg.Inch, h: 6.4 * vg.Inch,
		caption: fmt.Sprintf("profiles: %s; θ_sys fitted (models.Fit) to %d measured step times, RMS log error %.3f; marks: measured, lines: model",
			source, len(fit.Obs), fit.RMSLogError)}
	return fig, nil
}

// addFitLines adds measured marks and a model line in style i, with one
// legend entry for both.
func addFitLines(p *plot.Plot, leg *Legend, i int, meas, model plotter.XYs, label string) error {
	st := lineStyle(i)
	l, err := plotter.NewLine(model)
	if err != nil {
		return err
	}
	l.LineStyle = st
	sc, err := plotter.NewScatter(meas)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(l, sc)
	leg.Add(label, l, sc)
	return nil
}

func gpusOnNodes(k, n int) string {
	g, nd := "GPUs", "nodes"
	if k == 1 {
		g = "GPU"
	}
	if n == 1 {
		nd = "node"
	}
	return fmt.Sprintf("%d %s on %d %s", k, g, n, nd)
}
