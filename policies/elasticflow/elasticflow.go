// Package elasticflow implements ElasticFlow (Gu et al., ASPLOS'23) as its
// artifact (pkusys/ElasticFlow, scheduler/scheduler.py, schedule
// "ef-accessctrl") runs it: jobs keep the batch size their users asked
// for and the scheduler chooses their GPUs, a power of two, from each
// job's scaling curve (its run time alone at each count, from the
// oracle's true step times).
//
// Every round the jobs with a deadline are planned in deadline order at
// their minimum satisfactory share (MinShare: the fewest GPUs that finish
// the job by its deadline on what the jobs before it leave free, filling
// from the deadline backward); a job gets now what its plan holds now.
// The GPUs left over go, one step up the curve at a time, first to the
// jobs holding none (deadline order, best-effort jobs after them by
// submission), then to the job with the highest marginal return, the run
// time saved per added GPU (Leftover). Jobs are placed by buddy
// allocation (Place): a job of fewer GPUs than a node on one node, a
// larger one on whole nodes, largest first, so that power-of-two jobs
// never fragment the cluster.
//
// With admission control (option admission, the default) a job with a
// deadline is declined at its submission when the plan of the admitted
// jobs with it leaves its deadline, or an admitted job's deadline that
// was met without it, unmet. docs/elasticflow.md has the formulas, the
// artifact's functions each rule comes from and where this differs.
package elasticflow

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "elasticflow"

// The reasons a job is declined with (policies.Admitter).
const (
	// DeclineShare: no share of the GPUs the admitted jobs leave meets the
	// job's deadline.
	DeclineShare = "minimum satisfactory share cannot be met beside the admitted jobs"
	// DeclineOthers: the job's share would leave an admitted job's
	// deadline unmet that is met without it.
	DeclineOthers = "its share would make an admitted job miss its deadline"
)

// Options are ElasticFlow's user-settable options.
type Options struct {
	// Admission declines, at submission, the jobs whose deadline cannot
	// be met beside the admitted ones.
	Admission bool `option:"admission" doc:"decline at submission a job whose minimum satisfactory share cannot be met beside the admitted jobs (the artifact's ef-accessctrl; false: its ef)"`
	// Marginal is the marginal return leftover GPUs go by
	// (MarginalGPUTime, MarginalRunTime).
	Marginal string `option:"marginal" doc:"what leftover GPUs go by, highest first: gputime (the artifact's: GPU-seconds added per added GPU) or runtime (run time saved per added GPU)"`
}

// DefaultOptions are ElasticFlow as its artifact runs it: admission
// control, leftover GPUs by the artifact's marginal return.
func DefaultOptions() Options { return Options{Admission: true, Marginal: MarginalGPUTime} }

// Validate checks the options.
func (o *Options) Validate() error {
	if o.Marginal != MarginalGPUTime && o.Marginal != MarginalRunTime {
		return fmt.Errorf("marginal must be %q or %q, got %q", MarginalGPUTime, MarginalRunTime, o.Marginal)
	}
	return nil
}

// Policy is an ElasticFlow scheduler. Its decisions depend on the round's
// input alone; it keeps only counters between rounds.
type Policy struct {
	admission bool
	marginal  string
	env       policies.Env
	// repacks counts rounds whose buddy placement started over from an
	// empty cluster because the kept jobs left no room.
	repacks int
}

var (
	_ policies.Policy        = (*Policy)(nil)
	_ policies.Admitter      = (*Policy)(nil)
	_ policies.StatsReporter = (*Policy)(nil)
)

// New returns an ElasticFlow policy; env's restart delays are the margin
// its plans keep before each deadline.
func New(o Options, env policies.Env) *Policy {
	return &Policy{admission: o.Admission, marginal: o.Marginal, env: env}
}

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "ElasticFlow: minimum satisfactory share by deadline, admission control, leftover GPUs by marginal return, buddy placement",
		Cost: 2,
	}, DefaultOptions, func(o Options, env policies.Env) (policies.Policy, error) {
		return New(o, env), nil
	})
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user batch sizes, GPUs chosen
// by the policy, the oracle's step times and remaining steps.
func (*Policy) Traits() policies.Traits { return traits() }

func traits() policies.Traits { return policies.Traits{NeedsOracle: true} }

// PolicyStats implements policies.StatsReporter.
func (p *Policy) PolicyStats() policies.Stats {
	return policies.Stats{Counters: map[string]float64{"buddy_repacks": float64(p.repacks)}}
}

// JobCurve is job j's scaling curve on cluster c (Levels): powers of two
// up to its cap (policies.GPUCap, the batch it asked for over its smallest
// per-GPU batch) and the cluster's size, from its run time alone at each
// count (policies.Job.RunTimeAlone); nil without the oracle. ElasticFlow
// and EDF as ElasticFlow's artifact runs it (policies/edf, option elastic)
// scale jobs along it.
func JobCurve(c policies.Cluster, j *policies.Job) Curve {
	if j.Oracle == nil {
		return nil
	}
	limit := c.TotalGPUs()
	if capped := policies.GPUCap(j, traits()); capped > 0 {
		limit = min(limit, capped)
	}
	return Levels(limit, func(k int) float64 { return j.RunTimeAlone(c, k) })
}

// Due is the time by which job j's plan must be done: its deadline less
// one restart delay of env (every job pays one before its first step, and
// one whenever its GPUs change).
func Due(env policies.Env, j *policies.Job) float64 {
	return j.Deadline - env.RestartDelayFor(j.App)
}

// Refusal is why an admission rule declines a newcomer (Admission).
type Refusal int

const (
	// Admitted: not declined.
	Admitted Refusal = iota
	// OwnDeadline: the newcomer's plan misses its deadline.
	OwnDeadline
	// OthersDeadline: with the newcomer, an admitted job's plan misses a
	// deadline it meets without it.
	OthersDeadline
)

// Admission is ElasticFlow's admission rule (artifact: the admission step
// of ef_sim_jobs_access_control and of one_queue_edf_sim_jobs_access_control),
// whatever the plans are made by: met(n) plans the first n of the jobs,
// the admitted ones (admitted of them) and the newcomer last, and reports
// whose plan meets its deadline. The newcomer is admitted when its plan
// with the admitted jobs meets its deadline and every admitted job whose
// plan meets its deadline without the newcomer still does with it.
func Admission(admitted int, met func(n int) []bool) Refusal {
	with := met(admitted + 1)
	if !with[admitted] {
		return OwnDeadline
	}
	without := met(admitted)
	for i := range admitted {
		if without[i] && !with[i] {
			return OthersDeadline
		}
	}
	return Admitted
}

// planned is the outcome of planning a round's deadline jobs.
type planned struct {
	plans []Plan
	met   []bool
}

// planAll plans the jobs with a deadline among jobs in EDF order at their
// minimum satisfactory shares, each on what those before it leave
// (artifact: estimate_all_jobs); a job no share can make meet its deadline
// (met false) is planned to finish as early as it can (Fastest), in its
// place in that order.
func (p *Policy) planAll(now float64, c policies.Cluster, jobs []policies.Job, curves []Curve) planned {
	out := planned{plans: make([]Plan, len(jobs)), met: make([]bool, len(jobs))}
	prof := NewProfile(now, c.TotalGPUs())
	for _, i := range policies.DeadlineOrder(jobs) {
		if jobs[i].Deadline <= 0 {
			continue
		}
		pl, ok := MinShare(curves[i], prof, Due(p.env, &jobs[i]))
		out.met[i] = ok
		if !ok {
			pl, _ = Fastest(curves[i], prof)
		}
		prof.Reserve(&pl)
		out.plans[i] = pl
	}
	return out
}

// Admit implements policies.Admitter (artifact: the admission step of
// ef_sim_jobs_access_control): a job with a deadline is admitted when the
// plan of the admitted jobs with it meets its deadline and every deadline
// the plan without it meets.
func (p *Policy) Admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	if !p.admission || j.Deadline <= 0 || j.Oracle == nil {
		return ""
	}
	jobs := append(append(make([]policies.Job, 0, len(active)+1), active...), *j)
	curves := make([]Curve, len(jobs))
	for i := range jobs {
		curves[i] = JobCurve(c, &jobs[i])
	}
	switch Admission(len(active), func(n int) []bool { return p.planAll(now, c, jobs[:n], curves[:n]).met }) {
	case OwnDeadline:
		return DeclineShare
	case OthersDeadline:
		return DeclineOthers
	}
	return ""
}

// Schedule implements policies.Policy (artifact: one round of
// ef_sim_jobs_access_control: estimate_all_jobs, allocate_free_gpus, the
// placement loop).
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	curves := make([]Curve, len(jobs))
	for i := range jobs {
		curves[i] = JobCurve(c, &jobs[i])
	}
	pl := p.planAll(now, c, jobs, curves)
	count := make([]int, len(jobs))
	used := 0
	for i := range jobs {
		count[i] = pl.plans[i].At(now)
		used += count[i]
	}
	Leftover(p.marginal, curves, count, policies.DeadlineOrder(jobs), c.TotalGPUs()-used)
	alloc, repacked := Place(c, jobs, count)
	if repacked {
		p.repacks++
	}
	return policies.Decision{Alloc: alloc}
}
