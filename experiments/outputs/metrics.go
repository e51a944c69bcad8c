package outputs

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/polluxsim/polluxsim/sim"
)

// RunData is what every run-level metric is computed from: a finished
// run's job results and round results, as the run has them when it ends
// (runner, summary.json) and as a sweep keeps them (cells/RUN.json, read
// back for results.parquet, summary.json, the report and regress). A
// metric is a function of these alone, so a new one needs no engine
// edit.
type RunData struct {
	// Summary holds the engine's own counters of the run (rounds, agent
	// refits, the policy's wall times, node-hours, ...) and the figures
	// it summarised from the jobs; with NoTiming its wall-clock fields are
	// zero.
	Summary *sim.Summary
	// Jobs are the run's jobs (jobs.parquet's rows).
	Jobs []sim.JobResult
	// Rounds are the cluster's scheduling rounds, idle ones included
	// (cluster.parquet's rows).
	Rounds []ClusterRow
	// ClusterGPUs is the cluster's size (an elastic cluster's initial
	// one).
	ClusterGPUs int
	// NoTiming says that wall-clock times were not measured.
	NoTiming bool
}

// Aggregation is how a sweep summarises a metric over a cell's
// workloads.
type Aggregation int

const (
	// Mean: the mean with its sample deviation and 95 % confidence
	// interval (every built-in metric).
	Mean Aggregation = iota
	// Median, Max, Min, Sum: that value over the workloads (summary.json's
	// value and aggregate, beside the mean).
	Median
	Max
	Min
	Sum
)

var aggregationNames = [...]string{"mean", "median", "max", "min", "sum"}

func (a Aggregation) String() string {
	if a < 0 || int(a) >= len(aggregationNames) {
		return fmt.Sprintf("aggregation(%d)", int(a))
	}
	return aggregationNames[a]
}

// Of aggregates values (NaN for none).
func (a Aggregation) Of(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	switch a {
	case Median:
		return sim.Percentile(values, 50)
	case Max, Min:
		v := values[0]
		for _, x := range values[1:] {
			if a == Max {
				v = math.Max(v, x)
			} else {
				v = math.Min(v, x)
			}
		}
		return v
	}
	s := 0.0
	for _, x := range values {
		s += x
	}
	if a == Sum {
		return s
	}
	return s / float64(len(values))
}

// Metric declares one number of a run, once: summary.json has a key for
// it, results.parquet a column (unless Optional), a sweep's summary.json
// its aggregate over workloads, the report a table (when Report), and
// specs, ratios, plots and regress baselines name it. Adding a metric is
// adding one Metric to a Metrics set (BuiltinMetrics().With(m)); nothing
// else changes.
type Metric struct {
	Name string
	// Unit and Doc document its results.parquet column (docs/outputs.md).
	Unit, Doc string
	// Label names the metric for people ("average JCT"), without a unit:
	// the report's headings add the unit of the metric's Scale.
	Label string
	// Count metrics are whole numbers (BIGINT columns); Timing ones are
	// wall-clock measurements (null in the tables when not measured, 0 in
	// summary.json, as always).
	Count, Timing bool
	// Optional metrics exist only for some runs (an elastic cluster's
	// node-hours): no results.parquet column (its columns are the same for
	// every run), and in summary.json only when the run has a non-zero
	// value.
	Optional bool
	// Present makes an Optional metric a key of summary.json whenever the
	// run has a value (Value's ok), zero included; without it, only when
	// the value is not zero. A run without a value never has the key.
	Present bool
	// Conditional makes an Optional metric a conditional column of
	// results.parquet (Field.When): in a file where a run has a value, null
	// for the runs without, and absent from the files of sweeps where no
	// run has one, which stay what they were before the metric existed. A
	// sweep's summary.json aggregates it over the runs that have it
	// (NamesIn). The deadline metrics are (docs/deadlines.md), and the
	// figures of runs with failures (docs/failures.md).
	Conditional bool
	// MayBeNull says that a run may have no value (Value's ok false): its
	// column is nullable. A column that is not takes Value's v whatever
	// ok says.
	MayBeNull bool
	// Report makes the metric a table of the report.
	Report bool
	// HigherIsBetter says which way is an improvement (utilisation) or a
	// regression (JCT) when regress finds it drifted.
	HigherIsBetter bool
	// Aggregate is how a sweep summarises it over workloads (Mean unless
	// set).
	Aggregate Aggregation
	// Value computes it from the run's results; ok is false where the run
	// has no value (no job has a ρ): null in summary.json and the tables,
	// left out of a sweep's aggregates.
	Value func(d *RunData) (v float64, ok bool)
}

// Type is the metric's column type.
func (m Metric) Type() string {
	if m.Count {
		return TypeInt
	}
	return TypeFloat
}

// Nullable says whether the metric's column may hold nulls (a
// Conditional one's is null for the runs without it).
func (m Metric) Nullable() bool { return m.Timing || m.MayBeNull || m.Conditional }

// Of is the metric's value for a run: ok is false where it has none
// (Value says so, or a wall-clock time was not measured).
func (m Metric) Of(d *RunData) (float64, bool) {
	v, ok := m.Value(d)
	if m.Timing && d.NoTiming {
		return 0, false
	}
	return v, ok
}

// Family declares a family of metrics, one member per key a run has:
// the average JCT of each application (avg_jct_s_<application>), the
// GPU-hours on each GPU type (gpu_hours_<type>). A member is named
// Prefix+key and takes the declaration of the metric Of (unit, doc,
// direction, aggregation), labelled "<Of's label> of <key>"; ratios,
// plots, regress baselines and a sweep's summary name it as any metric.
// Members are not results.parquet columns (a run's keys vary; apps.parquet
// and types.parquet hold them) nor summary.json keys.
type Family struct {
	// Prefix starts every member's name ("avg_jct_s_").
	Prefix string
	// Placeholder stands for the key where the family is listed
	// ("<application>").
	Placeholder string
	// Of names the metric of the set each member splits.
	Of string
	// Keys are the run's members' keys, sorted.
	Keys func(d *RunData) []string
	// Value is member key's value in the run; ok is false where the run
	// has none (an application without jobs in it).
	Value func(d *RunData, key string) (v float64, ok bool)
}

// builtinFamilies are polluxsim's metric families.
var builtinFamilies = []Family{
	{Prefix: "avg_jct_s_", Placeholder: "<application>", Of: "avg_jct_s", Keys: appKeys, Value: appAvgJCT},
	{Prefix: "gpu_hours_", Placeholder: "<GPU type>", Of: "gpu_hours", Keys: typeKeys, Value: func(d *RunData, t string) (float64, bool) {
		v, ok := d.Summary.GPUHoursByType[t]
		return v, ok
	}},
}

// appKeys are the applications of a run's jobs that ran (a declined job
// has no JCT, as in the run's own figures).
func appKeys(d *RunData) []string {
	seen := map[string]bool{}
	var keys []string
	for i := range d.Jobs {
		if a := d.Jobs[i].App; !seen[a] && d.Jobs[i].Declined == "" {
			seen[a] = true
			keys = append(keys, a)
		}
	}
	sort.Strings(keys)
	return keys
}

// appAvgJCT is the average JCT of application app's jobs in the run that
// ran (not declined): the sum of their JCTs, in job order, over their
// number.
func appAvgJCT(d *RunData, app string) (float64, bool) {
	sum, n := 0.0, 0
	for i := range d.Jobs {
		if j := &d.Jobs[i]; j.App == app && j.Declined == "" {
			sum += j.JCT
			n++
		}
	}
	return sum / float64(n), n > 0
}

// typeKeys are the GPU types a run on node pools used.
func typeKeys(d *RunData) []string {
	keys := make([]string, 0, len(d.Summary.GPUHoursByType))
	for t := range d.Summary.GPUHoursByType {
		keys = append(keys, t)
	}
	sort.Strings(keys)
	return keys
}

// Metrics is a set of metric declarations, in table order, with the
// metric families (Family) that split them: a value that whoever writes
// or reads outputs holds and passes down (there is no global
// registration). The zero Metrics is the built-in set (BuiltinMetrics);
// With and Merge return new sets.
type Metrics struct {
	list []Metric
}

// BuiltinMetrics is the set of polluxsim's own metrics.
func BuiltinMetrics() Metrics { return Metrics{list: builtinMetrics} }

// NewMetrics is a set of exactly ms (no built-ins), checked as With
// checks.
func NewMetrics(ms ...Metric) (Metrics, error) {
	return Metrics{list: []Metric{}}.with(ms)
}

// With returns the set with ms appended; it panics on a metric without
// a name or a Value, or a name already in the set (a program error, found
// by its first run; NewMetrics and Merge report it).
func (s Metrics) With(ms ...Metric) Metrics {
	out, err := s.with(ms)
	if err != nil {
		panic(err)
	}
	return out
}

// Merge returns the set with o's metrics appended; a name in both is an
// error.
func (s Metrics) Merge(o Metrics) (Metrics, error) { return s.with(o.All()) }

func (s Metrics) with(ms []Metric) (Metrics, error) {
	list := append(make([]Metric, 0, len(s.All())+len(ms)), s.All()...)
	for _, m := range ms {
		switch {
		case m.Name == "" || m.Value == nil:
			return Metrics{}, fmt.Errorf("metric %q: needs a name and a Value", m.Name)
		case m.Label == "":
			m.Label = m.Name
		}
		for _, o := range list {
			if o.Name == m.Name {
				return Metrics{}, fmt.Errorf("metric %s declared twice", m.Name)
			}
		}
		list = append(list, m)
	}
	return Metrics{list: list}, nil
}

// IsZero says whether s is the zero set (the built-ins, as no set given):
// the run pipeline then takes the binary's set (extensions.MetricSet).
func (s Metrics) IsZero() bool { return s.list == nil }

// All returns the set's metrics, in table order.
func (s Metrics) All() []Metric {
	if s.list == nil {
		return append([]Metric(nil), builtinMetrics...)
	}
	return append([]Metric(nil), s.list...)
}

// Lookup returns the metric called name: one of the set, or a member of
// one of its families (see Family) whose metric is in the set.
func (s Metrics) Lookup(name string) (Metric, bool) {
	if m, ok := s.metric(name); ok {
		return m, true
	}
	for _, f := range s.Families() {
		key, ok := strings.CutPrefix(name, f.Prefix)
		if !ok || key == "" {
			continue
		}
		m, _ := s.metric(f.Of)
		m.Name, m.Label, m.Optional = name, m.Label+" of "+key, true
		m.Value = func(d *RunData) (float64, bool) { return f.Value(d, key) }
		return m, true
	}
	return Metric{}, false
}

// metric returns the set's metric called name (no family member).
func (s Metrics) metric(name string) (Metric, bool) {
	for _, m := range s.All() {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Families are the set's metric families: the built-in ones whose metric
// the set has.
func (s Metrics) Families() []Family {
	var out []Family
	for _, f := range builtinFamilies {
		if _, ok := s.metric(f.Of); ok {
			out = append(out, f)
		}
	}
	return out
}

// Family returns the set's family that splits the metric of.
func (s Metrics) Family(of string) (Family, bool) {
	for _, f := range s.Families() {
		if f.Of == of {
			return f, true
		}
	}
	return Family{}, false
}

// Names lists the set's metrics, then each family as its prefix and
// placeholder (avg_jct_s_<application>).
func (s Metrics) Names() []string {
	var names []string
	for _, m := range s.All() {
		names = append(names, m.Name)
	}
	for _, f := range s.Families() {
		names = append(names, f.Prefix+f.Placeholder)
	}
	return names
}

// NamesIn lists the metrics runs have: the set's columns
// (results.parquet's), the Conditional metrics any run has, then the members of each family that any run has,
// family by family, sorted.
func (s Metrics) NamesIn(runs []*RunData) []string {
	var names []string
	for _, m := range s.Columns() {
		names = append(names, m.Name)
	}
	for _, m := range s.All() {
		if m.Optional && m.Conditional && slices.ContainsFunc(runs, func(d *RunData) bool { _, ok := m.Of(d); return ok }) {
			names = append(names, m.Name)
		}
	}
	for _, f := range s.Families() {
		seen := map[string]bool{}
		var members []string
		for _, d := range runs {
			for _, k := range f.Keys(d) {
				if !seen[k] {
					seen[k] = true
					members = append(members, f.Prefix+k)
				}
			}
		}
		sort.Strings(members)
		names = append(names, members...)
	}
	return names
}

// Columns are the set's results.parquet columns in every file: every
// metric but the Optional ones, in order (the Conditional ones are
// columns only where a run has them: metricFields, NamesIn).
func (s Metrics) Columns() []Metric {
	var out []Metric
	for _, m := range s.All() {
		if !m.Optional {
			out = append(out, m)
		}
	}
	return out
}

// LookupMetric returns the built-in metric called name.
func LookupMetric(name string) (Metric, bool) { return BuiltinMetrics().Lookup(name) }

// summaryOf declares a metric the engine summarised into sim.Summary.
func summaryOf(get func(s *sim.Summary) float64) func(d *RunData) (float64, bool) {
	return func(d *RunData) (float64, bool) { return get(d.Summary), true }
}

// rhoOf is a ρ figure of the summary: none when no job has a ρ (the
// figure is null, not 0, which would read as perfectly fair).
func rhoOf(get func(s *sim.Summary) float64) func(d *RunData) (float64, bool) {
	return func(d *RunData) (float64, bool) { return get(d.Summary), !d.Summary.NoFairness }
}

func shareRhoOf(get func(s *sim.Summary) float64) func(d *RunData) (float64, bool) {
	return func(d *RunData) (float64, bool) { return get(d.Summary), !d.Summary.NoFairnessEqualShare }
}

// faultsOf is a figure of a run with failures; none without.
func faultsOf(get func(f *sim.FaultSummary) float64) func(d *RunData) (float64, bool) {
	return func(d *RunData) (float64, bool) {
		if d.Summary.Faults == nil {
			return 0, false
		}
		return get(d.Summary.Faults), true
	}
}

// maxOverJobs is the largest of a job figure over the jobs that have it
// (has); none when no job has.
func maxOverJobs(get func(j *sim.JobResult) float64, has func(j *sim.JobResult) bool) func(d *RunData) (float64, bool) {
	return func(d *RunData) (float64, bool) {
		v, any := 0.0, false
		for i := range d.Jobs {
			if j := &d.Jobs[i]; has(j) {
				v, any = math.Max(v, get(j)), true
			}
		}
		return v, any
	}
}

// builtinMetrics are polluxsim's metrics, in table order: the core ones,
// then those of deadlines (deadlines.go); per-application average JCTs
// (avg_jct_s_<application>) and GPU-hours per GPU type (gpu_hours_<type>)
// are their families (builtinFamilies).
var builtinMetrics = append(coreMetrics[:len(coreMetrics):len(coreMetrics)], deadlineMetrics...)

// coreMetrics are the metrics of every run.
var coreMetrics = []Metric{
	{Name: "avg_jct_s", Unit: UnitSeconds, Doc: "mean JCT", Report: true, Label: "average JCT", Value: summaryOf(func(s *sim.Summary) float64 { return s.AvgJCT })},
	{Name: "p50_jct_s", Unit: UnitSeconds, Doc: "median JCT", Label: "median JCT", Value: summaryOf(func(s *sim.Summary) float64 { return s.P50JCT })},
	{Name: "p99_jct_s", Unit: UnitSeconds, Doc: "99th percentile JCT", Report: true, Label: "99th percentile JCT", Value: summaryOf(func(s *sim.Summary) float64 { return s.P99JCT })},
	{Name: "max_jct_s", Unit: UnitSeconds, Doc: "largest JCT", Label: "largest JCT", Value: summaryOf(func(s *sim.Summary) float64 { return s.MaxJCT })},
	{Name: "avg_queueing_s", Unit: UnitSeconds, Doc: "mean queueing delay", Report: true, Label: "average queueing", Value: summaryOf(func(s *sim.Summary) float64 { return s.AvgQueueing })},
	{Name: "makespan_s", Unit: UnitSeconds, Doc: "last finish", Report: true, Label: "makespan", Value: summaryOf(func(s *sim.Summary) float64 { return s.Makespan })},
	{Name: "restarts", Doc: "re-allocations of all jobs", Count: true, Report: true, Label: "restarts", Value: summaryOf(func(s *sim.Summary) float64 { return float64(s.Restarts) })},
	{Name: "gpu_hours", Unit: "GPU·h", Doc: "GPU time held by jobs", Label: "GPU time", Value: summaryOf(func(s *sim.Summary) float64 { return s.GPUHours })},
	{Name: "utilisation", Unit: UnitFraction, Doc: "gpu_hours over the cluster's GPU time from the first submit to the last finish", Report: true, HigherIsBetter: true, Label: "GPU utilisation", Value: summaryOf(func(s *sim.Summary) float64 { return s.Utilisation })},
	{Name: "avg_fairness_rho", Unit: UnitRatio, Doc: "mean finish-time fairness ρ over the jobs that have one; null when none has", MayBeNull: true, Report: true, Label: "average finish-time fairness ρ", Value: rhoOf(func(s *sim.Summary) float64 { return s.AvgFairness })},
	{Name: "p99_fairness_rho", Unit: UnitRatio, Doc: "99th percentile ρ; null when no job has one", MayBeNull: true, Label: "99th percentile finish-time fairness ρ", Value: rhoOf(func(s *sim.Summary) float64 { return s.P99Fairness })},
	{Name: "max_fairness_rho", Unit: UnitRatio, Doc: "largest ρ; null when no job has one", MayBeNull: true, Report: true, Label: "largest finish-time fairness ρ",
		Value: maxOverJobs(func(j *sim.JobResult) float64 { return j.Fairness }, func(j *sim.JobResult) bool { return j.ExclusiveJCT > 0 })},
	{Name: "frac_rho_above_1", Unit: UnitFraction, Doc: "share of the jobs with a ρ whose ρ > 1; null when none has one", MayBeNull: true, Label: "share of jobs with ρ > 1", Value: rhoOf(func(s *sim.Summary) float64 { return s.FracUnfair })},
	{Name: "avg_fairness_rho_equal_share", Unit: UnitRatio, Doc: "mean equal-share ρ (the paper's definition); null when no job has one", MayBeNull: true, Label: "average equal-share ρ", Value: shareRhoOf(func(s *sim.Summary) float64 { return s.AvgFairnessEqualShare })},
	{Name: "p99_fairness_rho_equal_share", Unit: UnitRatio, Doc: "99th percentile equal-share ρ; null when no job has one", MayBeNull: true, Label: "99th percentile equal-share ρ", Value: shareRhoOf(func(s *sim.Summary) float64 { return s.P99FairnessEqualShare })},
	{Name: "max_fairness_rho_equal_share", Unit: UnitRatio, Doc: "largest equal-share ρ; null when no job has one", MayBeNull: true, Label: "largest equal-share ρ",
		Value: maxOverJobs(func(j *sim.JobResult) float64 { return j.FairnessEqualShare }, func(j *sim.JobResult) bool { return j.EqualShareJCT > 0 })},
	{Name: "frac_rho_equal_share_above_1", Unit: UnitFraction, Doc: "share of the jobs with an equal-share ρ whose ρ > 1; null when none has one", MayBeNull: true, Label: "share of jobs with equal-share ρ > 1", Value: shareRhoOf(func(s *sim.Summary) float64 { return s.FracUnfairEqualShare })},
	{Name: "rounds", Doc: "scheduling rounds with active jobs", Count: true, Label: "scheduling rounds", Value: summaryOf(func(s *sim.Summary) float64 { return float64(s.Rounds) })},
	{Name: "agent_fits", Doc: "θ_sys refits by the jobs' agents", Count: true, Label: "agent refits", Value: summaryOf(func(s *sim.Summary) float64 { return float64(s.AgentFits) })},
	{Name: "policy_round_p50_s", Unit: UnitSeconds, Doc: "median wall time of a policy round; null with --no-timing", Timing: true, Label: "median policy round wall time", Value: summaryOf(func(s *sim.Summary) float64 { return s.PolicyRoundP50 })},
	{Name: "policy_round_p99_s", Unit: UnitSeconds, Doc: "99th percentile wall time of a policy round; null with --no-timing", Timing: true, Label: "99th percentile policy round wall time", Value: summaryOf(func(s *sim.Summary) float64 { return s.PolicyRoundP99 })},
	{Name: "policy_total_s", Unit: UnitSeconds, Doc: "total wall time in the policy; null with --no-timing", Timing: true, Label: "policy wall time", Value: summaryOf(func(s *sim.Summary) float64 { return s.PolicyRoundTotal })},
	{Name: "wall_s", Unit: UnitSeconds, Doc: "wall time of the simulation; null with --no-timing", Timing: true, Label: "simulation wall time", Value: summaryOf(func(s *sim.Summary) float64 { return s.Wall })},
	// An elastic cluster's (zero on a fixed one; cost also on priced node
	// pools); ratios, tables and plots may name them.
	{Name: "node_hours", Unit: "node·h", Doc: "node-hours billed", Optional: true, Label: "node time", Value: summaryOf(func(s *sim.Summary) float64 { return s.NodeHours })},
	{Name: "cost", Unit: "price units", Doc: "node_hours × the price per node-hour", Optional: true, Label: "cost", Value: summaryOf(func(s *sim.Summary) float64 { return s.Cost })},
	// Under failures (sim.Config.Failures; docs/failures.md).
	{Name: "interruptions", Doc: "only in runs with failures (--failures; docs/failures.md): job interruptions by node failures or jobs' own", Count: true, Optional: true, Present: true, Conditional: true, Report: true, Label: "interruptions", Value: faultsOf(func(f *sim.FaultSummary) float64 { return float64(f.Interruptions) })},
	{Name: "gpu_hours_lost", Unit: "GPU·h", Doc: "only in runs with failures: GPU time of work lost to failures (since the jobs' last checkpoints)", Optional: true, Present: true, Conditional: true, Report: true, Label: "GPU time lost to failures", Value: faultsOf(func(f *sim.FaultSummary) float64 { return f.LostGPUHours })},
	{Name: "checkpoint_gpu_hours", Unit: "GPU·h", Doc: "only in runs with failures: GPU time spent writing checkpoints", Optional: true, Present: true, Conditional: true, Label: "GPU time checkpointing", Value: faultsOf(func(f *sim.FaultSummary) float64 { return f.CheckpointGPUHours })},
	{Name: "avg_ettr", Unit: UnitFraction, Doc: "only in runs with failures: mean over jobs of the effective training time ratio (work kept, checkpoints out, over first start to finish)", Optional: true, Present: true, Conditional: true, Report: true, HigherIsBetter: true, Label: "average ETTR", Value: faultsOf(func(f *sim.FaultSummary) float64 { return f.AvgETTR })},
	{Name: "node_availability", Unit: UnitFraction, Doc: "only in runs with failures: share of node time up from the start of the run to its end", Optional: true, Present: true, Conditional: true, HigherIsBetter: true, Label: "node availability", Value: faultsOf(func(f *sim.FaultSummary) float64 { return f.Availability })},
}

// metricFields are results.parquet's metric columns: one per column
// metric of ms and one per Conditional metric (nullable, written only
// where a run has it), in order; counts are integers, timing metrics null
// when not measured, the others null where their Value has none.
func metricFields(ms Metrics) []Field[ResultRow] {
	var fs []Field[ResultRow]
	for _, m := range ms.All() {
		if m.Optional && !m.Conditional {
			continue
		}
		var f Field[ResultRow]
		switch {
		case m.Count && m.Nullable():
			f = I64Null(m.Name, m.Unit, m.Doc, func(r ResultRow) (int64, bool) { v, ok := m.Of(r.Data); return int64(v), ok })
		case m.Count:
			f = I64(m.Name, m.Unit, m.Doc, func(r ResultRow) int64 { v, _ := m.Of(r.Data); return int64(v) })
		case m.Nullable():
			f = F64Null(m.Name, m.Unit, m.Doc, func(r ResultRow) (float64, bool) { return m.Of(r.Data) })
		default:
			f = F64(m.Name, m.Unit, m.Doc, func(r ResultRow) float64 { v, _ := m.Of(r.Data); return v })
		}
		if m.Conditional {
			f = f.When(func(r ResultRow) bool { _, ok := m.Of(r.Data); return ok })
		}
		fs = append(fs, f)
	}
	return fs
}
