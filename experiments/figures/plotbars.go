package figures

import (
	"errors"
	"image/color"
	"math"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bars are filled rectangles in data coordinates, from 0 to Y, centred at
// X and Width wide; they implement plot.Plotter, plot.DataRanger and
// plot.Thumbnailer.
type bars struct {
	XYs   plotter.XYs
	Width float64
	Color color.Color
}

// Plot draws the bars.
func (b *bars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, xy := range b.XYs {
		x0, x1 := trX(xy.X-b.Width/2), trX(xy.X+b.Width/2)
		y0, y1 := trY(0), trY(xy.Y)
		c.FillPolygon(b.Color, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
}

// DataRange covers the bars and 0.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), 0, 0
	for _, xy := range b.XYs {
		xmin, xmax = math.Min(xmin, xy.X-b.Width/2), math.Max(xmax, xy.X+b.Width/2)
		ymin, ymax = math.Min(ymin, xy.Y), math.Max(ymax, xy.Y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail draws the legend's swatch.
func (b *bars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(b.Color, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

var (
	_ plot.Plotter     = (*bars)(nil)
	_ plot.DataRanger  = (*bars)(nil)
	_ plot.Thumbnailer = (*bars)(nil)
)

// barsPlot draws a bars plot: per group, one bar per series at the mean
// of the cell's metric over its workloads, with the 95 % confidence
// interval as an error bar.
func barsPlot(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error) {
	p, leg, scale := metricAxes(ps)
	n := len(ps.Series)
	width := 0.8 / float64(n)
	ymax, drawn := 0.0, 0
	for i, s := range ps.Series {
		var pts errXY
		for g, cell := range s.Cells {
			if cell == "" {
				continue
			}
			ws, vs := sweep.CellValuesIn(exp.MetricSet(), byCell[cell], ps.GroupMetric(ps.Groups[g]))
			if len(vs) == 0 {
				continue
			}
			for k := range vs {
				vs[k] /= scale
			}
			st := results.Describe(ws, vs)
			h := 0.0
			if st.HalfWidth != nil {
				h = *st.HalfWidth
			}
			x := float64(g) + (float64(i)-float64(n-1)/2)*width
			pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: st.Mean})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: h, High: h})
			ymax = math.Max(ymax, st.Mean+h)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		drawn++
		col := palette[i%len(palette)]
		b := &bars{XYs: pts.XYs, Width: width * 0.92, Color: col}
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return Figure{}, err
		}
		eb.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		eb.CapWidth = vg.Points(4)
		p.Add(b, eb)
		leg.Add(s.Label, b)
	}
	if drawn == 0 {
		return Figure{}, errors.New("no results for its cells")
	}
	ticks := make([]plot.Tick, len(ps.Groups))
	for g, grp := range ps.Groups {
		ticks[g] = plot.Tick{Value: float64(g), Label: grp.Label}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(ps.Groups))-0.5
	p.Y.Min = 0
	p.Y.Max, p.Y.Tick.Marker = niceAxis(ymax * 1.02)
	leg.Add("95 % CI over workloads", &errBarThumb{})
	return Figure{plots: []*plot.Plot{p}, legend: leg, w: 8.4 * vg.Inch, h: 4.4 * vg.Inch}, nil
}

// errBarThumb is the legend swatch of an error bar.
type errBarThumb struct{}

// Thumbnail draws a vertical bar with caps.
func (errBarThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	mx := (r.Min.X + r.Max.X) / 2
	cap := vg.Points(4)
	st := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	c.StrokeLine2(st, mx, r.Min.Y, mx, r.Max.Y)
	c.StrokeLine2(st, mx-cap, r.Min.Y, mx+cap, r.Min.Y)
	c.StrokeLine2(st, mx-cap, r.Max.Y, mx+cap, r.Max.Y)
}
