package figures

import (
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// KindCoAdaptation is the figure kind of the paper's Fig 6 (a run
// figure): PlotRun(KindCoAdaptation, RunInput{Dir: run}, ...).
const KindCoAdaptation = "fig6"

// CoAdaptationFile is the base name of the co-adaptation figure.
const CoAdaptationFile = "fig6-coadaptation"

// coAdaptationKind is Fig 6's kind (in Builtin).
var coAdaptationKind = Kind{Name: KindCoAdaptation, File: CoAdaptationFile, DrawRun: coAdaptation,
	Doc: "co-adaptation of chosen jobs over time: active jobs, and each job's GPUs, batch size and efficiency (paper Fig 6)"}

// coAdaptation draws the paper's Fig 6 from a run's output folder
// (jobs.parquet, rounds.parquet, cluster.parquet): over time, the number of
// active jobs in the cluster, and for each chosen job its GPUs, its total
// batch size and its statistical efficiency. Lines break where a job is
// pending (no batch, no efficiency). By default the jobs are the longest
// imagenet job and the two longest yolov3 jobs (the paper's choice), or
// the three longest jobs when the run has none of those.
func coAdaptation(in RunInput) (Figure, error) {
	runDir := in.Dir
	if _, err := os.Stat(filepath.Join(runDir, sweep.ExperimentFile)); err == nil {
		return Figure{}, fmt.Errorf("%s is a sweep's folder: fig6 draws one run's tables (polluxsim run --out DIR)", runDir)
	}
	if _, err := os.Stat(filepath.Join(runDir, roundsFile)); errors.Is(err, fs.ErrNotExist) {
		return Figure{}, fmt.Errorf("%s has no %s: fig6 draws a run's per-round records (run it with --rounds all)", runDir, roundsFile)
	}
	jobs, err := outputs.ReadTableColumns(filepath.Join(runDir, sweep.JobsFile), "run_id", "name", "application", "jct_s", "submit_s", "finish_s", "policy", "workload_source")
	if err != nil {
		return Figure{}, err
	}
	names := in.Jobs
	if len(names) == 0 {
		names = defaultCoAdaptJobs(jobs)
	}
	known := map[string]int{}
	for i, n := range jobs.Strs["name"] {
		known[n] = i
	}
	for _, n := range names {
		if _, ok := known[n]; !ok {
			return Figure{}, fmt.Errorf("--jobs: no job %q in %s", n, filepath.Join(runDir, sweep.JobsFile))
		}
	}
	rounds, err := outputs.ReadTableColumns(filepath.Join(runDir, roundsFile), "run_id", "name", "time_s", "duration_s", "gpus", "batch", "efficiency")
	if err != nil {
		return Figure{}, err
	}
	cluster, err := outputs.ReadTableColumns(filepath.Join(runDir, sweep.ClusterFile), "run_id", "time_s", "active_jobs")
	if err != nil {
		return Figure{}, err
	}
	// The three tables must be of one run (of two, the panels were empty).
	if err := sameRun(runDir, map[string]*outputs.TableColumns{sweep.JobsFile: jobs, roundsFile: rounds, sweep.ClusterFile: cluster}); err != nil {
		return Figure{}, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, n := range names {
		i := known[n]
		lo, hi = math.Min(lo, jobs.Nums["submit_s"][i]), math.Max(hi, jobs.Nums["finish_s"][i])
	}
	hours := func(s float64) float64 { return s / 3600 }
	active := newPlot("Co-adaptation of jobs over time (Fig 6)", "", "active jobs")
	gpus := newPlot("", "", "GPUs")
	batch := newPlot("", "", "batch size (samples)")
	eff := newPlot("", "time since the start of the trace (hours)", "stat. efficiency (%)")
	leg := NewLegend()
	var act plotter.XYs
	for i, t := range cluster.Nums["time_s"] {
		if t >= lo && t <= hi {
			act = append(act, plotter.XY{X: hours(t), Y: cluster.Nums["active_jobs"][i]})
		}
	}
	if l, err := plotter.NewLine(stepXY(act)); err == nil {
		l.LineStyle = lineStyle(6)
		l.LineStyle.Color = color.Gray{Y: 90}
		active.Add(l)
	}
	maxBatch := 0.0
	for k, name := range names {
		var g, b, e []plotter.XYs
		var gs, bs, es plotter.XYs
		flush := func(cur *plotter.XYs, segs *[]plotter.XYs) {
			if len(*cur) > 0 {
				*segs = append(*segs, *cur)
				*cur = nil
			}
		}
		for i, n := range rounds.Strs["name"] {
			if n != name {
				continue
			}
			t0 := hours(rounds.Nums["time_s"][i])
			t1 := hours(rounds.Nums["time_s"][i] + rounds.Nums["duration_s"][i])
			gs = append(gs, plotter.XY{X: t0, Y: rounds.Nums["gpus"][i]}, plotter.XY{X: t1, Y: rounds.Nums["gpus"][i]})
			if v := rounds.Nums["batch"][i]; !math.IsNaN(v) {
				bs = append(bs, plotter.XY{X: t0, Y: math.Log10(v)}, plotter.XY{X: t1, Y: math.Log10(v)})
				maxBatch = math.Max(maxBatch, v)
			} else {
				flush(&bs, &b)
			}
			if v := rounds.Nums["efficiency"][i]; !math.IsNaN(v) {
				es = append(es, plotter.XY{X: t0, Y: 100 * v}, plotter.XY{X: t1, Y: 100 * v})
			} else {
				flush(&es, &e)
			}
		}
		flush(&gs, &g)
		flush(&bs, &b)
		flush(&es, &e)
		app := jobs.Strs["application"][known[name]]
		for _, panel := range []struct {
			p    *plot.Plot
			segs []plotter.XYs
		}{{gpus, g}, {batch, b}, {eff, e}} {
			for si, seg := range panel.segs {
				l, err := plotter.NewLine(seg)
				if err != nil {
					return Figure{}, err
				}
				l.LineStyle = lineStyle(k)
				panel.p.Add(l)
				if panel.p == gpus && si == 0 {
					leg.Add(fmt.Sprintf("%s (%s)", name, app), l)
				}
			}
		}
	}
	xmax, xticks := niceAxis(hours(hi))
	for _, p := range []*plot.Plot{active, gpus, batch, eff} {
		p.X.Min, p.X.Max, p.X.Tick.Marker = 0, xmax, xticks
		p.Y.Min = 0
	}
	eff.Y.Max = 105
	if maxBatch > 0 {
		// Batch sizes span orders of magnitude between applications: a
		// linear axis of log10 (gonum's LogScale misplaces the label).
		top := math.Ceil(math.Log10(maxBatch))
		var ticks []plot.Tick
		for e := 0.0; e <= top; e++ {
			ticks = append(ticks, plot.Tick{Value: e, Label: strconv.FormatFloat(math.Pow(10, e), 'f', -1, 64)})
		}
		batch.Y.Min, batch.Y.Max, batch.Y.Tick.Marker = 0, top, plot.ConstantTicks(ticks)
		batch.Y.Label.Text = "batch size (samples, log)"
	}
	policy, source, id := "", "", ""
	if len(jobs.Strs["policy"]) > 0 {
		policy, source, id = jobs.Strs["policy"][0], jobs.Strs["workload_source"][0], jobs.Strs["run_id"][0]
	}
	fig := Figure{plots: []*plot.Plot{active, gpus, batch, eff}, legend: leg, w: 8 * vg.Inch, h: 7.5 * vg.Inch,
		caption: fmt.Sprintf("%s: policy %s; workload: %s; jobs: %s", runLabel(id, runDir), policy, source, strings.Join(names, ", "))}
	return fig, nil
}

// runLabel names a run in a caption by its run_id and its folder's name:
// "run 76fdb8439c37e7a3 (folder run)", or "run 76fdb8439c37e7a3" in a
// folder named by it (run without --out). The folder's name alone read
// "run run" for the folder out/run.
func runLabel(id, runDir string) string {
	base := filepath.Base(filepath.Clean(runDir))
	switch id {
	case "":
		return "folder " + base
	case base:
		return "run " + id
	}
	return "run " + id + " (folder " + base + ")"
}

// defaultCoAdaptJobs picks the longest imagenet job and the two longest
// yolov3 jobs, or the three longest jobs.
func defaultCoAdaptJobs(jobs *outputs.TableColumns) []string {
	idx := make([]int, jobs.Rows)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return jobs.Nums["jct_s"][idx[a]] > jobs.Nums["jct_s"][idx[b]] })
	want := map[string]int{"imagenet": 1, "yolov3": 2}
	var names []string
	for _, i := range idx {
		app := jobs.Strs["application"][i]
		if want[app] > 0 {
			want[app]--
			names = append(names, jobs.Strs["name"][i])
		}
	}
	if len(names) < 3 {
		names = names[:0]
		for _, i := range idx[:min(3, len(idx))] {
			names = append(names, jobs.Strs["name"][i])
		}
	}
	return names
}

// stepXY turns points into a step line (each value held until the next).
func stepXY(pts plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for i, p := range pts {
		out = append(out, p)
		if i+1 < len(pts) {
			out = append(out, plotter.XY{X: pts[i+1].X, Y: p.Y})
		}
	}
	return out
}

// roundsFile is the table of a run's per-round records.
const roundsFile = "rounds.parquet"

// sameRun checks that the tables (by file name) of runDir are all of one
// run: one run_id in each, the same in all.
func sameRun(runDir string, tables map[string]*outputs.TableColumns) error {
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	id, from := "", ""
	for _, n := range names {
		for _, r := range tables[n].Strs["run_id"] {
			switch {
			case id == "":
				id, from = r, n
			case r != id:
				return fmt.Errorf("%s: %s holds run %s and %s run %s: the tables are of different runs (fig6 draws one)", runDir, from, id, n, r)
			}
		}
	}
	return nil
}
