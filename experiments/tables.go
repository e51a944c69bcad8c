package experiments

import (
	"encoding/json"
	"math"

	"github.com/polluxsim/polluxsim/sim"
)

// runKey identifies the run a row belongs to: the values of the run
// columns every table starts with.
type runKey struct {
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
const runIDLen = 16

// plainRunKey is the identity of a `polluxsim run`: its ID hashes the
// inputs' hash with every setting.
func plainRunKey(spec RunSpec, meta RunMeta) runKey {
	settings, _ := json.Marshal(spec)
	return runKey{
		ID:             HashInputs([]byte(meta.InputsHash), settings)[:runIDLen],
		WorkloadSource: meta.Workload, Policy: spec.Policy, Options: optionsJSON(spec), Seed: spec.Seed,
	}
}

// sweepRunKey is the identity of a sweep's stored run: its ID is the
// run's hash, over the same and the experiment.
func sweepRunKey(r *RunResult) runKey {
	id := r.Hash
	if len(id) > runIDLen {
		id = id[:runIDLen]
	}
	return runKey{
		ID: id, Experiment: r.Experiment, Cell: r.Cell, Workload: r.Workload, HasWorkload: true,
		WorkloadSource: r.WorkloadSource, Policy: r.Settings.Policy, Options: optionsJSON(r.Settings), Seed: r.Settings.Seed,
	}
}

func optionsJSON(spec RunSpec) string {
	b, _ := json.Marshal(spec.Options)
	return string(b)
}

// runCols are the run columns of rows whose run is key(i).
func runCols(key func(i int) *runKey) []column {
	nonEmpty := func(s string) (string, bool) { return s, s != "" }
	return []column{
		strCol("run_id", func(i int) string { return key(i).ID }),
		strNull("experiment", func(i int) (string, bool) { return nonEmpty(key(i).Experiment) }),
		strNull("cell", func(i int) (string, bool) { return nonEmpty(key(i).Cell) }),
		i64Null("workload", func(i int) (int64, bool) { k := key(i); return int64(k.Workload), k.HasWorkload }),
		strCol("workload_source", func(i int) string { return key(i).WorkloadSource }),
		strCol("policy", func(i int) string { return key(i).Policy }),
		strCol("policy_options", func(i int) string { return key(i).Options }),
		i64Col("seed", func(i int) int64 { return int64(key(i).Seed) }),
	}
}

// jobRow is one row of jobs.parquet.
type jobRow struct {
	key *runKey
	job *sim.JobResult
}

func jobTableCols(rows []jobRow) []column {
	j := func(i int) *sim.JobResult { return rows[i].job }
	finite := func(v float64) (float64, bool) { return v, !math.IsNaN(v) && !math.IsInf(v, 0) }
	positive := func(v float64) (float64, bool) { return v, v > 0 }
	ran := func(i int) bool { return j(i).MeanBatch > 0 }
	return append(runCols(func(i int) *runKey { return rows[i].key }),
		strCol("name", func(i int) string { return j(i).Name }),
		strCol("application", func(i int) string { return j(i).App }),
		i64Col("request_gpus", func(i int) int64 { return int64(j(i).RequestGPUs) }),
		i64Col("request_batch", func(i int) int64 { return int64(j(i).RequestBatch) }),
		f64Col("submit_s", func(i int) float64 { return j(i).Submit }),
		f64Null("first_start_s", func(i int) (float64, bool) { return finite(j(i).FirstStart) }),
		f64Col("finish_s", func(i int) float64 { return j(i).Finish }),
		f64Col("jct_s", func(i int) float64 { return j(i).JCT }),
		f64Null("queueing_s", func(i int) (float64, bool) { return finite(j(i).Queueing) }),
		i64Col("restarts", func(i int) int64 { return int64(j(i).Restarts) }),
		f64Col("gpu_seconds", func(i int) float64 { return j(i).GPUSeconds }),
		f64Null("mean_batch", func(i int) (float64, bool) { return j(i).MeanBatch, ran(i) }),
		f64Null("mean_efficiency", func(i int) (float64, bool) { return j(i).MeanEfficiency, ran(i) }),
		i64Col("epochs", func(i int) int64 { return int64(j(i).Epochs) }),
		f64Col("contention", func(i int) float64 { return j(i).Contention }),
		f64Null("exclusive_jct_s", func(i int) (float64, bool) { return positive(j(i).ExclusiveJCT) }),
		f64Null("fairness_rho", func(i int) (float64, bool) { return j(i).Fairness, j(i).ExclusiveJCT > 0 }),
		f64Null("equal_share_jct_s", func(i int) (float64, bool) { return positive(j(i).EqualShareJCT) }),
		f64Null("fairness_rho_equal_share", func(i int) (float64, bool) { return j(i).FairnessEqualShare, j(i).EqualShareJCT > 0 }),
	)
}

// roundTableCols are rounds.parquet's columns over the records *rp of the
// run key (a pointer, so that a streaming writer can refill the slice).
func roundTableCols(key *runKey, rp *[]sim.RoundRecord) []column {
	r := func(i int) *sim.RoundRecord { return &(*rp)[i] }
	placed := func(i int) bool { return r(i).GPUs > 0 }
	return append(runCols(func(int) *runKey { return key }),
		f64Col("time_s", func(i int) float64 { return r(i).Time }),
		f64Col("duration_s", func(i int) float64 { return r(i).Duration }),
		strCol("name", func(i int) string { return r(i).Job }),
		strCol("application", func(i int) string { return r(i).App }),
		strCol("phase", func(i int) string { return r(i).Phase }),
		i64Col("gpus", func(i int) int64 { return int64(r(i).GPUs) }),
		i64Col("nodes", func(i int) int64 { return int64(r(i).Nodes) }),
		i64Null("local_batch", func(i int) (int64, bool) { return int64(r(i).Local), placed(i) }),
		i64Null("accum_steps", func(i int) (int64, bool) { return int64(r(i).Accum), placed(i) }),
		i64Null("batch", func(i int) (int64, bool) { return int64(r(i).Batch), placed(i) }),
		// φ is positive once measured (the profiles' gradient variance is).
		f64Null("pgns", func(i int) (float64, bool) { return r(i).PGNS, r(i).PGNS > 0 }),
		f64Null("efficiency", func(i int) (float64, bool) { return r(i).Efficiency, placed(i) }),
		f64Null("goodput", func(i int) (float64, bool) { return r(i).Goodput, placed(i) }),
		f64Col("progress", func(i int) float64 { return r(i).Progress }),
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
func clusterRows(res *sim.Result, noTiming bool) []ClusterRow {
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
type clusterRow struct {
	key   *runKey
	gpus  int // GPUs in the cluster
	round *ClusterRow
}

func clusterTableCols(rows []clusterRow) []column {
	c := func(i int) *ClusterRow { return rows[i].round }
	ptr := func(p *float64) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return *p, true
	}
	return append(runCols(func(i int) *runKey { return rows[i].key }),
		i64Col("round", func(i int) int64 { return int64(c(i).Round) }),
		f64Col("time_s", func(i int) float64 { return c(i).Time }),
		f64Col("duration_s", func(i int) float64 { return c(i).Duration }),
		i64Col("cluster_gpus", func(i int) int64 { return int64(rows[i].gpus) }),
		i64Col("gpus", func(i int) int64 { return int64(c(i).GPUs) }),
		i64Col("active_jobs", func(i int) int64 { return int64(c(i).Active) }),
		i64Col("pending_jobs", func(i int) int64 { return int64(c(i).Pending) }),
		f64Null("mean_efficiency", func(i int) (float64, bool) { return ptr(c(i).MeanEfficiency) }),
		f64Null("policy_wall_s", func(i int) (float64, bool) { return ptr(c(i).PolicyWall) }),
	)
}
