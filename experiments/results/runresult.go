package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/sim"
)

// RunResult is what a sweep keeps of one run, stored as
// DIR/cells/<run>.json: its identity and settings, the run's summary, the
// jobs' rows (for tables and distributions) and its cluster rows (one per
// scheduling round, for tables and timelines).
type RunResult struct {
	Experiment        string `json:"experiment"`
	ExperimentVersion int    `json:"experiment_version"`
	Run               string `json:"run"`
	Cell              string `json:"cell"`
	Workload          int    `json:"workload"`
	// Hash identifies the run's inputs: experiment, settings, workload
	// content, profiles and polluxsim version. A sweep redoes a run whose
	// stored hash differs.
	Hash             string          `json:"hash"`
	PolluxsimVersion string          `json:"polluxsim_version"`
	Settings         runspec.RunSpec `json:"settings"`
	Load             float64         `json:"load"`
	Config           string          `json:"config"`
	Jobs             int             `json:"jobs"`
	WorkloadSource   string          `json:"workload_source"`
	WorkloadDigest   string          `json:"workload_digest"`
	Profiles         string          `json:"profiles"`
	ProfilesID       string          `json:"profiles_id"`

	// RunStats are the engine's summary and the largest ρs as stored;
	// metrics are computed from Data.
	RunStats
	// AppAvgJCT is the average JCT of each application's jobs.
	AppAvgJCT map[string]float64 `json:"app_avg_jct_s"`

	// JobResults are the run's rows of jobs.parquet and Cluster its rows
	// of cluster.parquet (without the run columns); ClusterGPUs is the
	// cluster's size.
	JobResults  []sim.JobResult      `json:"job_results"`
	Cluster     []outputs.ClusterRow `json:"cluster"`
	ClusterGPUs int                  `json:"cluster_gpus"`
	// NoTiming says that wall-clock fields were not measured (zero in
	// Summary, null in the tables).
	NoTiming bool `json:"no_timing,omitempty"`
	// Elastic is the elastic cluster's state per round (nil on a fixed
	// cluster), for the Fig 9 plot.
	Elastic *ElasticSeries `json:"elastic,omitempty"`
	// Checksum is the SHA-256 of the rest of the record (its compact JSON
	// with Checksum empty), set by WriteRunResult and checked by
	// ReadRunResult: a stored cell edited afterwards (a summary's
	// avg_jct_s merged into a sweep's mean) is corrupt.
	Checksum string `json:"checksum"`
}

// RunStats are the engine's summary of a stored run and its largest ρs,
// stored as they always were (cells/RUN.json's summary, max_rho and
// max_rho_equal_share), so that stored runs keep their bytes and
// checksums. Metrics do not read them: every metric is computed from the
// run's results (Data), max_fairness_rho from its jobs.
type RunStats struct {
	Summary sim.Summary `json:"summary"`
	MaxRho  float64     `json:"max_rho"`
	// MaxRhoEqualShare is the largest equal-share ρ
	// (sim.JobResult.FairnessEqualShare).
	MaxRhoEqualShare float64 `json:"max_rho_equal_share"`
}

// Data is what the run's metrics are computed from: its summary, jobs
// and cluster rounds as stored.
func (r *RunResult) Data() *outputs.RunData {
	return &outputs.RunData{Summary: &r.Summary, Jobs: r.JobResults, Rounds: r.Cluster, ClusterGPUs: r.ClusterGPUs, NoTiming: r.NoTiming}
}

// ErrCorrupt marks a stored run whose content does not match its
// checksum, or that is not a stored run at all (not JSON, or without a
// run, cell and hash).
var ErrCorrupt = errors.New("corrupt")

// contentSum is the checksum of r's content (see RunResult.Checksum).
func (r *RunResult) contentSum() (string, error) {
	c := *r
	c.Checksum = ""
	data, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// newRunResult condenses a finished simulation.
func NewRunResult(res *sim.Result, noTiming bool) *RunResult {
	d := outputs.NewRunData(res, noTiming)
	r := &RunResult{RunStats: RunStats{Summary: *d.Summary}, AppAvgJCT: map[string]float64{}}
	// Stored as before; the metric max_fairness_rho reads the jobs.
	r.MaxRho, _ = maxRho.Of(d)
	r.MaxRhoEqualShare, _ = maxRhoEqualShare.Of(d)
	count := map[string]int{}
	for _, j := range res.Jobs {
		if j.Declined != "" {
			continue // never ran: no JCT (as the run's own figures)
		}
		r.AppAvgJCT[j.App] += j.JCT
		count[j.App]++
	}
	for app, n := range count {
		r.AppAvgJCT[app] /= float64(n)
	}
	r.JobResults = d.Jobs
	r.Cluster = d.Rounds
	r.ClusterGPUs = d.ClusterGPUs
	r.NoTiming = noTiming
	r.Elastic = elasticSeries(res)
	return r
}

var (
	maxRho, _           = outputs.LookupMetric("max_fairness_rho")
	maxRhoEqualShare, _ = outputs.LookupMetric("max_fairness_rho_equal_share")
)

// appMetricPrefix starts the name of a per-application average JCT.
const appMetricPrefix = "avg_jct_s_"

// typeMetricPrefix starts the name of the GPU-hours on one GPU type
// (runs on node pools, see sim.Summary.GPUHoursByType).
const typeMetricPrefix = "gpu_hours_"

// MetricNames lists the built-in metrics of a run (per-application ones
// are avg_jct_s_<application>).
func MetricNames() []string { return MetricNamesIn(outputs.BuiltinMetrics()) }

// MetricNamesIn lists the metrics of ms, then the per-application and
// per-type families.
func MetricNamesIn(ms outputs.Metrics) []string {
	var names []string
	for _, m := range ms.All() {
		names = append(names, m.Name)
	}
	return append(names, appMetricPrefix+"<application>", typeMetricPrefix+"<GPU type>")
}

// metricAliases are earlier names of metrics, accepted in specs.
var metricAliases = map[string]string{
	"avg_rho": "avg_fairness_rho",
	"p99_rho": "p99_fairness_rho",
	"max_rho": "max_fairness_rho",
}

// KnownMetric reports whether name (or an earlier name of it) is a
// built-in metric, a per-application or a per-type one.
func KnownMetric(name string) bool { return KnownMetricIn(outputs.BuiltinMetrics(), name) }

// KnownMetricIn reports whether name (or an earlier name of it) is a
// metric of ms, a per-application or a per-type one.
func KnownMetricIn(ms outputs.Metrics, name string) bool {
	_, ok := DeclarationIn(ms, name)
	return ok
}

// Declaration returns how a built-in metric name reads for people (see
// DeclarationIn).
func Declaration(name string) (outputs.Metric, bool) {
	return DeclarationIn(outputs.BuiltinMetrics(), name)
}

// DeclarationIn returns how a metric name reads for people: the metric
// of ms (or the one an earlier name stands for), or for a per-application
// or per-GPU-type metric the declaration of the metric it splits
// (avg_jct_s, gpu_hours), labelled with its application or type.
func DeclarationIn(ms outputs.Metrics, name string) (outputs.Metric, bool) {
	if a, ok := metricAliases[name]; ok {
		name = a
	}
	if m, ok := ms.Lookup(name); ok {
		return m, true
	}
	for _, p := range []string{appMetricPrefix, typeMetricPrefix} {
		if part, ok := strings.CutPrefix(name, p); ok && part != "" {
			m, ok := outputs.LookupMetric(strings.TrimSuffix(p, "_"))
			m.Name, m.Label = name, m.Label+" of "+part
			return m, ok
		}
	}
	return outputs.Metric{}, false
}

// Metric returns the named built-in metric of the run (see MetricIn).
func (r *RunResult) Metric(name string) (v float64, ok bool) {
	return r.MetricIn(outputs.BuiltinMetrics(), name)
}

// MetricIn returns the named metric of ms of the run, computed from its
// stored results; ok is false for an unknown metric, a run without a
// value (no job has a ρ) or an application without jobs in this run. A
// timing metric of a run made with no timing is 0 here (as a sweep's
// summary.json has always shown it), null in results.parquet.
func (r *RunResult) MetricIn(ms outputs.Metrics, name string) (v float64, ok bool) {
	if a, isAlias := metricAliases[name]; isAlias {
		name = a
	}
	if app, isApp := strings.CutPrefix(name, appMetricPrefix); isApp {
		v, ok = r.AppAvgJCT[app]
		return v, ok
	}
	if m, ok := ms.Lookup(name); ok {
		return m.Value(r.Data())
	}
	if t, isType := strings.CutPrefix(name, typeMetricPrefix); isType {
		v, ok = r.Summary.GPUHoursByType[t]
		return v, ok
	}
	return 0, false
}

// MetricNamesOf lists the built-in metrics present in runs (see
// MetricNamesOfIn).
func MetricNamesOf(runs []*RunResult) []string {
	return MetricNamesOfIn(outputs.BuiltinMetrics(), runs)
}

// MetricNamesOfIn lists the metrics present in runs: the column metrics
// of ms (results.parquet's), then one per application seen, then one per
// GPU type of node pools, sorted.
func MetricNamesOfIn(ms outputs.Metrics, runs []*RunResult) []string {
	apps, types := map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		for a := range r.AppAvgJCT {
			apps[a] = true
		}
		for t := range r.Summary.GPUHoursByType {
			types[t] = true
		}
	}
	var names []string
	for _, m := range ms.Columns() {
		names = append(names, m.Name)
	}
	var as []string
	for a := range apps {
		as = append(as, appMetricPrefix+a)
	}
	sort.Strings(as)
	var ts []string
	for t := range types {
		ts = append(ts, typeMetricPrefix+t)
	}
	sort.Strings(ts)
	return append(append(names, as...), ts...)
}

// writeRunResult stores a run atomically as indented JSON with its number
// and name lists on one line each.
func WriteRunResult(path string, r *RunResult) error {
	c := *r
	sum, err := c.contentSum()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	c.Checksum = sum
	data, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	data = scalarList.ReplaceAllFunc(data, func(m []byte) []byte {
		return spaceRun.ReplaceAll(m, nil)
	})
	return atomicfile.WriteBytes(path, append(c.Summary.NullFairness(data), '\n'))
}

var (
	// scalarList matches a multi-line JSON array of numbers or strings
	// without brackets or braces.
	scalarList = regexp.MustCompile(`\[\n[^\[\]{}]*?\n\s*\]`)
	spaceRun   = regexp.MustCompile(`\n\s*`)
)

// CollapseSpace replaces every line break and the indentation after it in
// indented JSON with sep.
func CollapseSpace(b, sep []byte) []byte { return spaceRun.ReplaceAll(b, sep) }

// ReadRunResult reads one stored run.
func ReadRunResult(path string) (*RunResult, error) {
	data, err := inputfile.ReadFileLimit(path, inputfile.MaxStoredSize)
	if err != nil {
		return nil, err
	}
	// Cells are written whole (atomically): one that is not a stored run
	// was damaged or replaced afterwards, never left by a killed sweep;
	// every polluxsim's cells have a run, a cell and a hash.
	var r RunResult
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: stored run %w: not a stored run's JSON (%v); remove it and sweep again", path, ErrCorrupt, err)
	}
	if r.Run == "" || r.Cell == "" || r.Hash == "" {
		return nil, fmt.Errorf("%s: stored run %w: not a run result (no run, cell or hash); remove it and sweep again", path, ErrCorrupt)
	}
	r.Summary.SetNoFairness(r.JobResults) // not stored: null figures read as 0
	sum, err := r.contentSum()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case r.Checksum == "":
		// Written before cells had checksums: by another version, whose
		// runs a sweep redoes anyway.
		return nil, fmt.Errorf("%s: a stored run without a checksum (written by an older polluxsim)", path)
	case r.Checksum != sum:
		// Not "another version": its content was changed after it was
		// written.
		return nil, fmt.Errorf("%s: stored run %w: its content does not match its checksum (edited after it was written?); remove it and sweep again", path, ErrCorrupt)
	}
	return &r, nil
}
