package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
)

// LoadRuns reads the stored runs of exp from dir/cells, in the order of
// Experiment.Runs. A run whose file is absent or cannot be read (not a
// regular file, or stored by an older polluxsim without a checksum: a
// sweep redoes it), or was made by another version of the experiment or
// with other settings than the spec's (a stale file), is listed in missing
// instead. A corrupt one (results.ErrCorrupt: edited after it was written,
// or not a stored run at all) is an error.
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

// CheckStoredRuns reads the stored runs of the sweep in dir one at a time,
// keeping none, and returns the error of the first corrupt one
// (results.ErrCorrupt), as OpenSweep would: for readers of a sweep's
// tables alone (export), which would not notice a damaged cell.
func CheckStoredRuns(dir string, ext *extensions.Extensions) error {
	exp, err := openExperiment(dir, ext)
	if err != nil {
		return err
	}
	for _, r := range exp.Runs() {
		if _, err := results.ReadRunResult(RunPath(dir, r.ID())); errors.Is(err, results.ErrCorrupt) {
			return err
		}
	}
	return nil
}

// runMatches reports whether a stored run is run r of this version of exp.
func runMatches(rr *results.RunResult, exp *experiments.Experiment, r experiments.Run) bool {
	c := r.Cell
	// Where the cell's fault logs are read from is not a setting (their
	// content is part of the run's hash, which the sweep checks).
	want, got := c.Spec().Settings(), rr.Settings.Settings()
	if !c.OptionsResolved() {
		// A policy or autoscaler this binary does not know: its stored
		// settings hold the options resolved by the binary that ran it.
		want.Options, got.Options = "", ""
		want.AutoscalerOptions, got.AutoscalerOptions = "", ""
	}
	return rr.Experiment == exp.Name && rr.ExperimentVersion == exp.Version && rr.Run == r.ID() &&
		rr.Cell == c.Name && rr.Workload == r.Workload && got == want &&
		rr.Load == c.Load() && rr.Config == c.Config()
}

// Rebuild writes the sweep-level tables (results.parquet, apps.parquet,
// jobs.parquet, cluster.parquet, and rounds.parquet when the runs kept
// their rounds, see SweepOptions.JobRounds) and summary.json from the
// stored runs of exp and returns the summary, with the metrics ms
// (results.parquet's metric columns, summary.json's metrics; the zero
// Metrics means exp's, experiments.Experiment.MetricSet), each computed
// from the stored runs.
func Rebuild(dir string, exp *experiments.Experiment, ms outputs.Metrics) (*SweepSummary, error) {
	ms = metricsOr(ms, exp)
	runs, missing, err := LoadRuns(dir, exp)
	if err != nil {
		return nil, err
	}
	if err := WriteResults(filepath.Join(dir, ResultsFile), exp, runs, ms); err != nil {
		return nil, err
	}
	if err := writeSweepTables(dir, exp, runs); err != nil {
		return nil, err
	}
	if err := writeSweepRounds(dir, exp, runs); err != nil {
		return nil, err
	}
	sum := Summarize(ms, exp, runs, missing)
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
// every setting and a column per column metric of ms (the zero Metrics:
// exp's), computed from each stored run's results
// (results.RunResult.Data); its columns are the same whatever
// applications ran (per-application metrics are in apps.parquet).
// Wall-clock columns are null for runs made with no timing.
func WriteResults(path string, exp *experiments.Experiment, runs []*results.RunResult, ms outputs.Metrics) error {
	ms = metricsOr(ms, exp)
	r := runs
	labels := map[string]string{}
	for i := range exp.Cells {
		labels[exp.Cells[i].Name] = exp.Cells[i].Title()
	}
	keys := make([]outputs.RunKey, len(r))
	for i := range r {
		keys[i] = results.SweepRunKey(r[i])
	}
	row := func(i int) outputs.ResultRow {
		return outputs.ResultRow{
			Key: &keys[i], ExperimentVersion: r[i].ExperimentVersion, Run: r[i].Run, Label: labels[r[i].Cell],
			Load: r[i].Load, Config: r[i].Config, Jobs: r[i].Jobs, Profiles: r[i].Profiles, ProfilesID: r[i].ProfilesID,
			Settings: &r[i].Settings, ClusterGPUs: r[i].ClusterGPUs, Data: r[i].Data(), Version: r[i].PolluxsimVersion,
		}
	}
	kv, order := sweepMeta(exp)
	if err := outputs.WriteTable(path, outputs.ResultsTableFor(ms), row, len(r), kv, order); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// writeSweepTables writes apps.parquet, jobs.parquet, types.parquet,
// cluster.parquet and the tables of the experiment's extensions' own
// (extensions.Extensions.Tables) over all runs of a sweep.
func writeSweepTables(dir string, exp *experiments.Experiment, runs []*results.RunResult) error {
	kv, order := sweepMeta(exp)
	keys := make([]outputs.RunKey, len(runs))
	for i := range runs {
		keys[i] = results.SweepRunKey(runs[i])
	}
	var apps []outputs.AppRow
	var jobs []outputs.JobRow
	var cluster []outputs.ClusterTableRow
	var types []outputs.TypeRow
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
			apps = append(apps, outputs.AppRow{Key: &keys[i], App: a, Jobs: n[a], AvgJCT: r.AppAvgJCT[a]})
		}
		for j := range r.JobResults {
			jobs = append(jobs, outputs.JobRow{Key: &keys[i], Job: &r.JobResults[j]})
		}
		for j := range r.Cluster {
			cluster = append(cluster, outputs.ClusterTableRow{Key: &keys[i], GPUs: r.ClusterGPUs, Round: &r.Cluster[j]})
		}
		types = append(types, outputs.TypeRows(&keys[i], &r.Summary, r.Settings.ClusterOf(), r.JobResults)...)
	}
	if err := outputs.WriteTable(filepath.Join(dir, AppsFile), outputs.AppsTable, func(i int) outputs.AppRow { return apps[i] }, len(apps), kv, order); err != nil {
		return err
	}
	if err := outputs.WriteTable(filepath.Join(dir, JobsFile), outputs.JobsTable, func(i int) outputs.JobRow { return jobs[i] }, len(jobs), kv, order); err != nil {
		return err
	}
	if err := outputs.WriteTable(filepath.Join(dir, TypesFile), outputs.TypesTable, func(i int) outputs.TypeRow { return types[i] }, len(types), kv, order); err != nil {
		return err
	}
	if ext := exp.Extensions(); ext != nil && len(ext.Tables) > 0 {
		own := ext.Tables
		keyed := make([]outputs.KeyedRun, len(runs))
		for i, r := range runs {
			keyed[i] = outputs.KeyedRun{Key: &keys[i], Data: r.Data()}
		}
		for _, t := range own {
			if err := t.Write(filepath.Join(dir, t.Schema().File), keyed, kv, order); err != nil {
				return err
			}
		}
	}
	return outputs.WriteTable(filepath.Join(dir, ClusterFile), outputs.ClusterTable, func(i int) outputs.ClusterTableRow { return cluster[i] }, len(cluster), kv, order)
}
