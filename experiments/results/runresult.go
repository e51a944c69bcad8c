package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

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
	// PolicyName is the name the policy reported of itself when it
	// differs from Settings.Policy (an external policy's child's); ""
	// otherwise, so a built-in policy's stored run is as it was (see
	// outputs.PolicyName).
	PolicyName string `json:"policy_name,omitempty"`

	// RunStats are the engine's summary and the largest ρs as stored;
	// metrics are computed from Data.
	RunStats
	// AppAvgJCT is the average JCT of each application's jobs, stored as
	// it always was (apps.parquet reads it); the metrics
	// avg_jct_s_<application> are computed from JobResults by the same
	// declaration (outputs.Family).
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
	apps, _ := outputs.BuiltinMetrics().Family("avg_jct_s")
	for _, app := range apps.Keys(d) {
		r.AppAvgJCT[app], _ = apps.Value(d, app)
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

// metricAliases are earlier names of metrics, accepted in specs.
var metricAliases = map[string]string{
	"avg_rho": "avg_fairness_rho",
	"p99_rho": "p99_fairness_rho",
	"max_rho": "max_fairness_rho",
}

// Declaration returns how a metric name of a spec reads for people: the
// metric of ms (the zero Metrics: the built-ins) or a member of one of
// its families (outputs.Metrics.Lookup), under its name or an earlier one
// (avg_rho for avg_fairness_rho); ok says whether ms knows it.
func Declaration(ms outputs.Metrics, name string) (outputs.Metric, bool) {
	if a, ok := metricAliases[name]; ok {
		name = a
	}
	return ms.Lookup(name)
}

// KnownMetric reports whether ms knows the metric name (see Declaration).
func KnownMetric(ms outputs.Metrics, name string) bool {
	_, ok := Declaration(ms, name)
	return ok
}

// Metric returns the named metric of ms (see Declaration) of the run,
// computed from its stored results; ok is false for an unknown metric, a
// run without a value (no job has a ρ) or an application without jobs in
// this run. A timing metric of a run made with no timing is 0 here (as a
// sweep's summary.json has always shown it), null in results.parquet.
func (r *RunResult) Metric(ms outputs.Metrics, name string) (v float64, ok bool) {
	m, ok := Declaration(ms, name)
	if !ok {
		return 0, false
	}
	return m.Value(r.Data())
}

// MetricNamesOf lists the metrics of ms that runs have
// (outputs.Metrics.NamesIn): results.parquet's metric columns, then one
// per application seen, then one per GPU type of node pools, sorted.
func MetricNamesOf(ms outputs.Metrics, runs []*RunResult) []string {
	data := make([]*outputs.RunData, len(runs))
	for i, r := range runs {
		data[i] = r.Data()
	}
	return ms.NamesIn(data)
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
