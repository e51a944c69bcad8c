package edf

import (
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/elasticflow"
)

// ElasticName is the registered name of EDF as ElasticFlow's artifact
// runs it (Elastic).
const ElasticName = "edf-elastic"

// ElasticOptions are the elastic variant's user-settable options.
type ElasticOptions struct {
	// Admission declines, at submission, the jobs whose deadline the plans
	// cannot meet beside the admitted ones.
	Admission bool `option:"admission" doc:"decline at submission a job whose plan, or an admitted job's that met its deadline without it, misses its deadline (the artifact's edf-accessctrl; false: its edf)"`
}

// DefaultElasticOptions are the artifact's edf: no admission control.
func DefaultElasticOptions() ElasticOptions { return ElasticOptions{} }

// ElasticRegistration is the elastic variant's registration, for a
// policies.Registry (policies/builtin.Registrations lists it).
func ElasticRegistration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: ElasticName,
		Doc:  "EDF as ElasticFlow's artifact runs it: each job in deadline order at the fastest level of its scaling curve that the jobs before it leave free, buddy placement; optional admission control",
		Cost: 2,
	}, DefaultElasticOptions, func(o ElasticOptions, env policies.Env) (policies.Policy, error) {
		return NewElastic(o.Admission, env), nil
	})
}

// The reasons the elastic variant declines a job with (policies.Admitter).
const (
	// DeclineElastic: at the fastest allocations in deadline order, beside
	// the admitted jobs, the job's plan misses its deadline.
	DeclineElastic = "deadline cannot be met at the fastest allocations in deadline order beside the admitted jobs"
	// DeclineElasticOthers: with the job, an admitted job's plan misses a
	// deadline it meets without it.
	DeclineElasticOthers = "it would make an admitted job miss its deadline"
)

// Elastic is EDF as ElasticFlow's artifact runs it (scheduler.py, schedules
// edf and edf-accessctrl: one_queue_edf_sim_jobs and
// one_queue_edf_sim_jobs_access_control, each round's plan by
// EDF_estimate_all_jobs, each job's by edf_sim_allocation): jobs keep the
// batch size their users asked for, and every round each job, in deadline
// order (best-effort jobs after, by submission), is planned to finish as
// early as it can on what the jobs before it leave: from now on, in every
// stretch of time, the largest level of its scaling curve (ElasticFlow's,
// elasticflow.JobCurve, whose largest level is its fastest) that is free
// (elasticflow.Fastest). A job gets now what its plan holds now: its
// fastest level when that many GPUs are free, otherwise the largest level
// that fits, none when no GPU is left. Jobs are placed by ElasticFlow's
// buddy allocation (elasticflow.Place).
//
// With admission control a job with a deadline is declined at its
// submission by ElasticFlow's rule (elasticflow.Admission) over these
// plans: when its plan beside the admitted jobs misses its deadline (less
// one restart delay, elasticflow.Due), or an admitted job's plan that meets
// its deadline without it misses it with it.
type Elastic struct {
	admission bool
	env       policies.Env
	// repacks counts rounds whose buddy placement started over.
	repacks int
}

var (
	_ policies.Policy        = (*Elastic)(nil)
	_ policies.Admitter      = (*Elastic)(nil)
	_ policies.StatsReporter = (*Elastic)(nil)
)

// NewElastic returns EDF as ElasticFlow's artifact runs it, with or without
// admission control; env's restart delays are the margin its plans keep
// before each deadline.
func NewElastic(admission bool, env policies.Env) *Elastic {
	return &Elastic{admission: admission, env: env}
}

// Name implements policies.Policy.
func (*Elastic) Name() string { return ElasticName }

// Traits implements policies.Policy: fixed user batch sizes, GPUs chosen
// by the policy, the oracle's step times and remaining steps.
func (*Elastic) Traits() policies.Traits { return policies.Traits{NeedsOracle: true} }

// PolicyStats implements policies.StatsReporter.
func (p *Elastic) PolicyStats() policies.Stats {
	return policies.Stats{Counters: map[string]float64{"buddy_repacks": float64(p.repacks)}}
}

// plan plans jobs in deadline order, each as early as it can on what those
// before it leave; best-effort jobs too when bestEffort. met[i] is whether
// job i, one with a deadline, is planned to be done by its due time.
//
// The plans' clock starts at now (0): their times are seconds from now,
// and a due time is elasticflow.Due less now. On the round's clock a plan
// would be rounded to its resolution, 2048 s at 10^19 s, where a job of a
// few minutes' work could not be planned to end at all (every job was
// declined and none given a GPU). The GPUs each job gets now depend only
// on what the jobs before it take now, on either clock; met can differ
// only where a plan ends within rounding of its due time.
func (p *Elastic) plan(now float64, c policies.Cluster, jobs []policies.Job, curves []elasticflow.Curve, bestEffort bool) (plans []elasticflow.Plan, met []bool) {
	plans, met = make([]elasticflow.Plan, len(jobs)), make([]bool, len(jobs))
	prof := elasticflow.NewProfile(0, c.TotalGPUs())
	for _, i := range policies.DeadlineOrder(jobs) {
		due := jobs[i].Deadline > 0
		if !due && !bestEffort {
			continue
		}
		pl, ok := elasticflow.Fastest(curves[i], prof)
		prof.Reserve(&pl)
		plans[i] = pl
		met[i] = due && ok && pl.End <= elasticflow.Due(p.env, &jobs[i])-now
	}
	return plans, met
}

func curves(c policies.Cluster, jobs []policies.Job) []elasticflow.Curve {
	out := make([]elasticflow.Curve, len(jobs))
	for i := range jobs {
		out[i] = elasticflow.JobCurve(c, &jobs[i])
	}
	return out
}

// Admit implements policies.Admitter: without admission control, or for a
// job without a deadline, every job is admitted; otherwise ElasticFlow's
// rule over EDF's plans decides (see Elastic).
func (p *Elastic) Admit(now float64, c policies.Cluster, j *policies.Job, active []policies.Job) string {
	if !p.admission || j.Deadline <= 0 || j.Oracle == nil {
		return ""
	}
	jobs := append(append(make([]policies.Job, 0, len(active)+1), active...), *j)
	cs := curves(c, jobs)
	switch elasticflow.Admission(len(active), func(n int) []bool {
		_, met := p.plan(now, c, jobs[:n], cs[:n], false)
		return met
	}) {
	case elasticflow.OwnDeadline:
		return DeclineElastic
	case elasticflow.OthersDeadline:
		return DeclineElasticOthers
	}
	return ""
}

// Schedule implements policies.Policy.
func (p *Elastic) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	plans, _ := p.plan(now, c, jobs, curves(c, jobs), true)
	count := make([]int, len(jobs))
	for i := range jobs {
		count[i] = plans[i].At(0) // now, on the plans' clock
	}
	alloc, repacked := elasticflow.Place(c, jobs, count)
	if repacked {
		p.repacks++
	}
	return policies.Decision{Alloc: alloc}
}
