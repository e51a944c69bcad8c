package llm

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var update = flag.Bool("update", false, "rewrite docs/llm.md's generated section and docs/llm-fit.png")

const (
	llmDoc   = "../../docs/llm.md"
	llmPlot  = "../../docs/llm-fit.png"
	docBegin = "<!-- rows:begin (generated; go test ./models/llm -run TestDocumented -update) -->\n"
	docEnd   = "<!-- rows:end -->\n"
)

// row is one measurement with its prediction and its part in the fit.
type row struct {
	m         Measurement
	pred, err float64
	set       string // "fit", "held back" or "set aside"
	reason    string
	// flops are the measured and predicted TFLOP/s per GPU the plot
	// draws: model FLOPs (llm-foundry) or Megatron's Eq. 3 (Megatron).
	measFLOPS, predFLOPS float64
}

func docRows(t *testing.T) []row {
	ms := measurements(t)
	bad := Screen(ms)
	cal := Fitted()
	var rows []row
	for i, m := range ms {
		p, err := cal.Predict(m)
		if err != nil {
			t.Fatal(err)
		}
		r := row{m: m, pred: p, err: p/m.Measured - 1, set: "held back"}
		switch {
		case bad[i] != "":
			r.set, r.reason = "set aside", bad[i]
		case m.Fit:
			r.set = "fit"
		}
		r.measFLOPS, r.predFLOPS = m.Measured, p
		if m.Unit == UnitTokens {
			perToken := m.Job.Model.ModelFLOPsPerSeq() / float64(m.Job.Model.SeqLen) / 1e12
			r.measFLOPS, r.predFLOPS = m.Measured*perToken, p*perToken
		}
		rows = append(rows, r)
	}
	return rows
}

// docMarkdown is the generated section of docs/llm.md: the calibration,
// the error summary and a row per measurement.
func docMarkdown(rows []row) string {
	var b strings.Builder
	cal := Fitted()
	b.WriteString("Calibration (`llm.Fitted()`):\n\n| stack / GPU | e_max | A |\n|---|---:|---:|\n")
	keys := make([]string, 0, len(cal.Stacks))
	for k := range cal.Stacks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %.4g | %.4g |\n", k, cal.Stacks[k].PeakFraction, cal.Stacks[k].Attention)
	}
	fmt.Fprintf(&b, "\nh₀ = %.4g, x₀ = %.4g tokens, α = %.4g µs, ω = %.4g.\n\n", cal.HiddenHalf, cal.TokensHalf, cal.Latency*1e6, cal.Overlap)

	b.WriteString("| rows | count | median error | worst error |\n|---|---:|---:|---:|\n")
	for _, set := range []string{"fit", "held back", "set aside"} {
		for _, src := range []string{"", StackLLMFoundry, StackMegatron} {
			var errs []float64
			for _, r := range rows {
				if r.set == set && (src == "" || r.m.Source == src) {
					errs = append(errs, math.Abs(r.err))
				}
			}
			if len(errs) == 0 {
				continue
			}
			sort.Float64s(errs)
			name := set + " (all)"
			if src != "" {
				name = set + ", " + src
			}
			fmt.Fprintf(&b, "| %s | %d | %.1f %% | %.1f %% |\n", name, len(errs), 100*median(errs), 100*errs[len(errs)-1])
		}
	}
	b.WriteString(rotationMarkdown(rows))
	b.WriteString("\n| # | source | model | s | GPU | t | p | d | b | m | sharding | recompute | measured | predicted | error | rows |\n")
	b.WriteString("|---:|---|---|---:|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		c := r.m.Job.Par
		set := r.set
		if r.reason != "" {
			set += ": " + r.reason
		}
		rc := "no"
		if c.Recompute {
			rc = "yes"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %s | %d | %d | %d | %d | %d | %s | %s | %.0f | %.0f | %+.1f %% | %s |\n",
			r.m.Row, r.m.Source, r.m.Job.Model.Name, r.m.Job.Model.SeqLen, r.m.Job.GPU.Name, c.TP, c.PP, c.DP,
			c.MicroBatch, c.MicroBatches, c.Sharding, rc, r.m.Measured, r.pred, 100*r.err, set)
	}
	b.WriteString("\nThe configuration search (`Calibration.Configurations`, Megatron-LM's stack, no sharding, b ≤ 8) at the GPUs and batch of each Table 1 row: " +
		"how many configurations fit, the fastest by the model, and the rank of the published one (t, p, b = 1, recomputation).\n\n" +
		"| model | GPUs | batch | fit | fastest t, p, b, recompute | its step | published t, p | its rank | its step |\n|---|---:|---:|---:|---|---:|---|---:|---:|\n")
	var ranks, shorter []float64
	for _, r := range rows {
		if r.m.Source != StackMegatron {
			continue
		}
		c := r.m.Job.Par
		cs, err := Fitted().Configurations(r.m.Job.Model, r.m.Job.GPU, c.GPUs(), c.GlobalBatch(),
			Space{Stack: StackMegatron, Shardings: []Sharding{Replicated}, MaxMicroBatch: 8})
		if err != nil || len(cs) == 0 {
			fmt.Fprintf(&b, "| %s | no configuration: %v |\n", r.m.Job.Model.Name, err)
			continue
		}
		rank := 0
		for i, x := range cs {
			if x.Par == c {
				rank = i + 1
				break
			}
		}
		best := cs[0].Par
		pub := "not listed"
		if rank > 0 {
			pub = fmt.Sprintf("%d | %.1f s", rank, cs[rank-1].Step.Time)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d, %d, %d, %v | %.1f s | %d, %d | %s |\n", r.m.Job.Model.Name, c.GPUs(), c.GlobalBatch(),
			len(cs), best.TP, best.PP, best.MicroBatch, best.Recompute, cs[0].Step.Time, c.TP, c.PP, pub)
		if rank > 0 {
			ranks = append(ranks, float64(rank))
			shorter = append(shorter, 1-cs[0].Step.Time/cs[rank-1].Step.Time)
		}
	}
	if len(ranks) > 0 {
		sort.Float64s(ranks)
		sort.Float64s(shorter)
		fmt.Fprintf(&b, "\nThe published configuration ranks %.0f to %.0f; the fastest's step is %.0f %% to %.0f %% shorter by the model.\n",
			ranks[0], ranks[len(ranks)-1], 100*shorter[0], 100*shorter[len(shorter)-1])
	}
	h := sha256.New()
	for _, r := range rows {
		fmt.Fprintf(h, "%s %.6g %.6g %s\n", r.m.Label(), r.measFLOPS, r.predFLOPS, r.set)
	}
	fmt.Fprintf(&b, "\nMeasured units: llm-foundry tokens/s per GPU, Megatron-LM TFLOP/s per GPU (its Eq. 3).\n"+
		"The plot's points have digest `%x` (sha256 of their labels and values; the test regenerates both).\n\n"+
		"![Predicted against measured throughput per GPU](llm-fit.png)\n", h.Sum(nil)[:8])
	return b.String()
}

// TestDocumented: docs/llm.md's generated section is what the model
// predicts today, and docs/llm-fit.png exists (both rewritten by -update).
func TestDocumented(t *testing.T) {
	rows := docRows(t)
	data, err := os.ReadFile(llmDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, docBegin), strings.Index(doc, docEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated section (markers %q ... %q)", llmDoc, docBegin, docEnd)
	}
	want := docMarkdown(rows)
	if *update {
		if err := os.WriteFile(llmDoc, []byte(doc[:i+len(docBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		img, err := plotFit(rows)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(llmPlot, img, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := doc[i+len(docBegin) : j]; got != want {
		t.Errorf("%s's generated section is out of date; run go test ./models/llm -run TestDocumented -update", llmDoc)
	}
	f, err := os.Open(llmPlot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.DecodeConfig(f); err != nil {
		t.Errorf("%s: %v", llmPlot, err)
	}
}

// plotFit draws predicted against measured TFLOP/s per GPU on log axes,
// with the identity and ±25 % lines, one marker per set and source.
func plotFit(rows []row) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "LLM throughput per GPU: predicted against measured"
	p.X.Label.Text = "measured TFLOP/s per GPU"
	p.Y.Label.Text = "predicted TFLOP/s per GPU"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	var ticks []plot.Tick
	for _, v := range []float64{50, 100, 150, 200, 300, 400, 500, 600, 800} {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(ticks), plot.ConstantTicks(ticks)
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		lo = math.Min(lo, math.Min(r.measFLOPS, r.predFLOPS))
		hi = math.Max(hi, math.Max(r.measFLOPS, r.predFLOPS))
	}
	lo, hi = lo*0.8, hi*1.25
	for _, k := range []float64{1, 1.25, 0.75} {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * k}, {X: hi, Y: hi * k}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 120}
		p.Add(l)
		switch k {
		case 1:
			p.Legend.Add("predicted = measured", l)
		case 1.25:
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Legend.Add("±25 %", l)
		default:
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
	}
	type series struct {
		set, src string
		shape    draw.GlyphDrawer
		col      color.Color
	}
	blue, orange, red := color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 255, G: 127, B: 14, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255}
	for _, s := range []series{
		{"fit", StackLLMFoundry, draw.CircleGlyph{}, blue},
		{"held back", StackLLMFoundry, draw.RingGlyph{}, blue},
		{"fit", StackMegatron, draw.BoxGlyph{}, orange},
		{"held back", StackMegatron, draw.SquareGlyph{}, orange},
		{"set aside", StackLLMFoundry, draw.CrossGlyph{}, red},
	} {
		var pts plotter.XYs
		for _, r := range rows {
			if r.set == s.set && r.m.Source == s.src {
				pts = append(pts, plotter.XY{X: r.measFLOPS, Y: r.predFLOPS})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape, sc.GlyphStyle.Color, sc.GlyphStyle.Radius = s.shape, s.col, vg.Points(2.5)
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s, %s (%d)", s.src, s.set, len(pts)), sc)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(7*vg.Inch, 6*vg.Inch), vgimg.UseDPI(110))}
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// rotationMarkdown refits with the fitting third rotated (rows 2, 5, 8, …
// and 3, 6, 9, … of each source instead of 1, 4, 7, …), the screened rows
// left out as always, and reports the held-back errors of each: how much
// the result depends on the declared split.
func rotationMarkdown(rows []row) string {
	var b strings.Builder
	b.WriteString("\nThe same fit with the fitting third rotated (a check of how much the result depends on the declared split):\n\n" +
		"| fitting rows of each source | fitted | held back | median error | worst error | α | ω |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for rot, name := range []string{"1, 4, 7, … (declared)", "2, 5, 8, …", "3, 6, 9, …"} {
		var fit, held []Measurement
		for _, r := range rows {
			if r.set == "set aside" {
				continue
			}
			if (r.m.Row-1)%3 == rot {
				fit = append(fit, r.m)
			} else {
				held = append(held, r.m)
			}
		}
		cal, _, err := Fit(fit)
		if err != nil {
			fmt.Fprintf(&b, "| %s | fit failed: %v |\n", name, err)
			continue
		}
		var errs []float64
		for _, m := range held {
			p, err := cal.Predict(m)
			if err != nil {
				continue
			}
			errs = append(errs, math.Abs(p/m.Measured-1))
		}
		sort.Float64s(errs)
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f %% | %.1f %% | %.3g ms | %.3g |\n", name, len(fit), len(held),
			100*median(errs), 100*errs[len(errs)-1], cal.Latency*1e3, cal.Overlap)
	}
	return b.String()
}
