package outputs

import "github.com/polluxsim/polluxsim/experiments/runspec"

// ResultRow is one row of results.parquet: a sweep's run Key, its
// settings and the numbers of its metrics.
type ResultRow struct {
	Key               *RunKey
	ExperimentVersion int
	// Run is the run's name in the sweep, Label its cell's title.
	Run, Label string
	Load       float64
	Config     string
	Jobs       int
	// Profiles and ProfilesID describe and identify the profiles.
	Profiles, ProfilesID string
	Settings             *runspec.RunSpec
	ClusterGPUs          int
	// Data is the run's results, which its metrics are computed from
	// (Data.NoTiming: wall-clock metrics were not measured, null).
	Data    *RunData
	Version string
}

// ResultsTable declares results.parquet with the built-in metrics (see
// ResultsTableFor).
var ResultsTable = ResultsTableFor(BuiltinMetrics())

// ResultsTableFor declares results.parquet: the run columns, the
// settings, a column per column metric of ms (Metrics.Columns), the
// version.
func ResultsTableFor(ms Metrics) *Table[ResultRow] {
	return &Table[ResultRow]{File: "results.parquet", Where: "sweep", Doc: "one row per run: settings and metrics", Fields: withRun(func(r ResultRow) *RunKey { return r.Key },
		append(append([]Field[ResultRow]{
			I64("experiment_version", "", "version of the experiment spec", func(r ResultRow) int64 { return int64(r.ExperimentVersion) }),
			Str("run", "", "the run's name in the sweep (its file under cells/)", func(r ResultRow) string { return r.Run }),
			Str("label", "", "the cell's title", func(r ResultRow) string { return r.Label }),
			F64("load", "× 160 jobs", "load factor of the cell's workloads", func(r ResultRow) float64 { return r.Load }),
			Str("config", "", "user configurations: tuned or realistic", func(r ResultRow) string { return r.Config }),
			I64("jobs", "jobs", "jobs in the workload", func(r ResultRow) int64 { return int64(r.Jobs) }),
			Str("profiles", "", "the profiles' description", func(r ResultRow) string { return r.Profiles }),
			Str("profiles_id", "", "identity of the profiles (a name or a digest)", func(r ResultRow) string { return r.ProfilesID }),
			F64("interval_s", "s", "scheduling interval", func(r ResultRow) float64 { return r.Settings.Interval }),
			F64("restart_delay_s", "s", "restart delay after a placement change", func(r ResultRow) float64 { return r.Settings.RestartDelay }),
			F64("interference", "fraction", "slowdown of multi-node jobs sharing a node", func(r ResultRow) float64 { return r.Settings.Interference }),
			Bool("offline_priors", "", "agents seeded with offline-fitted θ_sys", func(r ResultRow) bool { return r.Settings.OfflinePriors }),
			Bool("offline_priors_scale_out", "", "seeded agents may scale out from their first round (see docs/fidelity.md)", func(r ResultRow) bool { return r.Settings.OfflinePriorsScaleOut }),
			Str("calibration", "", "calibration to a physical cluster (--calibration), empty for none", func(r ResultRow) string { return r.Settings.Calibration }),
			Str("cluster", "", "the cluster: its node pools TYPE:NODESxGPUS[@PRICE],... as --cluster gives them, or NODESxGPUS for --nodes × --gpus-per-node (t4 GPUs); an elastic cluster's initial size", func(r ResultRow) string { return r.Settings.ClusterSpec() }),
			I64("cluster_gpus", "GPUs", "GPUs in the cluster (an elastic cluster's initial size)", func(r ResultRow) int64 { return int64(r.ClusterGPUs) }),
			I64("nodes", "nodes", "nodes in the cluster, every pool's", func(r ResultRow) int64 { return int64(r.Settings.Nodes) }),
			I64Null("gpus_per_node", "GPUs", "GPUs of every node; null when the pools' nodes differ in size", func(r ResultRow) (int64, bool) {
				n, ok := r.Settings.UniformNodeGPUs()
				return int64(n), ok
			}),
			Bool("step", "", "reference-compatible time stepping", func(r ResultRow) bool { return r.Settings.Step }),
		}, metricFields(ms)...),
			Str("polluxsim_version", "", "the polluxsim version that made the run", func(r ResultRow) string { return r.Version }),
		)...,
	)}
}

// AppRow is one row of apps.parquet: an application's jobs in the run Key.
type AppRow struct {
	Key    *RunKey
	App    string
	Jobs   int
	AvgJCT float64
}

// AppsTable declares apps.parquet.
var AppsTable = &Table[AppRow]{File: "apps.parquet", Where: "sweep", Doc: "one row per run and application: per-application metrics", Fields: withRun(func(r AppRow) *RunKey { return r.Key },
	Str("application", "", "an application with at least one job in the run (absent applications have no row)", func(r AppRow) string { return r.App }),
	I64("jobs", "jobs", "the application's jobs in the run", func(r AppRow) int64 { return int64(r.Jobs) }),
	F64("avg_jct_s", "s", "their mean JCT", func(r AppRow) float64 { return r.AvgJCT }),
)}
