package outputs

import (
	"fmt"
	"strings"
)

// SchemaVersion is the version of the output tables' schema (Tables). It
// changes whenever a table gains, loses or renames a column or changes a
// column's type or nullability; each Parquet file records it as the
// key-value metadata polluxsim.schema_version.
const SchemaVersion = 2

// SQL type names of output columns, as DuckDB reports them.
const (
	TypeString = "VARCHAR"
	TypeInt    = "BIGINT"
	TypeFloat  = "DOUBLE"
	TypeBool   = "BOOLEAN"
)

// ColumnDoc documents one column of an output table.
type ColumnDoc struct {
	Name string
	// Type is TypeString, TypeInt, TypeFloat or TypeBool.
	Type string
	// Nullable columns hold null where the value does not apply or was not
	// measured; the others never do.
	Nullable bool
	// Unit is the column's unit ("" for identifiers and plain counts); it is
	// also stored as the Arrow field metadata "unit".
	Unit string
	Doc  string
}

// TableDoc documents one output table.
type TableDoc struct {
	File string
	// Where says which command writes it: "run", "sweep" or "run, sweep".
	Where   string
	Doc     string
	Columns []ColumnDoc
}

// Column returns the documented column called name.
func (t *TableDoc) Column(name string) (ColumnDoc, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return ColumnDoc{}, false
}

// runColumns start every table: which run a row belongs to.
var runColumns = []ColumnDoc{
	{"run_id", TypeString, false, "", "the run's identity: 16 hex digits of a SHA-256 over its inputs (workload as simulated, profiles, polluxsim version) and every setting (policy, its effective options, seed, cluster, interval, ...; in a sweep also the experiment, its version and the run's name)"},
	{"experiment", TypeString, true, "", "the sweep's experiment; null for `polluxsim run`"},
	{"cell", TypeString, true, "", "the sweep's cell; null for `polluxsim run`"},
	{"workload", TypeInt, true, "", "the sweep's workload number; null for `polluxsim run`"},
	{"workload_source", TypeString, false, "", "where the workload came from (file, embedded reference workload, generator and its seed)"},
	{"policy", TypeString, false, "", "the scheduling policy"},
	{"policy_options", TypeString, false, "", "the policy's effective options as one JSON object (every option of that policy, none of another's)"},
	{"seed", TypeInt, false, "", "seed of the policy's search"},
}

// jobColumns are jobs.parquet's columns after the run columns.
var jobColumns = []ColumnDoc{
	{"name", TypeString, false, "", "the job's name (the workload's `name` column)"},
	{"application", TypeString, false, "", "the job's model/application"},
	{"request_gpus", TypeInt, false, "GPUs", "GPUs the user asked for"},
	{"request_batch", TypeInt, false, "samples", "total batch size the user asked for"},
	{"submit_s", TypeFloat, false, "s", "submission time from the trace start"},
	{"first_start_s", TypeFloat, true, "s", "first allocation; null if the job never started"},
	{"finish_s", TypeFloat, false, "s", "completion time"},
	{"jct_s", TypeFloat, false, "s", "job completion time, finish − submit"},
	{"queueing_s", TypeFloat, true, "s", "first start − submit; null if the job never started"},
	{"restarts", TypeInt, false, "", "re-allocations after the first start"},
	{"gpu_seconds", TypeFloat, false, "GPU·s", "attained service: GPU-seconds held, restarts included"},
	{"mean_batch", TypeFloat, true, "samples", "total batch, time-weighted over running time; null if the job never ran"},
	{"mean_efficiency", TypeFloat, true, "fraction (0–1]", "statistical efficiency relative to the initial batch, time-weighted over running time; null if the job never ran"},
	{"epochs", TypeInt, false, "", "epochs completed"},
	{"contention", TypeFloat, false, "jobs", "average number of active jobs over the job's life (N of finish-time fairness)"},
	{"exclusive_jct_s", TypeFloat, true, "s", "run time alone on a 1/N share of the cluster; null where it cannot be computed"},
	{"fairness_rho", TypeFloat, true, "ratio", "finish-time fairness ρ = jct_s / exclusive_jct_s; null with exclusive_jct_s"},
	{"equal_share_jct_s", TypeFloat, true, "s", "run time in an isolated, equally partitioned cluster (Themis, the paper's definition): exactly total GPUs / contention of GPU time, fractions included; null where it cannot be computed"},
	{"fairness_rho_equal_share", TypeFloat, true, "ratio", "the paper's finish-time fairness ρ = jct_s / equal_share_jct_s; null with equal_share_jct_s"},
}

// roundColumns are rounds.parquet's columns after the run columns.
var roundColumns = []ColumnDoc{
	{"time_s", TypeFloat, false, "s", "time of the scheduling round"},
	{"duration_s", TypeFloat, false, "s", "until the next round or the job's finish, whichever comes first: a job's rows sum to finish − its first round"},
	{"name", TypeString, false, "", "the job's name (as in jobs.parquet)"},
	{"application", TypeString, false, "", "the job's model/application"},
	{"phase", TypeString, false, "", "pending, restarting or running, after the round"},
	{"gpus", TypeInt, false, "GPUs", "GPUs allocated (0 when pending)"},
	{"nodes", TypeInt, false, "nodes", "nodes the allocation spans (0 when pending)"},
	{"local_batch", TypeInt, true, "samples", "per-GPU batch; null when pending"},
	{"accum_steps", TypeInt, true, "", "gradient accumulation steps per update; null when pending"},
	{"batch", TypeInt, true, "samples", "total batch = local_batch × gpus × (accum_steps + 1); null when pending"},
	{"pgns", TypeFloat, true, "samples", "gradient noise scale φ the job's agent has measured; null before its first measurement"},
	{"efficiency", TypeFloat, true, "fraction (0–1]", "true statistical efficiency at `batch`; null when pending"},
	{"goodput", TypeFloat, true, "samples/s", "true goodput at the chosen configuration (throughput × efficiency, interference included); null when pending"},
	{"progress", TypeFloat, false, "fraction (0–1)", "fraction of the job's training target reached"},
}

// clusterColumns are cluster.parquet's columns after the run columns.
var clusterColumns = []ColumnDoc{
	{"round", TypeInt, false, "", "scheduling round number: time_s = round × interval"},
	{"time_s", TypeFloat, false, "s", "time of the round"},
	{"duration_s", TypeFloat, false, "s", "until the next round (the last one: until the last job's finish); the rows sum to the makespan"},
	{"cluster_gpus", TypeInt, false, "GPUs", "GPUs in the cluster"},
	{"gpus", TypeInt, false, "GPUs", "GPUs allocated after the round"},
	{"active_jobs", TypeInt, false, "jobs", "submitted, unfinished jobs (0 in an idle round)"},
	{"pending_jobs", TypeInt, false, "jobs", "active jobs without GPUs after the round"},
	{"mean_efficiency", TypeFloat, true, "fraction (0–1]", "mean true statistical efficiency of the jobs holding GPUs; null when none does"},
	{"policy_wall_s", TypeFloat, true, "s", "wall-clock time the policy took; null in idle rounds (no call) and with --no-timing"},
}

// resultSettings are results.parquet's columns after the run columns and
// before the metrics (metricColumns), which resultVersion follows.
var resultSettings = []ColumnDoc{
	{"experiment_version", TypeInt, false, "", "version of the experiment spec"},
	{"run", TypeString, false, "", "the run's name in the sweep (its file under cells/)"},
	{"label", TypeString, false, "", "the cell's title"},
	{"load", TypeFloat, false, "× 160 jobs", "load factor of the cell's workloads"},
	{"config", TypeString, false, "", "user configurations: tuned or realistic"},
	{"jobs", TypeInt, false, "jobs", "jobs in the workload"},
	{"profiles", TypeString, false, "", "the profiles' description"},
	{"profiles_id", TypeString, false, "", "identity of the profiles (a name or a digest)"},
	{"interval_s", TypeFloat, false, "s", "scheduling interval"},
	{"restart_delay_s", TypeFloat, false, "s", "restart delay after a placement change"},
	{"interference", TypeFloat, false, "fraction", "slowdown of multi-node jobs sharing a node"},
	{"offline_priors", TypeBool, false, "", "agents seeded with offline-fitted θ_sys"},
	{"offline_priors_scale_out", TypeBool, false, "", "seeded agents may scale out from their first round (see docs/fidelity.md)"},
	{"calibration", TypeString, false, "", "calibration to a physical cluster (--calibration), empty for none"},
	{"nodes", TypeInt, false, "nodes", "nodes in the cluster"},
	{"gpus_per_node", TypeInt, false, "GPUs", "GPUs per node"},
	{"step", TypeBool, false, "", "reference-compatible time stepping"},
}

var resultVersion = []ColumnDoc{
	{"polluxsim_version", TypeString, false, "", "the polluxsim version that made the run"},
}

// resultColumns are results.parquet's columns after the run columns.
func resultColumns() []ColumnDoc {
	return append(append(append([]ColumnDoc(nil), resultSettings...), metricColumns()...), resultVersion...)
}

// nodeColumns are nodes.parquet's columns after the run columns.
var nodeColumns = []ColumnDoc{
	{"time_s", TypeFloat, false, "s", "time of the scheduling round"},
	{"ready_nodes", TypeInt, false, "nodes", "nodes ready and offered to the policy"},
	{"provisioning_nodes", TypeInt, false, "nodes", "nodes ordered but not ready yet (billed, not offered)"},
	{"node_hours", TypeFloat, false, "node·h", "node-hours billed so far"},
	{"cost", TypeFloat, false, "price units", "node_hours × the price per node-hour"},
}

// appColumns are apps.parquet's columns after the run columns.
var appColumns = []ColumnDoc{
	{"application", TypeString, false, "", "an application with at least one job in the run (absent applications have no row)"},
	{"jobs", TypeInt, false, "jobs", "the application's jobs in the run"},
	{"avg_jct_s", TypeFloat, false, "s", "their mean JCT"},
}

func withRun(cols []ColumnDoc) []ColumnDoc {
	return append(append([]ColumnDoc(nil), runColumns...), cols...)
}

// Tables documents every output table, in documentation order.
var Tables = []TableDoc{
	{"jobs.parquet", "run, sweep", "one row per job", withRun(jobColumns)},
	{"rounds.parquet", "run, sweep --job-rounds", "one row per active job per scheduling round", withRun(roundColumns)},
	{"cluster.parquet", "run, sweep", "one row per scheduling round, idle rounds included, from time 0 to the makespan", withRun(clusterColumns)},
	{"nodes.parquet", "run (elastic clusters only)", "one row per scheduling round of an elastic cluster: its nodes and the bill so far", withRun(nodeColumns)},
	{"results.parquet", "sweep", "one row per run: settings and metrics", withRun(resultColumns())},
	{"apps.parquet", "sweep", "one row per run and application: per-application metrics", withRun(appColumns)},
}

// Table returns the documentation of the table in file.
func Table(file string) *TableDoc {
	for i := range Tables {
		if Tables[i].File == file {
			return &Tables[i]
		}
	}
	panic("experiments: no table " + file) // a programming error: file names are constants
}

// SchemaMarkdown renders Tables as Markdown, one section per table.
func SchemaMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Schema version %d.\n", SchemaVersion)
	for _, t := range Tables {
		fmt.Fprintf(&b, "\n### %s\n\n%s; written by %s.\n\n", t.File, capitalise(t.Doc), t.Where)
		b.WriteString("| column | type | null | unit | meaning |\n|---|---|---|---|---|\n")
		for _, c := range t.Columns {
			null := "no"
			if c.Nullable {
				null = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", c.Name, c.Type, null, c.Unit, c.Doc)
		}
	}
	return b.String()
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
