package experiments

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
		if !rr.matches(exp, r) {
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

// Rebuild writes dir/results.parquet and dir/summary.json from the stored
// runs of exp and returns the summary.
func Rebuild(dir string, exp *Experiment) (*SweepSummary, error) {
	runs, missing, err := LoadRuns(dir, exp)
	if err != nil {
		return nil, err
	}
	if err := WriteResults(filepath.Join(dir, ResultsFile), exp, runs); err != nil {
		return nil, err
	}
	sum := Summarize(exp, runs, missing)
	if err := WriteJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// WriteResults writes one row per run: its identity, workload, every
// setting (the policy's effective options as one JSON object,
// policy_options) and every metric (one avg_jct_s_<application> column per
// application). Wall-clock columns are zero for runs made with no timing.
func WriteResults(path string, exp *Experiment, runs []*RunResult) error {
	r := runs
	labels := map[string]string{}
	for i := range exp.Cells {
		labels[exp.Cells[i].Name] = exp.Cells[i].Title()
	}
	cols := []column{
		strCol("experiment", func(i int) string { return r[i].Experiment }),
		i64Col("experiment_version", func(i int) int64 { return int64(r[i].ExperimentVersion) }),
		strCol("run", func(i int) string { return r[i].Run }),
		strCol("cell", func(i int) string { return r[i].Cell }),
		strCol("label", func(i int) string { return labels[r[i].Cell] }),
		strCol("policy", func(i int) string { return r[i].Settings.Policy }),
		strCol("policy_options", func(i int) string { return string(r[i].Settings.Options) }),
		i64Col("workload", func(i int) int64 { return int64(r[i].Workload) }),
		f64Col("load", func(i int) float64 { return r[i].Load }),
		strCol("config", func(i int) string { return r[i].Config }),
		i64Col("jobs", func(i int) int64 { return int64(r[i].Jobs) }),
		strCol("workload_source", func(i int) string { return r[i].WorkloadSource }),
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
		i64Col("seed", func(i int) int64 { return int64(r[i].Settings.Seed) }),
	}
	for _, name := range metricNamesOf(runs) {
		cols = append(cols, f64Col(name, func(i int) float64 {
			v, ok := r[i].Metric(name)
			if !ok {
				return math.NaN() // no job of that application
			}
			return v
		}))
	}
	cols = append(cols,
		strCol("hash", func(i int) string { return r[i].Hash }),
		strCol("polluxsim_version", func(i int) string { return r[i].PolluxsimVersion }),
	)
	kv := map[string]string{
		"polluxsim.experiment":         exp.Name,
		"polluxsim.experiment_version": strconv.Itoa(exp.Version),
	}
	if err := writeParquet(path, cols, len(r), kv, []string{"polluxsim.experiment", "polluxsim.experiment_version"}); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}
