package experiments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

func writeFileAtomic(path string, data []byte) error { return atomicfile.WriteBytes(path, data) }

// LoadRuns reads the stored runs of exp from dir/cells, in the order of
// Experiment.Runs. A run whose file is absent or unreadable as a run (a
// sweep redoes it), or was made by another version of the experiment or
// with other settings than the spec's (a stale file), is listed in missing
// instead.
func LoadRuns(dir string, exp *Experiment) (runs []*RunResult, missing []string, err error) {
	for _, r := range exp.Runs() {
		path := runPath(dir, r.ID())
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				missing = append(missing, r.ID())
				continue
			}
			return nil, nil, err
		}
		rr, err := ReadRunResult(path)
		if err != nil {
			missing = append(missing, r.ID())
			continue
		}
		if !rr.matches(exp, r) || rr.JobResults == nil {
			missing = append(missing, r.ID())
			continue
		}
		runs = append(runs, rr)
	}
	return runs, missing, nil
}

// matches reports whether a stored run is run r of this version of exp.
func (rr *RunResult) matches(exp *Experiment, r Run) bool {
	c := r.Cell
	return rr.Experiment == exp.Name && rr.ExperimentVersion == exp.Version && rr.Run == r.ID() &&
		rr.Cell == c.Name && rr.Workload == r.Workload && rr.Settings == c.spec &&
		rr.Load == c.load && rr.Config == c.config
}

// Rebuild writes the sweep-level tables (results.parquet, apps.parquet,
// jobs.parquet, cluster.parquet, and rounds.parquet when the runs kept
// their rounds, see SweepOptions.JobRounds) and summary.json from the stored runs of
// exp and returns the summary.
func Rebuild(dir string, exp *Experiment) (*SweepSummary, error) {
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
	if err := WriteJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// sweepMeta is the key-value metadata of a sweep's tables.
func sweepMeta(exp *Experiment) (map[string]string, []string) {
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
func WriteResults(path string, exp *Experiment, runs []*RunResult) error {
	r := runs
	labels := map[string]string{}
	for i := range exp.Cells {
		labels[exp.Cells[i].Name] = exp.Cells[i].Title()
	}
	keys := make([]runKey, len(r))
	for i := range r {
		keys[i] = sweepRunKey(r[i])
	}
	cols := append(runCols(func(i int) *runKey { return &keys[i] }),
		i64Col("experiment_version", func(i int) int64 { return int64(r[i].ExperimentVersion) }),
		strCol("run", func(i int) string { return r[i].Run }),
		strCol("label", func(i int) string { return labels[r[i].Cell] }),
		f64Col("load", func(i int) float64 { return r[i].Load }),
		strCol("config", func(i int) string { return r[i].Config }),
		i64Col("jobs", func(i int) int64 { return int64(r[i].Jobs) }),
		strCol("profiles", func(i int) string { return r[i].Profiles }),
		strCol("profiles_id", func(i int) string { return r[i].ProfilesID }),
		f64Col("interval_s", func(i int) float64 { return r[i].Settings.Interval }),
		f64Col("restart_delay_s", func(i int) float64 { return r[i].Settings.RestartDelay }),
		f64Col("interference", func(i int) float64 { return r[i].Settings.Interference }),
		boolCol("offline_priors", func(i int) bool { return r[i].Settings.OfflinePriors }),
		boolCol("offline_priors_scale_out", func(i int) bool { return r[i].Settings.OfflinePriorsScaleOut }),
		strCol("calibration", func(i int) string { return r[i].Settings.Calibration }),
		i64Col("nodes", func(i int) int64 { return int64(r[i].Settings.Nodes) }),
		i64Col("gpus_per_node", func(i int) int64 { return int64(r[i].Settings.GPUsPerNode) }),
		boolCol("step", func(i int) bool { return r[i].Settings.Step }),
	)
	for _, m := range runMetrics {
		switch {
		case m.count:
			cols = append(cols, i64Col(m.name, func(i int) int64 { return int64(m.get(r[i])) }))
		case m.timing:
			cols = append(cols, f64Null(m.name, func(i int) (float64, bool) { return m.get(r[i]), !r[i].NoTiming }))
		default:
			cols = append(cols, f64Col(m.name, func(i int) float64 { return m.get(r[i]) }))
		}
	}
	cols = append(cols, strCol("polluxsim_version", func(i int) string { return r[i].PolluxsimVersion }))
	kv, order := sweepMeta(exp)
	if err := writeTable(path, Table(ResultsFile), cols, len(r), kv, order); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// writeSweepTables writes apps.parquet, jobs.parquet and cluster.parquet
// over all runs of a sweep.
func writeSweepTables(dir string, exp *Experiment, runs []*RunResult) error {
	kv, order := sweepMeta(exp)
	keys := make([]runKey, len(runs))
	for i := range runs {
		keys[i] = sweepRunKey(runs[i])
	}
	type appRow struct {
		key  *runKey
		app  string
		jobs int
		avg  float64
	}
	var apps []appRow
	var jobs []jobRow
	var cluster []clusterRow
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
			jobs = append(jobs, jobRow{&keys[i], &r.JobResults[j]})
		}
		for j := range r.Cluster {
			cluster = append(cluster, clusterRow{&keys[i], r.ClusterGPUs, &r.Cluster[j]})
		}
	}
	appCols := append(runCols(func(i int) *runKey { return apps[i].key }),
		strCol("application", func(i int) string { return apps[i].app }),
		i64Col("jobs", func(i int) int64 { return int64(apps[i].jobs) }),
		f64Col("avg_jct_s", func(i int) float64 { return apps[i].avg }),
	)
	if err := writeTable(filepath.Join(dir, AppsFile), Table(AppsFile), appCols, len(apps), kv, order); err != nil {
		return err
	}
	if err := writeTable(filepath.Join(dir, JobsFile), Table(JobsFile), jobTableCols(jobs), len(jobs), kv, order); err != nil {
		return err
	}
	return writeTable(filepath.Join(dir, ClusterFile), Table(ClusterFile), clusterTableCols(cluster), len(cluster), kv, order)
}
