package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/polluxsim/polluxsim/sim"
)

// RunResult is what a sweep keeps of one run, stored as
// DIR/cells/<run>.json: its identity and settings, the run's summary, the
// per-job JCTs and finish-time fairness (for CDFs) and a compact time
// series of the cluster (for timelines).
type RunResult struct {
	Experiment        string `json:"experiment"`
	ExperimentVersion int    `json:"experiment_version"`
	Run               string `json:"run"`
	Cell              string `json:"cell"`
	Workload          int    `json:"workload"`
	// Hash identifies the run's inputs: experiment, settings, workload
	// content, profiles and polluxsim version. A sweep redoes a run whose
	// stored hash differs.
	Hash             string  `json:"hash"`
	PolluxsimVersion string  `json:"polluxsim_version"`
	Settings         RunSpec `json:"settings"`
	Load             float64 `json:"load"`
	Config           string  `json:"config"`
	Jobs             int     `json:"jobs"`
	WorkloadSource   string  `json:"workload_source"`
	Profiles         string  `json:"profiles"`
	ProfilesID       string  `json:"profiles_id"`

	Summary sim.Summary `json:"summary"`
	MaxRho  float64     `json:"max_rho"`
	// AppAvgJCT is the average JCT of each application's jobs.
	AppAvgJCT map[string]float64 `json:"app_avg_jct_s"`

	JobApp []string  `json:"job_app"`
	JobJCT []float64 `json:"job_jct_s"`
	JobRho []float64 `json:"job_rho"`

	Series Series `json:"series"`
}

// Series is the cluster's state after each scheduling round: time, GPUs
// allocated, the mean true statistical efficiency of the jobs holding GPUs
// and the number of active (submitted, unfinished) jobs.
type Series struct {
	Time       []float64 `json:"time_s"`
	GPUs       []int     `json:"gpus"`
	Efficiency []float64 `json:"efficiency"`
	Active     []int     `json:"active_jobs"`
}

// newRunResult condenses a finished simulation.
func newRunResult(res *sim.Result, noTiming bool) *RunResult {
	r := &RunResult{Summary: res.Summary, AppAvgJCT: map[string]float64{}}
	if noTiming {
		r.Summary.Wall, r.Summary.PolicyRoundP50, r.Summary.PolicyRoundP99, r.Summary.PolicyRoundTotal = 0, 0, 0, 0
	}
	count := map[string]int{}
	for _, j := range res.Jobs {
		r.JobApp = append(r.JobApp, j.App)
		r.JobJCT = append(r.JobJCT, j.JCT)
		r.JobRho = append(r.JobRho, roundTo(j.Fairness, 6))
		r.MaxRho = math.Max(r.MaxRho, j.Fairness)
		r.AppAvgJCT[j.App] += j.JCT
		count[j.App]++
	}
	for app, n := range count {
		r.AppAvgJCT[app] /= float64(n)
	}
	r.Series = seriesOf(res.RoundStats)
	return r
}

// seriesOf is one point per round from the round statistics.
func seriesOf(stats []sim.RoundStat) Series {
	var s Series
	for _, rs := range stats {
		s.Time = append(s.Time, rs.Time)
		s.GPUs = append(s.GPUs, rs.GPUs)
		s.Efficiency = append(s.Efficiency, roundTo(rs.Efficiency, 4))
		s.Active = append(s.Active, rs.Active)
	}
	return s
}

// roundTo rounds x to digits decimals (keeps stored files short).
func roundTo(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}

// metric is one number of a run that summaries, tables and baselines use.
type metric struct {
	name string
	get  func(r *RunResult) float64
}

// runMetrics are the metrics of every run, in table order; per-application
// average JCTs follow as avg_jct_s_<application>.
var runMetrics = []metric{
	{"avg_jct_s", func(r *RunResult) float64 { return r.Summary.AvgJCT }},
	{"p50_jct_s", func(r *RunResult) float64 { return r.Summary.P50JCT }},
	{"p99_jct_s", func(r *RunResult) float64 { return r.Summary.P99JCT }},
	{"max_jct_s", func(r *RunResult) float64 { return r.Summary.MaxJCT }},
	{"avg_queueing_s", func(r *RunResult) float64 { return r.Summary.AvgQueueing }},
	{"makespan_s", func(r *RunResult) float64 { return r.Summary.Makespan }},
	{"restarts", func(r *RunResult) float64 { return float64(r.Summary.Restarts) }},
	{"gpu_hours", func(r *RunResult) float64 { return r.Summary.GPUHours }},
	{"utilisation", func(r *RunResult) float64 { return r.Summary.Utilisation }},
	{"avg_rho", func(r *RunResult) float64 { return r.Summary.AvgFairness }},
	{"p99_rho", func(r *RunResult) float64 { return r.Summary.P99Fairness }},
	{"max_rho", func(r *RunResult) float64 { return r.MaxRho }},
	{"frac_rho_above_1", func(r *RunResult) float64 { return r.Summary.FracUnfair }},
	{"rounds", func(r *RunResult) float64 { return float64(r.Summary.Rounds) }},
	{"agent_fits", func(r *RunResult) float64 { return float64(r.Summary.AgentFits) }},
	{"policy_round_p50_s", func(r *RunResult) float64 { return r.Summary.PolicyRoundP50 }},
	{"policy_round_p99_s", func(r *RunResult) float64 { return r.Summary.PolicyRoundP99 }},
	{"policy_total_s", func(r *RunResult) float64 { return r.Summary.PolicyRoundTotal }},
	{"wall_s", func(r *RunResult) float64 { return r.Summary.Wall }},
}

// appMetricPrefix starts the name of a per-application average JCT.
const appMetricPrefix = "avg_jct_s_"

// MetricNames lists the metrics of a run (per-application ones are
// avg_jct_s_<application>).
func MetricNames() []string {
	names := make([]string, 0, len(runMetrics)+1)
	for _, m := range runMetrics {
		names = append(names, m.name)
	}
	return append(names, appMetricPrefix+"<application>")
}

func knownMetric(name string) bool {
	if app, ok := strings.CutPrefix(name, appMetricPrefix); ok {
		return app != ""
	}
	for _, m := range runMetrics {
		if m.name == name {
			return true
		}
	}
	return false
}

// Metric returns the named metric of the run; ok is false for an unknown
// metric or an application without jobs in this run.
func (r *RunResult) Metric(name string) (v float64, ok bool) {
	if app, isApp := strings.CutPrefix(name, appMetricPrefix); isApp {
		v, ok = r.AppAvgJCT[app]
		return v, ok
	}
	for _, m := range runMetrics {
		if m.name == name {
			return m.get(r), true
		}
	}
	return 0, false
}

// metricNamesOf lists the metrics present in runs: the fixed ones, then
// one per application seen, sorted.
func metricNamesOf(runs []*RunResult) []string {
	apps := map[string]bool{}
	for _, r := range runs {
		for a := range r.AppAvgJCT {
			apps[a] = true
		}
	}
	names := make([]string, 0, len(runMetrics)+len(apps))
	for _, m := range runMetrics {
		names = append(names, m.name)
	}
	var as []string
	for a := range apps {
		as = append(as, appMetricPrefix+a)
	}
	sort.Strings(as)
	return append(names, as...)
}

// writeRunResult stores a run atomically as indented JSON with its number
// and name lists on one line each.
func writeRunResult(path string, r *RunResult) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	data = scalarList.ReplaceAllFunc(data, func(m []byte) []byte {
		return spaceRun.ReplaceAll(m, nil)
	})
	return writeFileAtomic(path, append(data, '\n'))
}

var (
	// scalarList matches a multi-line JSON array of numbers or strings
	// without brackets or braces.
	scalarList = regexp.MustCompile(`\[\n[^\[\]{}]*?\n\s*\]`)
	spaceRun   = regexp.MustCompile(`\n\s*`)
)

// ReadRunResult reads one stored run.
func ReadRunResult(path string) (*RunResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r RunResult
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Run == "" || r.Cell == "" || r.Hash == "" {
		return nil, fmt.Errorf("%s: not a run result (no run, cell or hash)", path)
	}
	return &r, nil
}
