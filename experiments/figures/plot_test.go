package figures

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// TestPlot: every figure of an experiment is written as a PNG of the
// expected size and an SVG; figures whose cells have no runs are skipped,
// not errors.
func TestPlot(t *testing.T) {
	full := exptest.TinyFull(t)
	exp, runs, missing, err := sweep.OpenSweep(full, exptest.Ext())
	if err != nil || len(runs) != 20 || len(missing) != 0 {
		t.Fatalf("open: %v, %d runs, missing %v", err, len(runs), missing)
	}
	out := t.TempDir()
	rep, err := Plot(exp, runs, out, PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 8 || len(rep.Skipped) != 0 {
		t.Fatalf("files %v, skipped %v", rep.Files, rep.Skipped)
	}
	for _, name := range []string{"jct", "rho", "timeline", "lines"} {
		f, err := os.Open(filepath.Join(out, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width < 600 || cfg.Height < 400 {
			t.Errorf("%s.png: %v, %dx%d", name, err, cfg.Width, cfg.Height)
		}
		svg, err := os.ReadFile(filepath.Join(out, name+".svg"))
		if err != nil || !strings.Contains(string(svg), "<svg") {
			t.Errorf("%s.svg: %v", name, err)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(out, "jct.svg"))
	for _, want := range []string{"Pollux (64 jobs)", "Tiresias (96 jobs)", "job completion time (hours, log scale)"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("jct.svg lacks %q", want)
		}
	}
	svg, _ = os.ReadFile(filepath.Join(out, "lines.svg"))
	if !strings.Contains(string(svg), "a (ours, 95% CI)") || !strings.Contains(string(svg), "a (reference made-up)") {
		t.Error("lines.svg lacks the legend of ours and the reference")
	}
	// Only the runs of one shard: the plots without data are skipped.
	var some []*results.RunResult
	for _, r := range runs {
		if r.Cell == "tiresias" {
			some = append(some, r)
		}
	}
	rep, err = Plot(exp, some, t.TempDir(), PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 4 || len(rep.Skipped) != 2 {
		t.Errorf("partial: files %v, skipped %v", rep.Files, rep.Skipped)
	}
}

func TestNiceAxis(t *testing.T) {
	for _, tc := range []struct{ v, want float64 }{{3.7, 4}, {12.8, 14}, {64, 70}, {0.9, 0.9}, {1, 1}, {27.3, 30}, {0, 1}} {
		if got, _ := niceAxis(tc.v); got != tc.want {
			t.Errorf("niceAxis(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
