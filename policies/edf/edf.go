// Package edf implements earliest-deadline-first scheduling, the classic
// deadline-aware baseline (ElasticFlow, ASPLOS'23, compares against it,
// with and without admission control): jobs run at the GPUs and batch
// size their users asked for; every round the jobs with a deadline are
// ranked by deadline (ties: submission, then workload order), the
// best-effort jobs after them by submission; in that order every job that
// still fits runs (a smaller job may pass a blocked larger one) and the
// rest are preempted. Jobs that keep running keep their nodes; newly
// started ones go to the nodes with the most free GPUs.
//
// With admission control (option admission) the policy declines, at its
// submission, a job whose deadline it could not meet even if the job ran
// alone from that moment on the most GPUs it may use (its request: EDF
// runs jobs at their request), restart included, at the true step time
// (the oracle): such a job would be late under any schedule, so
// declining it only frees GPUs for the others.
//
// The package also registers EDF as ElasticFlow's artifact runs it,
// edf-elastic (Elastic): every job in deadline order at the fastest level
// of its scaling curve that the jobs before it leave free, and admission
// by ElasticFlow's rule over those plans. docs/deadlines.md says why it is
// a policy of its own and where the two differ.
package edf

import "github.com/polluxsim/polluxsim/policies"

// Name is the policy's registered name.
const Name = "edf"

// DeclineReason is the reason a job is declined with (policies.Admitter).
const DeclineReason = "deadline cannot be met even alone on its requested GPUs"

// Options are EDF's user-settable options.
type Options struct {
	// Admission declines, at submission, the jobs whose deadline cannot
	// be met (see the package documentation).
	Admission bool `option:"admission" doc:"decline at submission a job that would miss its deadline even alone on its requested GPUs (needs the oracle's step times)"`
}

// DefaultOptions are EDF without admission control.
func DefaultOptions() Options { return Options{} }

// Policy is an EDF scheduler. It keeps no state between rounds.
type Policy struct {
	admission bool
	// delay and delayByApp are the engine's restart delay (admission).
	delay      float64
	delayByApp map[string]float64
}

var (
	_ policies.Policy   = (*Policy)(nil)
	_ policies.Admitter = (*Policy)(nil)
)

// New returns an EDF policy; with admission, restartDelay (and its
// per-application overrides) is the delay before a job's first step.
func New(admission bool, restartDelay float64, byApp map[string]float64) *Policy {
	return &Policy{admission: admission, delay: restartDelay, delayByApp: byApp}
}

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "earliest deadline first at the requested GPUs and batch, best-effort jobs after by arrival, preemptive, with backfilling; optional admission control",
	}, DefaultOptions, func(o Options, env policies.Env) (policies.Policy, error) {
		return New(o.Admission, env.RestartDelay, env.RestartDelayByApp), nil
	})
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user GPUs and batch sizes; the
// oracle only for admission control.
func (p *Policy) Traits() policies.Traits {
	return policies.Traits{UserGPUs: true, NeedsOracle: p.admission}
}

// Schedule implements policies.Policy.
func (*Policy) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	return policies.RunInOrder(c, jobs, policies.DeadlineOrder(jobs))
}

// Admit implements policies.Admitter: without admission control, or for a
// job without a deadline, every job is admitted; otherwise a job whose
// earliest possible finish (Earliest) is after its deadline is declined.
func (p *Policy) Admit(now float64, c policies.Cluster, j *policies.Job, _ []policies.Job) string {
	if !p.admission || j.Deadline <= 0 || j.Oracle == nil {
		return ""
	}
	if p.Earliest(now, c, j) > j.Deadline {
		return DeclineReason
	}
	return ""
}

// Earliest is the earliest time job j could finish if it started now,
// alone, on its requested GPUs packed onto the fewest nodes: the restart
// delay, then its remaining steps at the true step time (j.Oracle), its
// batch split as the engine splits it (policies.Job.RunTimeAlone).
func (p *Policy) Earliest(now float64, c policies.Cluster, j *policies.Job) float64 {
	delay := policies.Env{RestartDelay: p.delay, RestartDelayByApp: p.delayByApp}.RestartDelayFor(j.App)
	return now + delay + j.RunTimeAlone(c, j.Request.GPUs)
}
