package llm

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

func measurements(t *testing.T) []Measurement {
	t.Helper()
	ms, err := Measurements()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestMeasurementsParse checks the embedded tables: every BF16 row of
// llm-foundry's four tables and the ten rows of Megatron-LM's Table 1,
// with a third of each source in the fitting subset.
func TestMeasurementsParse(t *testing.T) {
	ms := measurements(t)
	count := map[string]int{}
	fit := map[string]int{}
	for _, m := range ms {
		count[m.Source]++
		if m.Fit {
			fit[m.Source]++
		}
		if err := m.Job.Par.Validate(m.Job.Model); err != nil {
			t.Errorf("%s: %v", m.Label(), err)
		}
	}
	if count[StackLLMFoundry] != 209 || count[StackMegatron] != 10 {
		t.Errorf("rows per source %v, want 209 llm-foundry and 10 megatron", count)
	}
	if fit[StackLLMFoundry] != 70 || fit[StackMegatron] != 4 {
		t.Errorf("fitting rows per source %v, want 70 and 4 (every third)", fit)
	}
}

// TestParamsMatchPublished checks the architecture tables against the
// parameter counts the sources publish: llm-foundry's NumParams is
// 12·L·h² + (V + s)·h within 1 % (MPT's learned positions; norms and
// biases are the rest), and Megatron's GPTParams gives Table 1's sizes to
// its one decimal.
func TestParamsMatchPublished(t *testing.T) {
	for _, m := range measurements(t) {
		md := m.Job.Model
		if m.Source == StackLLMFoundry {
			l, h := float64(md.Layers), float64(md.Hidden)
			want := 12*l*h*h + float64(md.Vocab+md.SeqLen)*h
			if r := md.Params / want; math.Abs(r-1) > 0.01 {
				t.Errorf("%s: NumParams %g is %.3f× the architecture's %g", m.Label(), md.Params, r, want)
			}
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(md.Name, "gpt-"), "b")
		if got := fmt.Sprintf("%.1f", md.Params/1e9); got != name {
			t.Errorf("%s: GPTParams gives %sB, Table 1 says %sB", m.Label(), got, name)
		}
	}
}

// TestFittedIsTheFit refits on the fitting subset and checks that Fitted
// holds the result (to the four digits it is rounded to).
func TestFittedIsTheFit(t *testing.T) {
	got, loss, err := Fit(FitRows(measurements(t)))
	if err != nil {
		t.Fatal(err)
	}
	want := Fitted()
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-3*math.Abs(b) }
	ok := close(got.HiddenHalf, want.HiddenHalf) && close(got.TokensHalf, want.TokensHalf) &&
		close(got.Latency, want.Latency) && close(got.Overlap, want.Overlap) && len(got.Stacks) == len(want.Stacks)
	for k, s := range got.Stacks {
		w := want.Stacks[k]
		ok = ok && close(s.PeakFraction, w.PeakFraction) && close(s.Attention, w.Attention)
	}
	if !ok {
		var b strings.Builder
		keys := make([]string, 0, len(got.Stacks))
		for k := range got.Stacks {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "\t%q: {PeakFraction: %.4g, Attention: %.4g},\n", k, got.Stacks[k].PeakFraction, got.Stacks[k].Attention)
		}
		t.Errorf("Fitted differs from the fit (loss %.5g); the fit is:\n%sHiddenHalf: %.4g, TokensHalf: %.4g, Latency: %.4g, Overlap: %.4g",
			loss, b.String(), got.HiddenHalf, got.TokensHalf, got.Latency, got.Overlap)
	}
}

// heldBackErrors returns the relative errors of Fitted on the held-back
// rows Screen keeps, sorted.
func heldBackErrors(t *testing.T) []float64 {
	ms := measurements(t)
	bad := Screen(ms)
	cal := Fitted()
	var errs []float64
	for i, m := range ms {
		if m.Fit || bad[i] != "" {
			continue
		}
		p, err := cal.Predict(m)
		if err != nil {
			t.Fatalf("%s: %v", m.Label(), err)
		}
		errs = append(errs, math.Abs(p/m.Measured-1))
	}
	sort.Float64s(errs)
	return errs
}

// TestHeldBackBands is item 2's bar: on the held-back rows, median error
// ≤ 10 % and worst ≤ 25 %.
func TestHeldBackBands(t *testing.T) {
	errs := heldBackErrors(t)
	if len(errs) < 140 {
		t.Fatalf("%d held-back rows, want ≥ 140", len(errs))
	}
	med, worst := median(errs), errs[len(errs)-1]
	if med > 0.10 || worst > 0.25 {
		t.Errorf("held-back errors: median %.1f %%, worst %.1f %%; want ≤ 10 %% and ≤ 25 %%", 100*med, 100*worst)
	}
}

// TestMegatronHeldBack checks the pipeline-parallel source alone: its six
// held-back rows (3.6B to 530B, t up to 8, p up to 35) within 10 %.
func TestMegatronHeldBack(t *testing.T) {
	cal := Fitted()
	n := 0
	for _, m := range measurements(t) {
		if m.Source != StackMegatron || m.Fit {
			continue
		}
		n++
		p, err := cal.Predict(m)
		if err != nil {
			t.Fatal(err)
		}
		if e := p/m.Measured - 1; math.Abs(e) > 0.10 {
			t.Errorf("%s: predicted %.1f TFLOP/s, measured %.0f (%+.1f %%)", m.Label(), p, m.Measured, 100*e)
		}
	}
	if n != 6 {
		t.Errorf("%d held-back Megatron rows, want 6", n)
	}
}

// TestScreen pins the rows the sources contradict: four llm-foundry rows,
// each slower than a configuration that cannot be faster.
func TestScreen(t *testing.T) {
	ms := measurements(t)
	var got []string
	for i := range Screen(ms) {
		got = append(got, ms[i].Label())
	}
	sort.Strings(got)
	want := []string{
		"llm-foundry mpt-1b s=2048 a100-40gb t=1 p=1 d=32 b=10 m=1",
		"llm-foundry mpt-760m s=1024 a100-80gb t=1 p=1 d=8 b=48 m=2",
		"llm-foundry mpt-760m s=2048 h100 t=1 p=1 d=8 b=24 m=2",
		"llm-foundry mpt-760m s=512 a100-80gb t=1 p=1 d=8 b=96 m=2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Screen set aside\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestScreenRules checks each rule on constructed rows, and that rows of
// different models or GPUs are never compared.
func TestScreenRules(t *testing.T) {
	g, _ := GPUType("h100")
	row := func(model string, s, d, b int, tput float64) Measurement {
		return Measurement{Source: "x", Measured: tput, Job: Job{GPU: g,
			Model: Transformer{Name: model, SeqLen: s},
			Par:   Parallelism{TP: 1, PP: 1, DP: d, MicroBatch: b, MicroBatches: 1}}}
	}
	ms := []Measurement{
		row("a", 2048, 8, 4, 100), // slower than the longer sequence below
		row("a", 4096, 8, 2, 110),
		row("a", 2048, 16, 4, 90), // slower than more GPUs below
		row("a", 2048, 32, 4, 100),
		row("b", 2048, 8, 4, 10),  // another model: not compared
		row("a", 1024, 8, 8, 106), // within 5 % of the 4096 row
	}
	got := Screen(ms)
	if len(got) != 2 || got[0] == "" || got[2] == "" {
		t.Errorf("Screen = %v, want rows 0 and 2", got)
	}
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
