package sim

import (
	"math"
	"sort"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// JobResult holds the metrics of one job.
type JobResult struct {
	Name           string  `json:"name"`
	App            string  `json:"application"`
	RequestGPUs    int     `json:"request_gpus"`
	RequestBatch   int     `json:"request_batch"`
	Submit         float64 `json:"submit_s"`
	FirstStart     float64 `json:"first_start_s"` // NaN if it never started
	Finish         float64 `json:"finish_s"`
	JCT            float64 `json:"jct_s"`
	Queueing       float64 `json:"queueing_s"` // first start − submit
	Restarts       int     `json:"restarts"`   // re-allocations after the first start
	GPUSeconds     float64 `json:"gpu_seconds"`
	MeanBatch      float64 `json:"mean_batch"`      // time-weighted over running time
	MeanEfficiency float64 `json:"mean_efficiency"` // time-weighted over running time
	Epochs         int     `json:"epochs"`
	// Contention is the average number of active jobs over the job's life.
	Contention float64 `json:"contention"`
	// ExclusiveJCT is the job's run time alone on a 1/Contention share of
	// the cluster (see Fairness).
	ExclusiveJCT float64 `json:"exclusive_jct_s"`
	// Fairness is the finish-time fairness ρ = JCT / ExclusiveJCT.
	Fairness float64 `json:"fairness_rho"`
	// EqualShareJCT is the job's run time in an isolated cluster partitioned
	// equally among Contention jobs, fractions of a GPU included (the
	// wording of the Pollux paper, after Themis; see FairnessEqualShare).
	EqualShareJCT float64 `json:"equal_share_jct_s"`
	// FairnessEqualShare is the finish-time fairness ρ = JCT / EqualShareJCT.
	FairnessEqualShare float64 `json:"fairness_rho_equal_share"`
	// Faults are the job's figures under failures (nil without a fault
	// model).
	Faults *JobFaults `json:"faults,omitempty"`
	// Deadline, when positive, is the time by which the job was to finish
	// (its submission plus the workload's deadline); 0 for a best-effort
	// job (docs/deadlines.md).
	Deadline float64 `json:"deadline_s,omitempty"`
	// Declined is the reason the policy declined the job at its
	// submission (policies.Admitter), "" for a job that ran. A declined
	// job never started: its FirstStart and Queueing are 0 here (finite,
	// so that stored runs keep them; null in jobs.parquet), its Finish is
	// its submission, JCT, GPU time and epochs 0, it has no ρ, and the
	// run's JCT, queueing, makespan and fairness figures leave it out.
	Declined string `json:"declined,omitempty"`
}

// Late is how long after its deadline the job finished (≤ 0: in time);
// ok is false for a job without a deadline or one declined.
func (j *JobResult) Late() (late float64, ok bool) {
	if j.Deadline <= 0 || j.Declined != "" {
		return 0, false
	}
	return j.Finish - j.Deadline, true
}

// Deadlines tallies a run's jobs against their deadlines: the one count
// the deadline metrics (docs/deadlines.md) and the tests read.
type Deadlines struct {
	// With is the jobs submitted with a deadline; Met those of them done
	// by it, Late those done after it, Declined those of them the policy
	// declined (neither met nor late).
	With, Met, Late, Declined int
	// DeclinedAll is every declined job, best-effort ones included.
	DeclinedAll int
}

// TallyDeadlines counts jobs against their deadlines.
func TallyDeadlines(jobs []JobResult) Deadlines {
	var d Deadlines
	for i := range jobs {
		j := &jobs[i]
		if j.Declined != "" {
			d.DeclinedAll++
		}
		if j.Deadline <= 0 {
			continue
		}
		d.With++
		if j.Declined != "" {
			d.Declined++
		} else if l, ok := j.Late(); ok && l > 0 {
			d.Late++
		} else if ok {
			d.Met++
		}
	}
	return d
}

// Ratio is the deadline satisfactory ratio, Met over With (ElasticFlow's
// metric: a declined job counts as missed); ok is false without a job
// with a deadline.
func (d Deadlines) Ratio() (ratio float64, ok bool) {
	if d.With == 0 {
		return 0, false
	}
	return float64(d.Met) / float64(d.With), true
}

// RoundRecord is one job's state after one scheduling round.
type RoundRecord struct {
	Time float64
	// Duration is how long the record holds: until the next round or the
	// job's finish, whichever comes first (see RoundsChanges for its rows).
	Duration float64
	Job      string
	App      string
	Phase    string // pending, restarting or running
	GPUs     int
	Nodes    int
	// Type is the GPU type the job holds on a cluster of node pools (""
	// when pending or on a cluster without pools).
	Type       string
	Local      int // per-GPU batch
	Accum      int // accumulation steps
	Batch      int // total batch
	PGNS       float64
	Efficiency float64 // true statistical efficiency at Batch
	Goodput    float64 // true goodput, samples/s (0 when pending)
	Progress   float64 // fraction of the target reached
	// PolicySeconds is the wall time the policy took for the whole round.
	PolicySeconds float64
}

// RoundStat describes one scheduling round as a whole.
type RoundStat struct {
	Time   float64 // simulated time of the round
	Active int     // active (submitted, unfinished) jobs
	// Running is the number of active jobs holding GPUs after the round.
	Running int
	GPUs    int // GPUs allocated after the round
	Pending int // active jobs without GPUs after the round
	// Efficiency is the mean true statistical efficiency of the jobs
	// holding GPUs after the round (0 when none does).
	Efficiency float64
	// Batch is the mean total batch of the jobs holding GPUs after the
	// round (0 when none does).
	Batch         float64
	PolicySeconds float64 // wall time the policy took
}

// NodesDown is the number of nodes down under failures from Time until
// the next change.
type NodesDown struct {
	Time  float64
	Nodes int
}

// DownAt is the number of nodes down at time t (the changes at t
// included) by the run's record of them; ok is false for a run without
// failures.
func (r *Result) DownAt(t float64) (n int, ok bool) {
	if r.Summary.Faults == nil {
		return 0, false
	}
	i := sort.Search(len(r.NodesDown), func(i int) bool { return r.NodesDown[i].Time > t })
	if i == 0 {
		return 0, true
	}
	return r.NodesDown[i-1].Nodes, true
}

// Summary holds the run's aggregate metrics.
type Summary struct {
	Policy           string  `json:"policy"`
	Jobs             int     `json:"jobs"`
	AvgJCT           float64 `json:"avg_jct_s"`
	P50JCT           float64 `json:"p50_jct_s"`
	P99JCT           float64 `json:"p99_jct_s"`
	MaxJCT           float64 `json:"max_jct_s"`
	AvgQueueing      float64 `json:"avg_queueing_s"`
	Makespan         float64 `json:"makespan_s"`
	Restarts         int     `json:"restarts"`
	GPUHours         float64 `json:"gpu_hours"`
	Utilisation      float64 `json:"utilisation"`
	AvgFairness      float64 `json:"avg_fairness_rho"`
	P99Fairness      float64 `json:"p99_fairness_rho"`
	FracUnfair       float64 `json:"frac_rho_above_1"`
	Rounds           int     `json:"rounds"`
	AgentFits        int     `json:"agent_fits"`
	PolicyRoundP50   float64 `json:"policy_round_p50_s"`
	PolicyRoundP99   float64 `json:"policy_round_p99_s"`
	PolicyRoundTotal float64 `json:"policy_total_s"`
	Wall             float64 `json:"wall_s"`

	// NodeHours are those of an elastic cluster: every node ordered,
	// billed until the last job finishes.
	NodeHours float64 `json:"node_hours,omitempty"`
	// GPUHoursByType and CostByType are, on a cluster of node pools, the
	// GPU-hours held per GPU type and their cost at the pools' prices
	// (priced types only).
	GPUHoursByType map[string]float64 `json:"gpu_hours_by_type,omitempty"`
	// JobsByType is, on a cluster of node pools, the number of jobs that
	// held GPUs of each type at some time.
	JobsByType map[string]int     `json:"jobs_by_type,omitempty"`
	CostByType map[string]float64 `json:"cost_by_type,omitempty"`
	// Cost is the run's total: node-hours × price on an elastic cluster,
	// the sum of CostByType on priced node pools.
	Cost float64 `json:"cost,omitempty"`
	// The same as AvgFairness, P99Fairness and FracUnfair for the
	// equal-share ρ (JobResult.FairnessEqualShare).
	AvgFairnessEqualShare float64 `json:"avg_fairness_rho_equal_share"`
	P99FairnessEqualShare float64 `json:"p99_fairness_rho_equal_share"`
	FracUnfairEqualShare  float64 `json:"frac_rho_equal_share_above_1"`
	// PolicyStats are the counters the policy reports about its own
	// rounds (policies.StatsReporter, Stats.Counters), if any.
	PolicyStats map[string]float64 `json:"policy_stats,omitempty"`
	// Faults are the run's figures under failures (nil without a fault
	// model).
	Faults *FaultSummary `json:"faults,omitempty"`
	// NoFairness and NoFairnessEqualShare say that no job has a ρ (or an
	// equal-share ρ): the three figures of each are then null in JSON, not
	// 0 (see NullFairness).
	NoFairness           bool `json:"-"`
	NoFairnessEqualShare bool `json:"-"`
}

// Result is everything a simulation produces.
type Result struct {
	Config   Config
	Workload string
	Profiles string
	Jobs     []JobResult
	// Rounds holds the round records Config.Rounds selects, unless
	// Config.RoundSink took them.
	Rounds []RoundRecord
	// RoundStats has one entry per scheduling round.
	RoundStats []RoundStat
	Summary    Summary
	// NodeStats has one entry per round of an elastic cluster.
	NodeStats []NodeStat
	// NodesDown has one entry per change in the number of nodes down
	// under failures (Config.Failures), in time order; none without.
	NodesDown []NodesDown

	adaptive bool
}

func newResult(cfg Config, policy string, w *traces.Workload, set *profiles.Set) *Result {
	return &Result{Config: cfg, Workload: w.Source, Profiles: set.Source, Summary: Summary{Policy: policy}}
}

// finish computes the per-job results and the summary.
func (r *Result) finish(jobs []*job, wall float64) {
	s := &r.Summary
	s.Jobs = len(jobs)
	var jcts, rhos, shareRhos []float64
	var gpuSec, queue float64
	first, last := math.Inf(1), 0.0
	sums := r.activeSums()
	ran := 0
	for _, j := range jobs {
		if j.phase == phaseDeclined {
			r.Jobs = append(r.Jobs, JobResult{
				Name: j.spec.Name, App: j.spec.App, RequestGPUs: j.spec.Replicas, RequestBatch: j.spec.Batch,
				Submit: j.spec.Time, Finish: j.finish,
				Deadline: j.spec.DueAt(), Declined: j.declined,
			})
			continue
		}
		ran++
		jr := JobResult{
			Name: j.spec.Name, App: j.spec.App, RequestGPUs: j.spec.Replicas, RequestBatch: j.spec.Batch,
			Submit: j.spec.Time, FirstStart: j.firstStart, Finish: j.finish,
			JCT: j.finish - j.spec.Time, Queueing: j.firstStart - j.spec.Time,
			Restarts: max(j.restarts, 0), GPUSeconds: j.attained, Epochs: j.epoch,
			Deadline: j.spec.DueAt(),
		}
		if j.runTime > 0 {
			jr.MeanBatch = j.batchSum / j.runTime
			jr.MeanEfficiency = j.effSum / j.runTime
		}
		jr.Contention = r.contention(sums, j.spec.Time, j.finish)
		jr.ExclusiveJCT = exclusiveJCT(j.app, j.spec, r.Config, jr.Contention, r.adaptive)
		if jr.ExclusiveJCT > 0 {
			jr.Fairness = jr.JCT / jr.ExclusiveJCT
		}
		jr.EqualShareJCT = equalShareJCT(j.app, j.spec, r.Config, jr.Contention, r.adaptive)
		if jr.EqualShareJCT > 0 {
			jr.FairnessEqualShare = jr.JCT / jr.EqualShareJCT
		}
		r.Jobs = append(r.Jobs, jr)
		jcts = append(jcts, jr.JCT)
		// A job without a ρ (null in the tables) is not counted as 0.
		if jr.ExclusiveJCT > 0 {
			rhos = append(rhos, jr.Fairness)
		}
		if jr.EqualShareJCT > 0 {
			shareRhos = append(shareRhos, jr.FairnessEqualShare)
		}
		gpuSec += j.attained
		queue += jr.Queueing
		s.Restarts += jr.Restarts
		s.AgentFits += j.agent.fits
		first = math.Min(first, j.spec.Time)
		last = math.Max(last, j.finish)
	}
	s.AvgJCT = mean(jcts)
	s.P50JCT = Percentile(jcts, 50)
	s.P99JCT = Percentile(jcts, 99)
	s.MaxJCT = Percentile(jcts, 100)
	if ran > 0 {
		s.AvgQueueing = queue / float64(ran)
	}
	s.Makespan = last
	s.GPUHours = gpuSec / 3600
	r.typeHours(jobs)
	if span := last - first; span > 0 {
		s.Utilisation = gpuSec / (float64(r.Config.Cluster.TotalGPUs()) * span)
	}
	s.AvgFairness = mean(rhos)
	s.P99Fairness = Percentile(rhos, 99)
	unfair := 0
	for _, v := range rhos {
		if v > 1 {
			unfair++
		}
	}
	s.FracUnfair = fraction(unfair, len(rhos))
	s.NoFairness = len(rhos) == 0
	s.AvgFairnessEqualShare = mean(shareRhos)
	s.P99FairnessEqualShare = Percentile(shareRhos, 99)
	unfair = 0
	for _, v := range shareRhos {
		if v > 1 {
			unfair++
		}
	}
	s.FracUnfairEqualShare = fraction(unfair, len(shareRhos))
	s.NoFairnessEqualShare = len(shareRhos) == 0
	s.Rounds = len(r.RoundStats)
	walls := make([]float64, len(r.RoundStats))
	for i, rs := range r.RoundStats {
		walls[i] = rs.PolicySeconds
		s.PolicyRoundTotal += rs.PolicySeconds
	}
	s.PolicyRoundP50 = Percentile(walls, 50)
	s.PolicyRoundP99 = Percentile(walls, 99)
	s.Wall = wall
}

// contention is the average number of active jobs over the rounds in
// [from, to] (1 if there are none, or fewer than one job on average),
// from the running totals of RoundStats' Active (activeSums).
func (r *Result) contention(sums []int64, from, to float64) float64 {
	rs := r.RoundStats
	lo := sort.Search(len(rs), func(i int) bool { return rs[i].Time >= from })
	hi := sort.Search(len(rs), func(i int) bool { return rs[i].Time > to })
	if hi <= lo {
		return 1
	}
	sum, n := sums[hi]-sums[lo], int64(hi-lo)
	if sum < n {
		return 1
	}
	return float64(sum) / float64(n)
}

// activeSums returns the running totals of the rounds' active jobs: element
// i is the sum over RoundStats[:i].
func (r *Result) activeSums() []int64 {
	sums := make([]int64, len(r.RoundStats)+1)
	for i, rs := range r.RoundStats {
		sums[i+1] = sums[i] + int64(rs.Active)
	}
	return sums
}

// fraction is n/of, 0 of none.
func fraction(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Percentile returns the q-th percentile (0..100) of v with linear
// interpolation between order statistics (numpy's default); 0 for no data.
func Percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	pos := q / 100 * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if hi >= len(s) {
		hi = len(s) - 1
	}
	frac := pos - float64(lo)
	return s[lo]*(1-frac) + s[hi]*frac
}

// typeHours fills the per-type GPU-hours and costs on a cluster of pools.
func (r *Result) typeHours(jobs []*job) {
	if !r.Config.typed() {
		return
	}
	s := &r.Summary
	s.GPUHoursByType = map[string]float64{}
	for _, t := range r.Config.Cluster.Types() {
		s.GPUHoursByType[t] = 0
	}
	s.JobsByType = map[string]int{}
	for _, t := range r.Config.Cluster.Types() {
		s.JobsByType[t] = 0
	}
	for _, j := range jobs {
		for t, sec := range j.typeSec {
			s.GPUHoursByType[t] += sec / 3600
			if sec > 0 {
				s.JobsByType[t]++
			}
		}
	}
	price := map[string]float64{}
	for _, p := range r.Config.Cluster.Pools {
		if p.Price > 0 {
			price[p.Type] = p.Price // pools of one type share its price (see checkPools)
		}
	}
	if len(price) == 0 {
		return
	}
	s.CostByType = map[string]float64{}
	for t, pr := range price {
		s.CostByType[t] = s.GPUHoursByType[t] * pr
		s.Cost += s.CostByType[t]
	}
}
