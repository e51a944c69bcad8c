package figures

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	xdraw "image/draw"
	"image/png"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PlotReport lists what Plot wrote and what it skipped (and why).
type PlotReport struct {
	Files   []string
	Skipped []string
}

// PlotOptions choose the figures' size and formats.
type PlotOptions struct {
	Size    FigureSize // SizeWide when empty
	Formats []string   // png and svg when empty (see FigureFormats)
	// Check, if set, is called with every file to be written before any
	// is: an error stops the plot with nothing written (a command refusing
	// to write onto its inputs).
	Check func(path string) error
}

// Plot draws the experiment's figures (PlotsOf) from its stored runs into
// outDir, in each of opt's formats, each with a caption naming its inputs.
func Plot(exp *experiments.Experiment, runs []*results.RunResult, outDir string, opt PlotOptions) (*PlotReport, error) {
	figs := figures(exp, runs)
	var names []string
	for _, nf := range figs {
		if nf.err == nil {
			names = append(names, nf.spec.Name)
		}
	}
	opt, err := opt.resolved(outDir, names...)
	if err != nil {
		return nil, err
	}
	rep := &PlotReport{}
	for _, nf := range figs {
		if nf.err != nil {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", nf.spec.Name, nf.err))
			continue
		}
		if err := nf.fig.saveAll(rep, outDir, nf.spec.Name, opt); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// resolved returns opt with its defaults filled in (SizeWide; png and svg)
// and checked, checks the files of the figures names (opt.Check), and
// creates outDir.
func (opt PlotOptions) resolved(outDir string, names ...string) (PlotOptions, error) {
	if len(opt.Formats) == 0 {
		opt.Formats = defaultFormats
	}
	for _, f := range opt.Formats {
		if !slices.Contains(FigureFormats, f) {
			return opt, fmt.Errorf("plot: unknown format %q (use %s)", f, strings.Join(FigureFormats, ", "))
		}
	}
	if opt.Size == "" {
		opt.Size = SizeWide
	}
	if opt.Size != SizeWide && opt.Size != SizeColumn {
		return opt, fmt.Errorf("plot: unknown size %q (use %s or %s)", opt.Size, SizeWide, SizeColumn)
	}
	for _, name := range names {
		if err := opt.check(outDir, name); err != nil {
			return opt, err
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return opt, fmt.Errorf("plot: %w", fserr.Cause(err))
	}
	return opt, nil
}

// saveAll writes fig as outDir/name.<format> in each of opt's formats
// (opt resolved) and lists the files in rep.
func (f Figure) saveAll(rep *PlotReport, outDir, name string, opt PlotOptions) error {
	for i, path := range opt.Files(outDir, name) {
		if err := f.save(path, opt.Formats[i], opt.Size); err != nil {
			return err
		}
		rep.Files = append(rep.Files, path)
	}
	return nil
}

// defaultFormats are a figure's formats when PlotOptions names none.
var defaultFormats = []string{"png", "svg"}

// check calls opt.Check, if set, with each of the figure name's files.
func (opt PlotOptions) check(outDir, name string) error {
	if opt.Check == nil {
		return nil
	}
	for _, path := range opt.Files(outDir, name) {
		if err := opt.Check(path); err != nil {
			return err
		}
	}
	return nil
}

// Files are the files of the figure name in outDir, one per format of
// opt (png and svg when it has none): outDir/name.<format>.
func (opt PlotOptions) Files(outDir, name string) []string {
	formats := opt.Formats
	if len(formats) == 0 {
		formats = defaultFormats
	}
	var files []string
	for _, ext := range formats {
		files = append(files, filepath.Join(outDir, name+"."+ext))
	}
	return files
}

// namedFigure is one figure of an experiment, or why it cannot be drawn.
type namedFigure struct {
	spec experiments.PlotSpec
	fig  Figure
	err  error
}

// figures draws every figure the experiment lists, each with a caption.
func figures(exp *experiments.Experiment, runs []*results.RunResult) []namedFigure {
	byCell := map[string][]*results.RunResult{}
	for _, r := range runs {
		byCell[r.Cell] = append(byCell[r.Cell], r)
	}
	var out []namedFigure
	for _, ps := range experiments.PlotsOf(exp) {
		var fig Figure
		k, err := lookup(exp.Extensions(), ps.Kind, FromSweep)
		if m := exp.UnknownMetric(&ps); err == nil && m != "" {
			err = fmt.Errorf("metric %q is not in this binary", m)
		}
		if err == nil {
			fig, err = k.Draw(exp, ps, byCell)
		}
		fig.caption = captionOf(exp, runs, ps)
		out = append(out, namedFigure{ps, fig, err})
	}
	return out
}

// Rendered is one of an experiment's figures drawn as inline SVG (an SVG
// document without its XML prolog) at SizeWide, for an HTML page; Err says
// why it could not be drawn.
type Rendered struct {
	Name    string
	SVG     []byte
	Caption string
	Err     error
}

// RenderSVG draws every figure the experiment lists as inline SVG, the
// caption apart (for a figcaption).
func RenderSVG(exp *experiments.Experiment, runs []*results.RunResult) ([]Rendered, error) {
	var out []Rendered
	for _, nf := range figures(exp, runs) {
		if nf.err != nil {
			out = append(out, Rendered{Name: nf.spec.Name, Err: nf.err})
			continue
		}
		var buf bytes.Buffer
		caption := nf.fig.caption
		nf.fig.caption = "" // in the figcaption instead
		if err := nf.fig.render(&buf, "svg", SizeWide); err != nil {
			return nil, fmt.Errorf("figure %s: %w", nf.spec.Name, err)
		}
		out = append(out, Rendered{Name: nf.spec.Name, SVG: svgInline(buf.Bytes()), Caption: caption})
	}
	return out, nil
}

// captionOf names a figure's inputs: experiment, profiles, workloads,
// polluxsim version, and where its reference numbers come from.
func captionOf(exp *experiments.Experiment, runs []*results.RunResult, ps experiments.PlotSpec) string {
	profs, vers, wls := map[string]bool{}, map[string]bool{}, map[string]int{}
	for _, r := range runs {
		profs[r.ProfilesID] = true
		vers[r.PolluxsimVersion] = true
		wls[WorkloadKind(r.WorkloadSource)]++
	}
	keys := func(m map[string]bool) string {
		var k []string
		for s := range m {
			k = append(k, s)
		}
		sort.Strings(k)
		return strings.Join(k, ", ")
	}
	var wl []string
	for _, k := range slices.Sorted(maps.Keys(wls)) {
		wl = append(wl, fmt.Sprintf("%s (%d runs)", k, wls[k]))
	}
	c := fmt.Sprintf("%s v%d, %d runs; profiles: %s; workloads: %s; polluxsim %s", exp.Name, exp.Version, len(runs), keys(profs), strings.Join(wl, ", "), keys(vers))
	if ps.Reference != "" {
		c += "; dashed: " + ps.Reference + " numbers (" + referenceInputs(exp, ps.Reference) + ")"
	}
	return c
}

// WorkloadKind shortens a workload's source to its kind: the folder of a
// file (dir/*.csv), or a generator's description without its seed.
func WorkloadKind(src string) string {
	if i := strings.IndexAny(src, ":("); i > 0 {
		return strings.TrimSpace(src[:i])
	}
	if i := strings.LastIndex(src, "/"); i >= 0 {
		return src[:i+1] + "*" + filepath.Ext(src)
	}
	return src
}

// referenceInputs says what a reference's numbers were measured on.
func referenceInputs(exp *experiments.Experiment, ref string) string {
	if src, ok := exp.Sources[ref]; ok {
		if i := strings.IndexAny(src, ",;("); i > 0 && i < 60 {
			return strings.TrimSpace(src[:i])
		}
		if len(src) > 60 {
			return src[:57] + "..."
		}
		return src
	}
	return "published"
}

// smallPNG writes a vgimg canvas as a PNG with the best compression
// (figures are committed to the repository).
type smallPNG struct{ *vgimg.Canvas }

func (c smallPNG) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	img := c.Image()
	pal := image.NewPaletted(img.Bounds(), figurePalette)
	xdraw.Draw(pal, img.Bounds(), img, img.Bounds().Min, xdraw.Src)
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	err := enc.Encode(cw, pal)
	return cw.n, err
}

// figurePalette holds the line colours blended with white in 16 steps
// and a grey ramp: enough for anti-aliased lines and text, and a PNG a
// third the size of a true-colour one.
var figurePalette = func() color.Palette {
	var p color.Palette
	for i := 0; i < 32; i++ {
		v := uint8(255 * i / 31)
		p = append(p, color.RGBA{v, v, v, 0xff})
	}
	for _, c := range palette[:6] {
		r, g, b, _ := c.RGBA()
		for i := 0; i < 16; i++ {
			f := float64(i) / 15 // share of the colour, the rest white
			mix := func(x uint32) uint8 { return uint8(float64(x>>8)*f + 255*(1-f) + 0.5) }
			p = append(p, color.RGBA{mix(r), mix(g), mix(b), 0xff})
		}
	}
	return p
}()

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Line styles: the Okabe–Ito colour-blind-safe palette, with dash
// patterns so that lines differ in greyscale too.
var (
	palette = []color.Color{
		color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
		color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
		color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
		color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
		color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
		color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
		color.RGBA{0x99, 0x99, 0x99, 0xff}, // grey
	}
	dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
)

func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.6), Dashes: dashes[(i/len(palette)+i)%len(dashes)]}
}

// newPlot makes a plot with the project's look: grid, readable fonts.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Label.Font.Size = vg.Points(10)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// plotCells resolves a plot's cells (default: all) that have runs.
func plotCells(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) []*experiments.Cell {
	names := ps.Cells
	if len(names) == 0 {
		for _, c := range exp.Cells {
			names = append(names, c.Name)
		}
	}
	var out []*experiments.Cell
	for _, n := range names {
		if len(byCell[n]) > 0 {
			out = append(out, exp.Cell(n))
		}
	}
	return out
}

// ecdf returns the empirical distribution of values as a staircase.
func ecdf(values []float64) plotter.XYs {
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	n := float64(len(v))
	xy := make(plotter.XYs, 0, 2*len(v))
	for i, x := range v {
		xy = append(xy, plotter.XY{X: x, Y: float64(i) / n}, plotter.XY{X: x, Y: float64(i+1) / n})
	}
	return xy
}

// Axis scales of CDF plots.
const (
	linearAxis = iota
	log10Axis
	log2Axis
)

func cdfFigure(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult, title, xLabel string, logX int,
	values func(*results.RunResult) []float64) (Figure, error) {
	cells := plotCells(exp, ps, byCell)
	if len(cells) == 0 {
		return Figure{}, fmt.Errorf("no results for its cells")
	}
	if ps.Title != "" {
		title = ps.Title
	}
	p := newPlot(title, xLabel, "fraction of jobs")
	leg := NewLegend()
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range cells {
		var v []float64
		for _, r := range byCell[c.Name] {
			v = append(v, values(r)...)
		}
		if len(v) == 0 {
			continue
		}
		xy := ecdf(v)
		lo, hi = math.Min(lo, xy[0].X), math.Max(hi, xy[len(xy)-1].X)
		// Log axes are drawn as linear axes of the logarithm (gonum's
		// LogScale misplaces the axis label's extent and shrinks the plot).
		for i := range xy {
			switch logX {
			case log10Axis:
				xy[i].X = math.Log10(xy[i].X)
			case log2Axis:
				xy[i].X = math.Log2(xy[i].X)
			}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return Figure{}, err
		}
		l.LineStyle = lineStyle(i)
		p.Add(l)
		leg.Add(fmt.Sprintf("%s (%d jobs)", c.Title(), len(v)), l)
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = plot.ConstantTicks(fractionTicks())
	switch logX {
	case log10Axis:
		lo, hi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		p.X.Min, p.X.Max = lo, hi
		var ticks []plot.Tick
		for e := lo; e <= hi; e++ {
			ticks = append(ticks, plot.Tick{Value: e, Label: strconv.FormatFloat(math.Pow(10, e), 'f', -1, 64)})
			for m := 2; m < 10 && e < hi; m++ {
				ticks = append(ticks, plot.Tick{Value: e + math.Log10(float64(m))})
			}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	case log2Axis:
		lo, hi := math.Floor(math.Log2(lo)), math.Ceil(math.Log2(hi))
		p.X.Min, p.X.Max = lo, hi
		var ticks []plot.Tick
		for e := lo; e <= hi; e++ {
			ticks = append(ticks, plot.Tick{Value: e, Label: strconv.FormatFloat(math.Pow(2, e), 'f', -1, 64)})
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	default:
		p.X.Min = 0
		p.X.Max, p.X.Tick.Marker = niceAxis(hi)
	}
	return Figure{plots: []*plot.Plot{p}, legend: leg, w: 8 * vg.Inch, h: 4.2 * vg.Inch}, nil
}

// niceAxis returns an axis maximum at or above v, a round multiple of a
// 1, 2 or 5 step giving 4 to 10 labelled ticks from 0, and those ticks.
func niceAxis(v float64) (float64, plot.Ticker) {
	if !(v > 0) {
		v = 1
	}
	_, hi, t := niceRange(0, v)
	return hi, t
}

// niceRange widens [lo, hi] to multiples of a 1, 2 or 5 step giving 4 to
// 10 labelled ticks, and returns the range and the ticks.
func niceRange(lo, hi float64) (float64, float64, plot.Ticker) {
	if !(hi > lo) {
		hi = lo + 1
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 10 {
			step *= m
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	first := math.Floor(lo/step + 1e-9)
	last := math.Ceil(hi/step - 1e-9)
	var ticks []plot.Tick
	for i := first; i <= last; i++ {
		x := i * step
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', decimals, 64)})
	}
	return first * step, last * step, plot.ConstantTicks(ticks)
}

// fractionTicks label 0, 0.2, ..., 1 with minor ticks every 0.1.
func fractionTicks() []plot.Tick {
	var t []plot.Tick
	for i := 0; i <= 10; i++ {
		tk := plot.Tick{Value: float64(i) / 10}
		if i%2 == 0 {
			tk.Label = fmt.Sprintf("%g", tk.Value)
		}
		t = append(t, tk)
	}
	return t
}

func jctCDF(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error) {
	return cdfFigure(exp, ps, byCell, exp.Name+": job completion time", "job completion time (hours, log scale)", log10Axis,
		func(r *results.RunResult) []float64 {
			h := make([]float64, 0, len(r.JobResults))
			for _, j := range r.JobResults {
				if j.Declined == "" { // a declined job has no JCT
					h = append(h, math.Max(j.JCT, 1)/3600)
				}
			}
			return h
		})
}

func rhoCDF(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error) {
	return cdfFigure(exp, ps, byCell, exp.Name+": finish-time fairness", "finish-time fairness ρ = JCT / JCT on an exclusive 1/N share (log scale)", log2Axis,
		func(r *results.RunResult) []float64 {
			v := make([]float64, 0, len(r.JobResults))
			for _, j := range r.JobResults {
				if j.Fairness > 0 {
					v = append(v, j.Fairness)
				}
			}
			return v
		})
}

// timeline draws GPUs allocated (top) and the average statistical
// efficiency of the running jobs (bottom) over time on one workload, each
// averaged over 10-minute windows so that the lines can be told apart.
func timeline(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error) {
	w := ps.Workload
	if w == 0 {
		w = 1
	}
	title := ps.Title
	if title == "" {
		title = fmt.Sprintf("%s: cluster over time (workload %d)", exp.Name, w)
	}
	top := newPlot(title, "", "GPUs allocated")
	bottom := newPlot("", "time since the start of the trace (hours)", "avg. statistical efficiency (%)")
	leg := NewLegend()
	found := 0
	maxT, maxGPUs := 0.0, 0
	for i, c := range plotCells(exp, ps, byCell) {
		var run *results.RunResult
		for _, r := range byCell[c.Name] {
			if r.Workload == w {
				run = r
			}
		}
		if run == nil || len(run.Cluster) == 0 {
			continue
		}
		found++
		gp, efs := windowed(run.Cluster, 600)
		for _, pt := range gp {
			maxT = math.Max(maxT, pt.X)
			maxGPUs = max(maxGPUs, int(pt.Y))
		}
		l, err := plotter.NewLine(gp)
		if err != nil {
			return Figure{}, err
		}
		l.LineStyle = lineStyle(i)
		top.Add(l)
		leg.Add(c.Title(), l)
		// Efficiency is undefined while no job holds GPUs: the line breaks.
		for _, seg := range efs {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return Figure{}, err
			}
			l.LineStyle = lineStyle(i)
			bottom.Add(l)
		}
	}
	if found == 0 {
		return Figure{}, fmt.Errorf("no results on workload %d for its cells", w)
	}
	xmax, xticks := niceAxis(maxT)
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max, p.X.Tick.Marker = 0, xmax, xticks
	}
	top.Y.Min = 0
	gpus := max(exp.GPUs(), maxGPUs)
	top.Y.Max = float64(gpus) * 1.05
	if gpus%4 == 0 {
		var ticks []plot.Tick
		for i := 0; i <= 4; i++ {
			ticks = append(ticks, plot.Tick{Value: float64(i * gpus / 4), Label: strconv.Itoa(i * gpus / 4)})
		}
		top.Y.Tick.Marker = plot.ConstantTicks(ticks)
	}
	bottom.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	bottom.Y.Min, bottom.Y.Max = 0, 105
	return Figure{plots: []*plot.Plot{top, bottom}, legend: leg, w: 8 * vg.Inch, h: 5.6 * vg.Inch}, nil
}

// windowed averages a run's cluster rows over windows of width seconds,
// weighting each round by its duration: GPUs allocated (idle rounds count
// as 0) and the mean efficiency of the jobs holding GPUs (in %), against
// time in hours. Efficiency is undefined in windows where no job held
// GPUs: its line is returned as segments broken there.
func windowed(rows []outputs.ClusterRow, width float64) (gpus plotter.XYs, eff []plotter.XYs) {
	var sumG, sumE, wG, wE float64
	win := -1
	var seg plotter.XYs
	flush := func() {
		if win < 0 {
			return
		}
		t := (float64(win) + 0.5) * width / 3600
		if wG > 0 {
			gpus = append(gpus, plotter.XY{X: t, Y: sumG / wG})
		}
		if wE > 0 {
			seg = append(seg, plotter.XY{X: t, Y: 100 * sumE / wE})
		} else if len(seg) > 0 {
			eff = append(eff, seg)
			seg = nil
		}
		sumG, sumE, wG, wE = 0, 0, 0, 0
	}
	for _, r := range rows {
		if k := int(r.Time / width); k != win {
			flush()
			win = k
		}
		sumG += float64(r.GPUs) * r.Duration
		wG += r.Duration
		if r.MeanEfficiency != nil {
			sumE += *r.MeanEfficiency * r.Duration
			wE += r.Duration
		}
	}
	flush()
	if len(seg) > 0 {
		eff = append(eff, seg)
	}
	return gpus, eff
}

// errXY is points with vertical error bars.
type errXY struct {
	plotter.XYs
	plotter.YErrors
}

// metricAxes starts the plot of a figure of one metric (lines, bars): its
// y label (the metric's name by default), an empty legend, and the divisor
// of its values (1 by default).
func metricAxes(ps experiments.PlotSpec) (*plot.Plot, *Legend, float64) {
	ylabel := ps.YLabel
	if ylabel == "" {
		ylabel = ps.Metric
	}
	scale := ps.Scale
	if scale == 0 {
		scale = 1
	}
	return newPlot(ps.Title, ps.XLabel, ylabel), NewLegend(), scale
}

// linesPlot draws a metric against a setting, one line per series, with
// 95 % confidence intervals, and the reference numbers dashed.
func linesPlot(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error) {
	p, leg, scale := metricAxes(ps)
	value := func(cell string) (results.Stat, bool) {
		mw, mv := sweep.CellValuesIn(exp.MetricSet(), byCell[cell], ps.Metric)
		if len(mv) == 0 {
			return results.Stat{}, false
		}
		if ps.Normalize != "" {
			nw, nv := sweep.CellValuesIn(exp.MetricSet(), byCell[ps.Normalize], ps.Metric)
			st := results.PairedRatio(mw, mv, nw, nv)
			return st, st.N > 0
		}
		for i := range mv {
			mv[i] /= scale
		}
		return results.Describe(mw, mv), true
	}
	refValue := func(cell string) (float64, bool) {
		c := exp.Cell(cell)
		v, ok := c.Reference[ps.Reference][ps.Metric]
		if !ok {
			return 0, false
		}
		if ps.Normalize != "" {
			d, ok := exp.Cell(ps.Normalize).Reference[ps.Reference][ps.Metric]
			if !ok || d == 0 {
				return 0, false
			}
			return v / d, true
		}
		return v / scale, true
	}
	drawn := 0
	ymin, ymax := math.Inf(1), math.Inf(-1)
	xs := map[float64]bool{}
	// A log x axis is drawn as a linear axis of log2 x (gonum's LogScale
	// misplaces the axis label's extent).
	logX := ps.LogX
	for _, s := range ps.Series {
		for _, pt := range s.Points {
			if pt.X <= 0 {
				logX = false
			}
		}
	}
	tx := func(x float64) float64 {
		if logX {
			return math.Log2(x)
		}
		return x
	}
	// Series are dodged sideways a little so that their error bars do not
	// hide each other (ticks stay at the true x).
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, s := range ps.Series {
		for _, pt := range s.Points {
			xlo, xhi = math.Min(xlo, tx(pt.X)), math.Max(xhi, tx(pt.X))
		}
	}
	dodge := func(i int, x float64) float64 {
		k := float64(i) - float64(len(ps.Series)-1)/2
		return tx(x) + 0.012*k*(xhi-xlo)
	}
	for i, s := range ps.Series {
		var pts errXY
		var ref plotter.XYs
		for _, pt := range s.Points {
			x := dodge(i, pt.X)
			if st, ok := value(pt.Cell); ok {
				lo := 0.0
				if st.HalfWidth != nil {
					lo = *st.HalfWidth
				}
				pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: st.Mean})
				ymax = math.Max(ymax, st.Mean+lo)
				ymin = math.Min(ymin, st.Mean-lo)
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: lo, High: lo})
				xs[pt.X] = true
			}
			if ps.Reference != "" {
				if v, ok := refValue(pt.Cell); ok {
					ref = append(ref, plotter.XY{X: x, Y: v})
					ymax = math.Max(ymax, v)
					ymin = math.Min(ymin, v)
				}
			}
		}
		st := lineStyle(i)
		if len(pts.XYs) > 0 {
			drawn++
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return Figure{}, err
			}
			l.LineStyle = st
			l.LineStyle.Dashes = nil
			sc.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return Figure{}, err
			}
			eb.LineStyle = draw.LineStyle{Color: st.Color, Width: vg.Points(1.2)}
			eb.CapWidth = vg.Points(6)
			p.Add(l, sc, eb)
			leg.Add(s.Label+" (ours, 95% CI)", l, sc)
		}
		if len(ref) > 0 {
			l, sc, err := plotter.NewLinePoints(ref)
			if err != nil {
				return Figure{}, err
			}
			l.LineStyle = draw.LineStyle{Color: st.Color, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
			sc.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Points(3), Shape: draw.BoxGlyph{}}
			p.Add(l, sc)
			leg.Add(s.Label+" (reference "+ps.Reference+")", l, sc)
		}
	}
	if drawn == 0 {
		return Figure{}, fmt.Errorf("no results for its cells")
	}
	var ticks []plot.Tick
	for x := range xs {
		ticks = append(ticks, plot.Tick{Value: tx(x), Label: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	sort.Slice(ticks, func(a, b int) bool { return ticks[a].Value < ticks[b].Value })
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	span := xhi - xlo
	if span == 0 {
		span = 1
	}
	p.X.Min, p.X.Max = xlo-0.06*span, xhi+0.06*span
	if ps.Normalize != "" {
		// Ratios: a range around the data and a line at 1.
		ymin, ymax = math.Min(ymin, 1), math.Max(ymax, 1)
		pad := math.Max(0.05, 0.08*(ymax-ymin))
		var yt plot.Ticker
		p.Y.Min, p.Y.Max, yt = niceRange(ymin-pad, ymax+pad)
		p.Y.Tick.Marker = yt
		one, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: 1}, {X: p.X.Max, Y: 1}})
		if err == nil {
			one.LineStyle = draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
			p.Add(one)
		}
	} else {
		p.Y.Min = 0
		p.Y.Max, p.Y.Tick.Marker = niceAxis(ymax * 1.02)
	}
	return Figure{plots: []*plot.Plot{p}, legend: leg, w: 8.4 * vg.Inch, h: 4.4 * vg.Inch}, nil
}
