package outputs

import (
	"encoding/json"
	"math"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/sim"
)

// runKey identifies the run a row belongs to: the values of the run
// columns every table starts with.
type RunKey struct {
	ID             string
	Experiment     string // "" for a plain run (null)
	Cell           string // "" for a plain run (null)
	Workload       int
	HasWorkload    bool // false for a plain run (null)
	WorkloadSource string
	Policy         string
	Options        string
	Seed           uint64
}

// runIDLen is the number of hex digits of a run_id.
const RunIDLen = 16

// plainRunKey is the identity of a `polluxsim run`: its ID hashes the
// inputs' hash with every setting.
func PlainRunKey(spec runspec.RunSpec, meta RunMeta) RunKey {
	settings, _ := json.Marshal(spec)
	return RunKey{
		ID:             digest.Parts([]byte(meta.InputsHash), settings)[:RunIDLen],
		WorkloadSource: meta.Workload, Policy: spec.Policy, Options: OptionsJSON(spec), Seed: spec.Seed,
	}
}

func OptionsJSON(spec runspec.RunSpec) string {
	b, _ := json.Marshal(spec.Options)
	return string(b)
}

// runCols are the run columns of rows whose run is key(i).
func RunCols(key func(i int) *RunKey) []Column {
	nonEmpty := func(s string) (string, bool) { return s, s != "" }
	return []Column{
		StrCol("run_id", func(i int) string { return key(i).ID }),
		StrNull("experiment", func(i int) (string, bool) { return nonEmpty(key(i).Experiment) }),
		StrNull("cell", func(i int) (string, bool) { return nonEmpty(key(i).Cell) }),
		I64Null("workload", func(i int) (int64, bool) { k := key(i); return int64(k.Workload), k.HasWorkload }),
		StrCol("workload_source", func(i int) string { return key(i).WorkloadSource }),
		StrCol("policy", func(i int) string { return key(i).Policy }),
		StrCol("policy_options", func(i int) string { return key(i).Options }),
		I64Col("seed", func(i int) int64 { return int64(key(i).Seed) }),
	}
}

// jobRow is one row of jobs.parquet.
type JobRow struct {
	Key *RunKey
	Job *sim.JobResult
}

func JobTableCols(rows []JobRow) []Column {
	j := func(i int) *sim.JobResult { return rows[i].Job }
	finite := func(v float64) (float64, bool) { return v, !math.IsNaN(v) && !math.IsInf(v, 0) }
	positive := func(v float64) (float64, bool) { return v, v > 0 }
	ran := func(i int) bool { return j(i).MeanBatch > 0 }
	return append(RunCols(func(i int) *RunKey { return rows[i].Key }),
		StrCol("name", func(i int) string { return j(i).Name }),
		StrCol("application", func(i int) string { return j(i).App }),
		I64Col("request_gpus", func(i int) int64 { return int64(j(i).RequestGPUs) }),
		I64Col("request_batch", func(i int) int64 { return int64(j(i).RequestBatch) }),
		F64Col("submit_s", func(i int) float64 { return j(i).Submit }),
		F64Null("first_start_s", func(i int) (float64, bool) { return finite(j(i).FirstStart) }),
		F64Col("finish_s", func(i int) float64 { return j(i).Finish }),
		F64Col("jct_s", func(i int) float64 { return j(i).JCT }),
		F64Null("queueing_s", func(i int) (float64, bool) { return finite(j(i).Queueing) }),
		I64Col("restarts", func(i int) int64 { return int64(j(i).Restarts) }),
		F64Col("gpu_seconds", func(i int) float64 { return j(i).GPUSeconds }),
		F64Null("mean_batch", func(i int) (float64, bool) { return j(i).MeanBatch, ran(i) }),
		F64Null("mean_efficiency", func(i int) (float64, bool) { return j(i).MeanEfficiency, ran(i) }),
		I64Col("epochs", func(i int) int64 { return int64(j(i).Epochs) }),
		F64Col("contention", func(i int) float64 { return j(i).Contention }),
		F64Null("exclusive_jct_s", func(i int) (float64, bool) { return positive(j(i).ExclusiveJCT) }),
		F64Null("fairness_rho", func(i int) (float64, bool) { return j(i).Fairness, j(i).ExclusiveJCT > 0 }),
		F64Null("equal_share_jct_s", func(i int) (float64, bool) { return positive(j(i).EqualShareJCT) }),
		F64Null("fairness_rho_equal_share", func(i int) (float64, bool) { return j(i).FairnessEqualShare, j(i).EqualShareJCT > 0 }),
	)
}

// roundTableCols are rounds.parquet's columns over the records *rp of the
// run key (a pointer, so that a streaming writer can refill the slice).
func roundTableCols(key *RunKey, rp *[]sim.RoundRecord) []Column {
	r := func(i int) *sim.RoundRecord { return &(*rp)[i] }
	placed := func(i int) bool { return r(i).GPUs > 0 }
	return append(RunCols(func(int) *RunKey { return key }),
		F64Col("time_s", func(i int) float64 { return r(i).Time }),
		F64Col("duration_s", func(i int) float64 { return r(i).Duration }),
		StrCol("name", func(i int) string { return r(i).Job }),
		StrCol("application", func(i int) string { return r(i).App }),
		StrCol("phase", func(i int) string { return r(i).Phase }),
		I64Col("gpus", func(i int) int64 { return int64(r(i).GPUs) }),
		I64Col("nodes", func(i int) int64 { return int64(r(i).Nodes) }),
		I64Null("local_batch", func(i int) (int64, bool) { return int64(r(i).Local), placed(i) }),
		I64Null("accum_steps", func(i int) (int64, bool) { return int64(r(i).Accum), placed(i) }),
		I64Null("batch", func(i int) (int64, bool) { return int64(r(i).Batch), placed(i) }),
		// φ is positive once measured (the profiles' gradient variance is).
		F64Null("pgns", func(i int) (float64, bool) { return r(i).PGNS, r(i).PGNS > 0 }),
		F64Null("efficiency", func(i int) (float64, bool) { return r(i).Efficiency, placed(i) }),
		F64Null("goodput", func(i int) (float64, bool) { return r(i).Goodput, placed(i) }),
		F64Col("progress", func(i int) float64 { return r(i).Progress }),
	)
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

// clusterRow is one row of cluster.parquet.
type ClusterTableRow struct {
	Key   *RunKey
	GPUs  int // GPUs in the cluster
	Round *ClusterRow
}

func ClusterTableCols(rows []ClusterTableRow) []Column {
	c := func(i int) *ClusterRow { return rows[i].Round }
	ptr := func(p *float64) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return *p, true
	}
	return append(RunCols(func(i int) *RunKey { return rows[i].Key }),
		I64Col("round", func(i int) int64 { return int64(c(i).Round) }),
		F64Col("time_s", func(i int) float64 { return c(i).Time }),
		F64Col("duration_s", func(i int) float64 { return c(i).Duration }),
		I64Col("cluster_gpus", func(i int) int64 { return int64(rows[i].GPUs) }),
		I64Col("gpus", func(i int) int64 { return int64(c(i).GPUs) }),
		I64Col("active_jobs", func(i int) int64 { return int64(c(i).Active) }),
		I64Col("pending_jobs", func(i int) int64 { return int64(c(i).Pending) }),
		F64Null("mean_efficiency", func(i int) (float64, bool) { return ptr(c(i).MeanEfficiency) }),
		F64Null("policy_wall_s", func(i int) (float64, bool) { return ptr(c(i).PolicyWall) }),
	)
}
