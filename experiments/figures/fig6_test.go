package figures

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// TestPlotCoAdaptation: Fig 6 (the run kind fig6) from a run's tables, by default on the
// paper's choice of jobs (or the longest ones), in every format and both
// sizes; an unknown job is an error naming it.
func TestPlotCoAdaptation(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run") // polluxsim run's default folder, out/run
	res := exptest.RunWithOptions(t, "pollux", "", run)
	jobs, err := outputs.ReadTableColumns(filepath.Join(run, sweep.JobsFile), "run_id", "name", "application", "jct_s")
	if err != nil {
		t.Fatal(err)
	}
	names := defaultCoAdaptJobs(jobs)
	if len(names) != 3 {
		t.Fatalf("default jobs %v", names)
	}
	longest := 0.0
	for _, j := range res.Jobs {
		longest = max(longest, j.JCT)
	}
	apps := map[string]int{}
	for _, j := range res.Jobs {
		apps[j.App]++
	}
	if apps["imagenet"] == 0 || apps["yolov3"] < 2 {
		// The fallback: the three longest jobs, the longest first.
		for _, j := range res.Jobs {
			if j.Name == names[0] && j.JCT != longest {
				t.Errorf("first default job %s is not the longest", names[0])
			}
		}
	}
	out := t.TempDir()
	rep, err := PlotRun(exptest.Ext(), KindCoAdaptation, RunInput{Dir: run}, out, PlotOptions{Formats: FigureFormats})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 3 {
		t.Fatalf("files %v", rep.Files)
	}
	svg, _ := os.ReadFile(filepath.Join(out, CoAdaptationFile+".svg"))
	// The caption names the run by its run_id and folder (it read "run
	// run" for out/run).
	label := "run " + jobs.Strs["run_id"][0] + " (folder run): policy pollux"
	for _, want := range append(names, "active jobs", "GPUs", "batch size (samples, log)", "stat. efficiency (%)", label) {
		if !strings.Contains(string(svg), want) {
			t.Errorf("fig6 SVG lacks %q", want)
		}
	}
	if strings.Contains(string(svg), "run run") {
		t.Error(`fig6 caption reads "run run"`)
	}
	for _, c := range [][3]string{
		{"76fdb8439c37e7a3", "out/run", "run 76fdb8439c37e7a3 (folder run)"},
		{"76fdb8439c37e7a3", "out/runs/76fdb8439c37e7a3/", "run 76fdb8439c37e7a3"},
		{"", "p1", "folder p1"},
	} {
		if got := runLabel(c[0], c[1]); got != c[2] {
			t.Errorf("runLabel(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	pdf, _ := os.ReadFile(filepath.Join(out, CoAdaptationFile+".pdf"))
	if !strings.HasPrefix(string(pdf), "%PDF") {
		t.Error("fig6 PDF is not a PDF")
	}
	col := t.TempDir()
	if _, err := PlotRun(exptest.Ext(), KindCoAdaptation, RunInput{Dir: run, Jobs: names[:1]}, col, PlotOptions{Size: SizeColumn, Formats: []string{"png"}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(col, CoAdaptationFile+".png"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if want := int(3.4 * pngDPI); err != nil || cfg.Width < want-2 || cfg.Width > want+2 {
		t.Errorf("column PNG %d px wide (%v), want %d", cfg.Width, err, want)
	}
	if _, err := PlotRun(exptest.Ext(), KindCoAdaptation, RunInput{Dir: run, Jobs: []string{"no-such-job"}}, col, PlotOptions{}); err == nil || !strings.Contains(err.Error(), `"no-such-job"`) {
		t.Errorf("unknown job: %v", err)
	}
}

// Fig 6 refuses tables of two runs (jobs.parquet of one, rounds.parquet of
// another drew empty panels), a sweep's folder and a run without rounds,
// each in one line saying so.
func TestPlotCoAdaptationOneRun(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	exptest.RunWithOptions(t, "pollux", "", a)
	exptest.RunWithOptions(t, "fifo", "", b)
	data, err := os.ReadFile(filepath.Join(b, "rounds.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, "rounds.parquet"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = PlotRun(exptest.Ext(), KindCoAdaptation, RunInput{Dir: a}, t.TempDir(), PlotOptions{Formats: []string{"svg"}})
	if err == nil || !strings.Contains(err.Error(), "the tables are of different runs") || strings.Contains(err.Error(), "\n") {
		t.Errorf("mixed runs: %v", err)
	}
	os.Remove(filepath.Join(a, "rounds.parquet"))
	if _, err := PlotRun(exptest.Ext(), KindCoAdaptation, RunInput{Dir: a}, t.TempDir(), PlotOptions{}); err == nil || !strings.Contains(err.Error(), "has no rounds.parquet") {
		t.Errorf("no rounds: %v", err)
	}
	os.WriteFile(filepath.Join(b, sweep.ExperimentFile), []byte("{}"), 0o644)
	if _, err := PlotRun(exptest.Ext(), KindCoAdaptation, RunInput{Dir: b}, t.TempDir(), PlotOptions{}); err == nil || !strings.Contains(err.Error(), "is a sweep's folder") {
		t.Errorf("sweep folder: %v", err)
	}
}
