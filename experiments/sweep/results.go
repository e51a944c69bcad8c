package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
)

// LoadRuns reads the stored runs of exp from dir/cells, in the order of
// Experiment.Runs. A run whose file is absent or unreadable as a run (a
// sweep redoes it), or was made by another version of the experiment or
// with other settings than the spec's (a stale file), is listed in missing
// instead. A corrupt one (results.ErrCorrupt: edited after it was written)
// is an error.
func LoadRuns(dir string, exp *experiments.Experiment) (runs []*results.RunResult, missing []string, err error) {
	for _, r := range exp.Runs() {
		path := RunPath(dir, r.ID())
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				missing = append(missing, r.ID())
				continue
			}
			return nil, nil, err
		}
		rr, err := results.ReadRunResult(path)
		if errors.Is(err, results.ErrCorrupt) {
			return nil, nil, err // never silently redone or counted missing
		}
		if err != nil {
			missing = append(missing, r.ID())
			continue
		}
		if !runMatches(rr, exp, r) || rr.JobResults == nil {
			missing = append(missing, r.ID())
			continue
		}
		runs = append(runs, rr)
	}
	return runs, missing, nil
}

// runMatches reports whether a stored run is run r of this version of exp.
func runMatches(rr *results.RunResult, exp *experiments.Experiment, r experiments.Run) bool {
	c := r.Cell
	want, got := c.Spec(), rr.Settings
	if !c.OptionsResolved() {
		// A policy this binary does not know: its stored settings hold
		// the options resolved by the binary that ran it.
		want.Options, got.Options = "", ""
	}
	return rr.Experiment == exp.Name && rr.ExperimentVersion == exp.Version && rr.Run == r.ID() &&
		rr.Cell == c.Name && rr.Workload == r.Workload && got == want &&
		rr.Load == c.Load() && rr.Config == c.Config()
}

// Rebuild writes the sweep-level tables (results.parquet, apps.parquet,
// jobs.parquet, cluster.parquet, and rounds.parquet when the runs kept
// their rounds, see SweepOptions.JobRounds) and summary.json from the stored runs of
// exp and returns the summary.
func Rebuild(dir string, exp *experiments.Experiment) (*SweepSummary, error) {
	runs, missing, err := LoadRuns(dir, exp)
	if err != nil {
		return nil, err
	}
	if err := WriteResults(filepath.Join(dir, ResultsFile), exp, runs); err != nil {
		return nil, err
	}
	if err := writeSweepTables(dir, exp, runs); err != nil {
		return nil, err
	}
	if err := writeSweepRounds(dir, exp, runs); err != nil {
		return nil, err
	}
	sum := Summarize(exp, runs, missing)
	if err := outputs.WriteJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// sweepMeta is the key-value metadata of a sweep's tables.
func sweepMeta(exp *experiments.Experiment) (map[string]string, []string) {
	kv := map[string]string{
		"polluxsim.experiment":         exp.Name,
		"polluxsim.experiment_version": strconv.Itoa(exp.Version),
	}
	return kv, []string{"polluxsim.experiment", "polluxsim.experiment_version"}
}

// WriteResults writes results.parquet: one row per run, with its identity,
// every setting and every metric; its columns are the same whatever
// applications ran (per-application metrics are in apps.parquet).
// Wall-clock columns are null for runs made with no timing.
func WriteResults(path string, exp *experiments.Experiment, runs []*results.RunResult) error {
	r := runs
	labels := map[string]string{}
	for i := range exp.Cells {
		labels[exp.Cells[i].Name] = exp.Cells[i].Title()
	}
	keys := make([]outputs.RunKey, len(r))
	for i := range r {
		keys[i] = results.SweepRunKey(r[i])
	}
	cols := append(outputs.RunCols(func(i int) *outputs.RunKey { return &keys[i] }),
		outputs.I64Col("experiment_version", func(i int) int64 { return int64(r[i].ExperimentVersion) }),
		outputs.StrCol("run", func(i int) string { return r[i].Run }),
		outputs.StrCol("label", func(i int) string { return labels[r[i].Cell] }),
		outputs.F64Col("load", func(i int) float64 { return r[i].Load }),
		outputs.StrCol("config", func(i int) string { return r[i].Config }),
		outputs.I64Col("jobs", func(i int) int64 { return int64(r[i].Jobs) }),
		outputs.StrCol("profiles", func(i int) string { return r[i].Profiles }),
		outputs.StrCol("profiles_id", func(i int) string { return r[i].ProfilesID }),
		outputs.F64Col("interval_s", func(i int) float64 { return r[i].Settings.Interval }),
		outputs.F64Col("restart_delay_s", func(i int) float64 { return r[i].Settings.RestartDelay }),
		outputs.F64Col("interference", func(i int) float64 { return r[i].Settings.Interference }),
		outputs.BoolCol("offline_priors", func(i int) bool { return r[i].Settings.OfflinePriors }),
		outputs.BoolCol("offline_priors_scale_out", func(i int) bool { return r[i].Settings.OfflinePriorsScaleOut }),
		outputs.StrCol("calibration", func(i int) string { return r[i].Settings.Calibration }),
		outputs.I64Col("nodes", func(i int) int64 { return int64(r[i].Settings.Nodes) }),
		outputs.I64Col("gpus_per_node", func(i int) int64 { return int64(r[i].Settings.GPUsPerNode) }),
		outputs.BoolCol("step", func(i int) bool { return r[i].Settings.Step }),
	)
	for _, m := range outputs.Metrics() {
		if !m.Column {
			continue
		}
		get := func(i int) float64 { return m.Get(&r[i].RunStats) }
		switch {
		case m.Count:
			cols = append(cols, outputs.I64Col(m.Name, func(i int) int64 { return int64(get(i)) }))
		case m.Timing:
			cols = append(cols, outputs.F64Null(m.Name, func(i int) (float64, bool) { return get(i), !r[i].NoTiming }))
		case m.Null != nil:
			cols = append(cols, outputs.F64Null(m.Name, func(i int) (float64, bool) { return get(i), !m.Null(&r[i].RunStats) }))
		default:
			cols = append(cols, outputs.F64Col(m.Name, get))
		}
	}
	cols = append(cols, outputs.StrCol("polluxsim_version", func(i int) string { return r[i].PolluxsimVersion }))
	kv, order := sweepMeta(exp)
	if err := outputs.WriteTable(path, outputs.Table(ResultsFile), cols, len(r), kv, order); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// writeSweepTables writes apps.parquet, jobs.parquet and cluster.parquet
// over all runs of a sweep.
func writeSweepTables(dir string, exp *experiments.Experiment, runs []*results.RunResult) error {
	kv, order := sweepMeta(exp)
	keys := make([]outputs.RunKey, len(runs))
	for i := range runs {
		keys[i] = results.SweepRunKey(runs[i])
	}
	type appRow struct {
		key  *outputs.RunKey
		app  string
		jobs int
		avg  float64
	}
	var apps []appRow
	var jobs []outputs.JobRow
	var cluster []outputs.ClusterTableRow
	for i, r := range runs {
		n := map[string]int{}
		for _, j := range r.JobResults {
			n[j.App]++
		}
		names := make([]string, 0, len(r.AppAvgJCT))
		for a := range r.AppAvgJCT {
			names = append(names, a)
		}
		sort.Strings(names)
		for _, a := range names {
			apps = append(apps, appRow{&keys[i], a, n[a], r.AppAvgJCT[a]})
		}
		for j := range r.JobResults {
			jobs = append(jobs, outputs.JobRow{Key: &keys[i], Job: &r.JobResults[j]})
		}
		for j := range r.Cluster {
			cluster = append(cluster, outputs.ClusterTableRow{Key: &keys[i], GPUs: r.ClusterGPUs, Round: &r.Cluster[j]})
		}
	}
	appCols := append(outputs.RunCols(func(i int) *outputs.RunKey { return apps[i].key }),
		outputs.StrCol("application", func(i int) string { return apps[i].app }),
		outputs.I64Col("jobs", func(i int) int64 { return int64(apps[i].jobs) }),
		outputs.F64Col("avg_jct_s", func(i int) float64 { return apps[i].avg }),
	)
	if err := outputs.WriteTable(filepath.Join(dir, AppsFile), outputs.Table(AppsFile), appCols, len(apps), kv, order); err != nil {
		return err
	}
	if err := outputs.WriteTable(filepath.Join(dir, JobsFile), outputs.Table(JobsFile), outputs.JobTableCols(jobs), len(jobs), kv, order); err != nil {
		return err
	}
	return outputs.WriteTable(filepath.Join(dir, ClusterFile), outputs.Table(ClusterFile), outputs.ClusterTableCols(cluster), len(cluster), kv, order)
}
