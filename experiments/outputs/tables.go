package outputs

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// RunKey identifies the run a row belongs to: the values of the run
// columns every table starts with.
type RunKey struct {
	ID             string
	Experiment     string // "" for a plain run (null)
	Cell           string // "" for a plain run (null)
	Workload       int
	HasWorkload    bool // false for a plain run of another source than paper:N (null)
	WorkloadSource string
	WorkloadDigest string
	Policy         string
	// PolicyName is the name the policy reports of itself (an external
	// policy's child's), Policy for the others.
	PolicyName string
	Options    string
	Seed       uint64
}

// PlainRunKey is the identity of a `polluxsim run`: its ID is the run_id
// of PlainRunIdentity, over the inputs' hash and every setting. The
// workload number of a reference workload (paper:N, paper-realistic:N) is
// N, as in a sweep.
func PlainRunKey(spec runspec.RunSpec, meta RunMeta) RunKey {
	n, isPaper := PaperNumber(meta.Workload)
	return RunKey{
		ID:       RunID(RunHash(PlainRunIdentity, Identity{InputsHash: meta.InputsHash, Settings: spec, PolicyCode: meta.PolicyCode, FaultLog: spec.FaultLog()})),
		Workload: n, HasWorkload: isPaper, WorkloadSource: meta.Workload, WorkloadDigest: meta.WorkloadDigest,
		Policy: spec.Policy, PolicyName: PolicyName(spec.Policy, meta.PolicyName), Options: OptionsJSON(spec), Seed: spec.Seed,
	}
}

// PolicyName is the policy_name of a run of policy whose policy reported
// the name reported ("" for none): reported, or the policy.
func PolicyName(policy, reported string) string {
	if reported == "" {
		return policy
	}
	return reported
}

// PaperNumber is N of a reference workload's canonical source (paper:N,
// paper-realistic:N).
func PaperNumber(source string) (int, bool) {
	if !traces.IsPaperName(source) {
		return 0, false
	}
	_, num, _ := strings.Cut(source, ":")
	n, err := strconv.Atoi(num)
	return n, err == nil
}

// OptionsJSON is the policy_options column of a run of spec: its
// effective options as one JSON object.
func OptionsJSON(spec runspec.RunSpec) string {
	b, _ := json.Marshal(spec.Options)
	return string(b)
}

// runFields start every table: which run a row belongs to.
var runFields = []Field[*RunKey]{
	Str("run_id", "", "the run's identity: 16 hex digits of a SHA-256 over its inputs (workload as simulated, profiles, polluxsim version) and every setting (policy, its effective options, seed, cluster, interval, ...; in a sweep also the experiment, its version and the run's name); for an external policy also the content of the script files its command names", func(k *RunKey) string { return k.ID }),
	StrNull("experiment", "", "the sweep's experiment; null for `polluxsim run`", func(k *RunKey) (string, bool) { return nonEmpty(k.Experiment) }),
	StrNull("cell", "", "the sweep's cell; null for `polluxsim run`", func(k *RunKey) (string, bool) { return nonEmpty(k.Cell) }),
	I64Null("workload", "", "the workload's number: the sweep's, or N of a run's paper:N / paper-realistic:N; null for other runs", func(k *RunKey) (int64, bool) { return int64(k.Workload), k.HasWorkload }),
	Str("workload_source", "", "where the workload came from, the same in runs and sweeps: paper:N / paper-realistic:N for the embedded reference workloads, a file (as given to run; in a sweep relative to --workloads), a generator and its seed", func(k *RunKey) string { return k.WorkloadSource }),
	Str("workload_digest", "", "the workload's content: 16 hex digits of the SHA-256 of the workload as simulated, in the workload CSV format; equal for the same jobs whatever the source", func(k *RunKey) string { return k.WorkloadDigest }),
	Str("policy", "", "the scheduling policy", func(k *RunKey) string { return k.Policy }),
	Str("policy_name", "", "the name the policy reports of itself: an external policy's, from its handshake (the policy column says external), a remote policy's, the service's policy (the policy column says remote); the policy column's for the others", func(k *RunKey) string { return k.PolicyName }),
	Str("policy_options", "", "the policy's effective options as one JSON object (every option of that policy, none of another's)", func(k *RunKey) string { return k.Options }),
	I64("seed", "", "seed of the policy's search", func(k *RunKey) int64 { return int64(k.Seed) }),
}

// RunColumns is the number of run columns every table starts with.
func RunColumns() int { return len(runFields) }

func nonEmpty(s string) (string, bool) { return s, s != "" }

// withRun is a table's fields: the run columns of the row's run key(r),
// then fields.
func withRun[R any](key func(R) *RunKey, fields ...Field[R]) []Field[R] {
	out := make([]Field[R], 0, len(runFields)+len(fields))
	for _, f := range runFields {
		out = append(out, Lift(f, key))
	}
	return append(out, fields...)
}

// JobRow is one row of jobs.parquet: a job of the run Key.
type JobRow struct {
	Key *RunKey
	Job *sim.JobResult
}

func finite(v float64) (float64, bool)   { return v, !math.IsNaN(v) && !math.IsInf(v, 0) }
func positive(v float64) (float64, bool) { return v, v > 0 }

// JobsTable declares jobs.parquet.
var JobsTable = &Table[JobRow]{File: "jobs.parquet", Where: "run, sweep", Doc: "one row per job", Fields: withRun(func(r JobRow) *RunKey { return r.Key },
	Str("name", "", "the job's name (the workload's `name` column)", func(r JobRow) string { return r.Job.Name }),
	Str("application", "", "the job's model/application", func(r JobRow) string { return r.Job.App }),
	I64("request_gpus", "GPUs", "GPUs the user asked for", func(r JobRow) int64 { return int64(r.Job.RequestGPUs) }),
	I64("request_batch", "samples", "total batch size the user asked for", func(r JobRow) int64 { return int64(r.Job.RequestBatch) }),
	F64("submit_s", "s", "submission time from the trace start", func(r JobRow) float64 { return r.Job.Submit }),
	F64Null("first_start_s", "s", "first allocation; null if the job never started", func(r JobRow) (float64, bool) { return started(r, r.Job.FirstStart) }),
	F64("finish_s", "s", "completion time", func(r JobRow) float64 { return r.Job.Finish }),
	F64("jct_s", "s", "job completion time, finish − submit", func(r JobRow) float64 { return r.Job.JCT }),
	F64Null("queueing_s", "s", "first start − submit; null if the job never started", func(r JobRow) (float64, bool) { return started(r, r.Job.Queueing) }),
	I64("restarts", "", "re-allocations after the first start", func(r JobRow) int64 { return int64(r.Job.Restarts) }),
	F64("gpu_hours", "GPU·h", "attained service: GPU time held, restarts included (gpu_seconds before schema 3)", func(r JobRow) float64 { return r.Job.GPUSeconds / 3600 }),
	F64Null("avg_batch", "samples", "total batch, time-weighted over running time; null if the job never ran", func(r JobRow) (float64, bool) { return r.Job.MeanBatch, r.Job.MeanBatch > 0 }),
	F64Null("avg_efficiency", "fraction (0–1]", "statistical efficiency relative to the initial batch, time-weighted over running time; null if the job never ran", func(r JobRow) (float64, bool) { return r.Job.MeanEfficiency, r.Job.MeanBatch > 0 }),
	I64("epochs", "", "epochs completed", func(r JobRow) int64 { return int64(r.Job.Epochs) }),
	F64("contention", "jobs", "average number of active jobs over the job's life (N of finish-time fairness)", func(r JobRow) float64 { return r.Job.Contention }),
	F64Null("exclusive_jct_s", "s", "run time alone on a 1/N share of the cluster; null where it cannot be computed", func(r JobRow) (float64, bool) { return positive(r.Job.ExclusiveJCT) }),
	F64Null("fairness_rho", "ratio", "finish-time fairness ρ = jct_s / exclusive_jct_s; null with exclusive_jct_s", func(r JobRow) (float64, bool) { return r.Job.Fairness, r.Job.ExclusiveJCT > 0 }),
	F64Null("equal_share_jct_s", "s", "run time in an isolated, equally partitioned cluster (Themis, the paper's definition): exactly total GPUs / contention of GPU time, fractions included; null where it cannot be computed", func(r JobRow) (float64, bool) { return positive(r.Job.EqualShareJCT) }),
	F64Null("fairness_rho_equal_share", "ratio", "the paper's finish-time fairness ρ = jct_s / equal_share_jct_s; null with equal_share_jct_s", func(r JobRow) (float64, bool) { return r.Job.FairnessEqualShare, r.Job.EqualShareJCT > 0 }),
	F64Null("deadline_s", "s", "only in tables with a job with a deadline or a declined job: the time the job was to finish by (submit_s + the workload's deadline); null for a best-effort job (docs/deadlines.md)", func(r JobRow) (float64, bool) { return positive(r.Job.Deadline) }).When(hasDeadlineOrDecline),
	Str("state", "", "only in tables with a job with a deadline or a declined job: done (ran to completion) or declined (by the policy's admission control, never ran; its finish_s is its submission, jct_s 0)", jobState).When(hasDeadlineOrDecline),
	StrNull("declined_reason", "", "only in tables with a declined job: why the policy declined the job; null for a job that ran", func(r JobRow) (string, bool) { return nonEmpty(r.Job.Declined) }).When(func(r JobRow) bool { return r.Job.Declined != "" }),
	I64Null("interruptions", "", "only in tables of runs with failures (--failures): times the job lost its GPUs to a node failure or a failure of its own (docs/failures.md); their sum is summary.json's interruptions; null for a run without failures in a table that has some", func(r JobRow) (int64, bool) {
		return jobFaultsOf(r, func(f *sim.JobFaults) int64 { return int64(f.Interruptions) })
	}).When(hasFaults),
	F64Null("lost_gpu_hours", "GPU·h", "only in tables of runs with failures: GPU time of work lost to failures (since the job's last checkpoints, redone); null as interruptions", func(r JobRow) (float64, bool) {
		return jobFaultsOf(r, func(f *sim.JobFaults) float64 { return f.LostGPUSeconds / 3600 })
	}).When(hasFaults),
	F64Null("checkpoint_gpu_hours", "GPU·h", "only in tables of runs with failures: GPU time spent writing checkpoints; null as interruptions", func(r JobRow) (float64, bool) {
		return jobFaultsOf(r, func(f *sim.JobFaults) float64 { return f.CheckpointGPUSeconds / 3600 })
	}).When(hasFaults),
	F64Null("ettr", "fraction [0–1]", "only in tables of runs with failures: effective training time ratio, running time whose work was kept, checkpoints out, over first start to finish; null for a job that never ran and as interruptions", func(r JobRow) (float64, bool) {
		if r.Job.Declined != "" || !(r.Job.Finish > r.Job.FirstStart) {
			return 0, false
		}
		return jobFaultsOf(r, func(f *sim.JobFaults) float64 { return f.ETTR })
	}).When(hasFaults),
)}

// Job states of jobs.parquet's state column.
const (
	JobStateDone     = "done"
	JobStateDeclined = "declined"
)

// started is v for a job that started, none for one that never did (a
// declined job, or a NaN).
func started(r JobRow, v float64) (float64, bool) {
	if r.Job.Declined != "" {
		return 0, false
	}
	return finite(v)
}

func jobState(r JobRow) string {
	if r.Job.Declined != "" {
		return JobStateDeclined
	}
	return JobStateDone
}

// hasDeadlineOrDecline: the row's job has a deadline or was declined, the
// runs whose jobs tables have the deadline and state columns.
func hasDeadlineOrDecline(r JobRow) bool { return r.Job.Deadline > 0 || r.Job.Declined != "" }

// hasFaults: the row's job ran under a fault model, the runs whose jobs
// tables have the failure columns.
func hasFaults(r JobRow) bool { return r.Job.Faults != nil }

// jobFaultsOf is a figure of the row's job under failures; none for a job
// of a run without (a row of another run in a sweep's table).
func jobFaultsOf[T any](r JobRow, get func(f *sim.JobFaults) T) (T, bool) {
	if r.Job.Faults == nil {
		var zero T
		return zero, false
	}
	return get(r.Job.Faults), true
}

// RoundRow is one row of rounds.parquet: a job's record in a scheduling
// round of the run Key.
type RoundRow struct {
	Key *RunKey
	Rec *sim.RoundRecord
}

// gpuType names the GPU type t of a record: DefaultType on a cluster
// without pools (where the engine records none).
func gpuType(t string) string {
	if t == "" {
		return policies.DefaultType
	}
	return t
}

// placed: the job holds GPUs after the round.
func (r RoundRow) placed() bool { return r.Rec.GPUs > 0 }

// RoundsTable declares rounds.parquet.
var RoundsTable = &Table[RoundRow]{File: "rounds.parquet", Where: "run, sweep --job-rounds", Doc: "one row per active job per scheduling round", Fields: withRun(func(r RoundRow) *RunKey { return r.Key },
	F64("time_s", "s", "time of the scheduling round", func(r RoundRow) float64 { return r.Rec.Time }),
	F64("duration_s", "s", "until the next round or the job's finish, whichever comes first: a job's rows sum to finish − its first round", func(r RoundRow) float64 { return r.Rec.Duration }),
	Str("name", "", "the job's name (as in jobs.parquet)", func(r RoundRow) string { return r.Rec.Job }),
	Str("application", "", "the job's model/application", func(r RoundRow) string { return r.Rec.App }),
	Str("phase", "", "pending, restarting or running, after the round", func(r RoundRow) string { return r.Rec.Phase }),
	I64("gpus", "GPUs", "GPUs allocated (0 when pending)", func(r RoundRow) int64 { return int64(r.Rec.GPUs) }),
	I64("nodes", "nodes", "nodes the allocation spans (0 when pending)", func(r RoundRow) int64 { return int64(r.Rec.Nodes) }),
	StrNull("gpu_type", "", "the GPU type the job holds (t4 on a cluster without pools); null when pending", func(r RoundRow) (string, bool) { return gpuType(r.Rec.Type), r.placed() }),
	I64Null("local_batch", "samples", "per-GPU batch; null when pending", func(r RoundRow) (int64, bool) { return int64(r.Rec.Local), r.placed() }),
	I64Null("accum_steps", "", "gradient accumulation steps per update; null when pending", func(r RoundRow) (int64, bool) { return int64(r.Rec.Accum), r.placed() }),
	I64Null("batch", "samples", "total batch = local_batch × gpus × (accum_steps + 1); null when pending", func(r RoundRow) (int64, bool) { return int64(r.Rec.Batch), r.placed() }),
	// φ is positive once measured (the profiles' gradient variance is).
	F64Null("pgns", "samples", "gradient noise scale φ the job's agent has measured; null before its first measurement", func(r RoundRow) (float64, bool) { return r.Rec.PGNS, r.Rec.PGNS > 0 }),
	F64Null("efficiency", "fraction (0–1]", "true statistical efficiency at `batch`; null when pending", func(r RoundRow) (float64, bool) { return r.Rec.Efficiency, r.placed() }),
	F64Null("goodput", "samples/s", "true goodput at the chosen configuration (throughput × efficiency, interference included); null when pending", func(r RoundRow) (float64, bool) { return r.Rec.Goodput, r.placed() }),
	F64("progress", "fraction (0–1)", "fraction of the job's training target reached", func(r RoundRow) float64 { return r.Rec.Progress }),
)}

// roundRows are the rows of the records *rp of the run key (a pointer, so
// that a streaming writer can refill the slice).
func roundRows(key *RunKey, rp *[]sim.RoundRecord) func(i int) RoundRow {
	return func(i int) RoundRow { return RoundRow{key, &(*rp)[i]} }
}

// ClusterRow is the cluster's state in one scheduling round (a row of
// cluster.parquet); null values are nil.
type ClusterRow struct {
	Round          int      `json:"round"`
	Time           float64  `json:"time_s"`
	Duration       float64  `json:"duration_s"`
	GPUs           int      `json:"gpus"`
	Active         int      `json:"active_jobs"`
	Pending        int      `json:"pending_jobs"`
	MeanEfficiency *float64 `json:"mean_efficiency,omitempty"`
	PolicyWall     *float64 `json:"policy_wall_s,omitempty"`
	// NodesDown is the number of nodes down at the round under failures;
	// nil in a run without.
	NodesDown *int `json:"nodes_down,omitempty"`
}

// clusterRows lists every scheduling round from time 0 to the last one,
// idle rounds (no active job, no policy call) included, each lasting until
// the next (the last until the makespan).
func ClusterRows(res *sim.Result, noTiming bool) []ClusterRow {
	iv := res.Config.Interval
	if !(iv > 0) || len(res.RoundStats) == 0 {
		return nil
	}
	makespan := res.Summary.Makespan
	last := int(math.Round(res.RoundStats[len(res.RoundStats)-1].Time / iv))
	rows := make([]ClusterRow, 0, last+1)
	k := 0
	for n := 0; n <= last; n++ {
		row := ClusterRow{Round: n, Time: iv * float64(n)}
		for k < len(res.RoundStats) && int(math.Round(res.RoundStats[k].Time/iv)) < n {
			k++
		}
		if k < len(res.RoundStats) && int(math.Round(res.RoundStats[k].Time/iv)) == n {
			rs := res.RoundStats[k]
			row.Time, row.GPUs, row.Active, row.Pending = rs.Time, rs.GPUs, rs.Active, rs.Pending
			if !noTiming {
				w := rs.PolicySeconds
				row.PolicyWall = &w
			}
			if rs.Running > 0 {
				m := rs.Efficiency
				row.MeanEfficiency = &m
			}
		}
		if n, ok := res.DownAt(row.Time); ok {
			row.NodesDown = &n
		}
		rows = append(rows, row)
	}
	for i := range rows {
		end := makespan
		if i+1 < len(rows) {
			end = rows[i+1].Time
		}
		rows[i].Duration = math.Max(end-rows[i].Time, 0)
	}
	return rows
}

// ClusterTableRow is one row of cluster.parquet: a round of the run Key on
// a cluster of GPUs GPUs.
type ClusterTableRow struct {
	Key   *RunKey
	GPUs  int // GPUs in the cluster
	Round *ClusterRow
}

func ptr(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// ClusterTable declares cluster.parquet.
var ClusterTable = &Table[ClusterTableRow]{File: "cluster.parquet", Where: "run, sweep", Doc: "one row per scheduling round, idle rounds included, from time 0 to the makespan", Fields: withRun(func(r ClusterTableRow) *RunKey { return r.Key },
	I64("round", "", "scheduling round number: time_s = round × interval", func(r ClusterTableRow) int64 { return int64(r.Round.Round) }),
	F64("time_s", "s", "time of the round", func(r ClusterTableRow) float64 { return r.Round.Time }),
	F64("duration_s", "s", "until the next round (the last one: until the last job's finish); the rows sum to the makespan", func(r ClusterTableRow) float64 { return r.Round.Duration }),
	I64("cluster_gpus", "GPUs", "GPUs in the cluster", func(r ClusterTableRow) int64 { return int64(r.GPUs) }),
	I64("gpus", "GPUs", "GPUs allocated after the round", func(r ClusterTableRow) int64 { return int64(r.Round.GPUs) }),
	I64("active_jobs", "jobs", "submitted, unfinished jobs (0 in an idle round)", func(r ClusterTableRow) int64 { return int64(r.Round.Active) }),
	I64("pending_jobs", "jobs", "active jobs without GPUs after the round", func(r ClusterTableRow) int64 { return int64(r.Round.Pending) }),
	F64Null("avg_efficiency", "fraction (0–1]", "mean true statistical efficiency of the jobs holding GPUs; null when none does", func(r ClusterTableRow) (float64, bool) { return ptr(r.Round.MeanEfficiency) }),
	F64Null("policy_wall_s", "s", "wall-clock time the policy took; null in idle rounds (no call) and with --no-timing", func(r ClusterTableRow) (float64, bool) { return ptr(r.Round.PolicyWall) }),
	I64Null("nodes_down", "nodes", "only in tables of runs with failures (--failures; docs/failures.md): nodes down at the round (the faults of that instant included), idle rounds too; null for a run without failures in a table that has some", func(r ClusterTableRow) (int64, bool) {
		if r.Round.NodesDown == nil {
			return 0, false
		}
		return int64(*r.Round.NodesDown), true
	}).When(func(r ClusterTableRow) bool { return r.Round.NodesDown != nil }),
)}
