// Package chronus implements Chronus (Gao et al., SoCC'21, "Chronus: A
// Novel Deadline-aware Scheduler for Deep Learning Training Jobs"), lease-
// based deadline scheduling, as ElasticFlow's artifact runs it
// (pkusys/ElasticFlow, ElasticFlow/chronus-scheduler, itself Chronus'
// artifact: TimeAwareWithLeaseScheduler in alg/scheduler/
// time_aware_with_lease.py, its packing check and plan in
// alg/scheduler/solver.py).
//
// Time is cut into leases of a fixed length. Jobs run at the GPUs and
// batch size their users asked for. A job with a deadline is admitted as
// an SLO job when a plan exists that gives it, beside the plans of the SLO
// jobs admitted before, the leases it needs (its run time alone, with the
// preemption overhead and a 10 % margin, over the lease length, rounded
// up) among the leases that end by its deadline; otherwise it stays as an
// unaccepted SLO job, run like a best-effort one. At every lease boundary
// all jobs are preempted, the admitted jobs without a plan get one, while
// no unaccepted job waits every plan is pulled into the current lease as
// far as its GPUs fit, the admitted jobs whose plan holds this lease run
// for it, and the GPUs left
// go to the other jobs (unaccepted and best-effort, then those that can no
// longer make their deadline), the least remaining GPU time first,
// first-fit. Nothing is decided between boundaries. docs/chronus.md gives
// the rules, the artifact's functions each follows and where this one
// differs (its plans come from a Gurobi MIP; ours from the artifact's own
// greedy packing).
package chronus

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "chronus"

// Options are Chronus' user-settable options.
type Options struct {
	// LeaseSeconds is the lease length.
	LeaseSeconds float64 `option:"lease_s" doc:"lease length in seconds, in [1, 1e6] (ElasticFlow's artifact runs Chronus with 240: --lease_term_interval and --check_time_interval)"`
}

// DefaultOptions are the artifact's runs': 240-second leases.
func DefaultOptions() Options { return Options{LeaseSeconds: 240} }

// Validate checks the options' bounds.
func (o *Options) Validate() error {
	if !(o.LeaseSeconds >= 1 && o.LeaseSeconds <= 1e6) {
		return fmt.Errorf("lease_s must be in [1, 1e6], got %v", o.LeaseSeconds)
	}
	return nil
}

// Class is a job's queue in Chronus (the artifact's queue_priority).
type Class int

// The classes, valued as in the artifact: the opportunistic queue runs
// unaccepted and best-effort jobs (as equals) before Lowest.
const (
	Lowest     Class = -1 // an SLO job that can no longer meet its deadline
	Accepted   Class = 0  // an admitted SLO job: runs in its planned leases
	Unaccepted Class = 1  // an SLO job without a plan: runs opportunistically
	BestEffort Class = 2  // a job without a deadline
)

// job is what Chronus keeps about a job between rounds.
type job struct {
	class   Class
	dur     float64 // run time alone on its request at arrival
	est     float64 // Estimate(dur)
	need    int     // leases still needed (admitted jobs)
	plan    []int64 // planned leases, absolute indices ascending; nil: none yet
	overran bool    // ran past its estimate (the artifact's fake_force_guarantee)
}

// Policy is a Chronus scheduler. It keeps each job's class and plan.
type Policy struct {
	opt  Options
	jobs map[string]*job
	tick int64 // the latest lease handed out (-1 before the first)
	// Counts of SLO jobs over the run: admitted at arrival, left
	// unaccepted at arrival, and admitted ones that lost their admission
	// (overrun, or no plan found).
	admitted, refused, lost int
}

var (
	_ policies.Policy        = (*Policy)(nil)
	_ policies.StatsReporter = (*Policy)(nil)
)

// New returns a Chronus policy with options o (validated by the caller).
func New(o Options) *Policy { return &Policy{opt: o, jobs: map[string]*job{}, tick: -1} }

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "Chronus as ElasticFlow's artifact runs it: leases, SLO jobs admitted when their leases can be planned before their deadlines, the other jobs in the GPUs left, at the requested GPUs and batch",
	}, DefaultOptions, func(o Options, _ policies.Env) (policies.Policy, error) {
		if err := o.Validate(); err != nil {
			return nil, err
		}
		return New(o), nil
	})
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// PolicyStats implements policies.StatsReporter: the SLO jobs admitted
// and left unaccepted at arrival, and the admitted ones that lost their
// admission later, over the run so far.
func (p *Policy) PolicyStats() policies.Stats {
	return policies.Stats{Counters: map[string]float64{
		"slo_admitted": float64(p.admitted), "slo_unaccepted": float64(p.refused), "slo_admission_lost": float64(p.lost),
	}}
}

// Traits implements policies.Policy: fixed user GPUs and batch sizes, the
// oracle for the run times (the artifact's jobs carry their duration).
func (*Policy) Traits() policies.Traits { return policies.Traits{UserGPUs: true, NeedsOracle: true} }

// Class is the class of the job named name, and whether it is known.
func (p *Policy) Class(name string) (Class, bool) {
	if s, ok := p.jobs[name]; ok {
		return s.class, true
	}
	return 0, false
}

// Schedule implements policies.Policy. Within a lease the jobs that run
// keep running; at a lease boundary (the first round of a new lease) the
// artifact's tick runs, in its order: running jobs past their estimate
// lose their admission (flush_running_jobs), the lease is handed out
// (flush_lease_jobs), the jobs that arrived are admitted or not
// (flush_event_jobs_with_cache_solution), and the GPUs left go to the
// other jobs (flush_pending_jobs, opportunistic_run).
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	alloc := make([][]int, len(jobs))
	p.forget(jobs)
	L := p.opt.LeaseSeconds
	k := int64(math.Floor(now / L))
	if k <= p.tick {
		for i := range jobs {
			if a := jobs[i].Alloc; a != nil && policies.Sum(a) == jobs[i].Request.GPUs {
				alloc[i] = slices.Clone(a)
			}
		}
		return policies.Decision{Alloc: alloc}
	}
	p.tick = k
	rem := make([]float64, len(jobs))
	for i := range jobs {
		rem[i] = jobs[i].RunTimeAlone(c, jobs[i].Request.GPUs)
	}
	// Running jobs past their estimate lose their admission; so does an
	// admitted job with no lease left to run in.
	for i := range jobs {
		s := p.jobs[jobs[i].Name]
		if s == nil {
			continue
		}
		ran := jobs[i].Attained / float64(max(jobs[i].Request.GPUs, 1))
		if jobs[i].Alloc != nil && ran >= s.est || s.class == Accepted && s.need <= 0 {
			if s.class == Accepted {
				p.lost++
			}
			s.class, s.plan, s.overran = Unaccepted, nil, true
		}
	}
	run := p.lease(c, jobs, rem, k)
	p.admit(c, jobs, rem, k)
	run = append(run, p.opportunistic(now, c, jobs, rem, run)...)
	return policies.Decision{Alloc: p.place(c, jobs, run)}
}

// forget drops the jobs no longer active.
func (p *Policy) forget(jobs []policies.Job) {
	active := make(map[string]bool, len(jobs))
	for i := range jobs {
		active[jobs[i].Name] = true
	}
	for name := range p.jobs {
		if !active[name] {
			delete(p.jobs, name)
		}
	}
}

// lease hands out lease k (flush_lease_jobs): each admitted job's leases
// still needed are recomputed from its progress (those no longer needed
// drop from the front of its plan); the admitted jobs without a plan are
// planned (Pack), and those that cannot be lose their admission; while no
// unaccepted job waits, every admitted job's plan is then moved forward
// into lease k as far as its GPUs fit there (PullForward: the artifact's
// adaptive objective, maximize, which re-plans every admitted job at
// every lease). It returns the jobs whose plan holds lease k, which run.
func (p *Policy) lease(c policies.Cluster, jobs []policies.Job, rem []float64, k int64) []int {
	L := p.opt.LeaseSeconds
	total := c.TotalGPUs()
	unaccepted := false
	for i := range jobs {
		s := p.jobs[jobs[i].Name]
		if s == nil {
			continue
		}
		if s.class == Unaccepted {
			unaccepted = true
		}
		if s.class != Accepted {
			continue
		}
		if need := Leases(s.est-(s.dur-rem[i]), L); need < s.need {
			if s.plan != nil {
				s.plan = s.plan[min(s.need-need, len(s.plan)):]
			}
			s.need = need
		}
		if len(s.plan) > 0 && s.plan[0] < k { // a lease skipped (no round in it): plan anew
			s.plan = nil
		}
	}
	var open []int
	var demands []Demand
	for i := range jobs {
		if s := p.jobs[jobs[i].Name]; s != nil && s.class == Accepted && s.plan == nil && s.need > 0 {
			open = append(open, i)
			demands = append(demands, Demand{GPUs: Bin(jobs[i].Request.GPUs), Need: s.need, Max: LastLease(jobs[i].Deadline, L, k)})
		}
	}
	var plans [][]int
	if len(open) > 0 { // the plans' usage only when there is something to plan
		plans, _ = Pack(p.used(jobs, k), total, demands)
	}
	for d, i := range open {
		s := p.jobs[jobs[i].Name]
		if plans[d] == nil {
			s.class = Unaccepted
			p.lost++
			continue
		}
		s.plan = make([]int64, len(plans[d]))
		for x, l := range plans[d] {
			s.plan[x] = k + int64(l)
		}
	}
	if !unaccepted {
		var held []int // the admitted jobs with a plan, in submission order
		var all [][]int64
		var gpus []int
		for i := range jobs {
			if s := p.jobs[jobs[i].Name]; s != nil && s.class == Accepted && len(s.plan) > 0 {
				held = append(held, i)
				all = append(all, s.plan)
				gpus = append(gpus, Bin(jobs[i].Request.GPUs))
			}
		}
		PullForward(k, total, gpus, all)
		for x, i := range held {
			p.jobs[jobs[i].Name].plan = all[x]
		}
	}
	var run []int
	for i := range jobs {
		if s := p.jobs[jobs[i].Name]; s != nil && s.class == Accepted && len(s.plan) > 0 && s.plan[0] == k {
			s.plan = s.plan[1:]
			s.need--
			run = append(run, i)
		}
	}
	return run
}

// used is the GPUs the admitted jobs' plans take in each lease from k on,
// by offset from k.
func (p *Policy) used(jobs []policies.Job, k int64) Usage {
	u := Usage{}
	for i := range jobs {
		s := p.jobs[jobs[i].Name]
		if s == nil || s.class != Accepted {
			continue
		}
		for _, l := range s.plan {
			if l >= k {
				u[int(l-k)] += Bin(jobs[i].Request.GPUs)
			}
		}
	}
	return u
}

// admit classifies the jobs that arrived since the last boundary, in
// submission order: a job without a deadline is best-effort; one with a
// deadline is admitted when the leases it needs, from the next lease on,
// can be packed before its deadline beside the plans of the jobs admitted
// before it (Pack), and is an unaccepted SLO job otherwise.
func (p *Policy) admit(c policies.Cluster, jobs []policies.Job, rem []float64, k int64) {
	L := p.opt.LeaseSeconds
	total := c.TotalGPUs()
	var used Usage
	var demands []Demand // admitted this round, not planned yet
	for i := range jobs {
		j := &jobs[i]
		if _, ok := p.jobs[j.Name]; ok {
			continue
		}
		s := &job{dur: rem[i], class: BestEffort}
		s.est = Estimate(s.dur, j.Request.GPUs, L)
		s.need = Leases(s.est, L)
		p.jobs[j.Name] = s
		if j.Deadline <= 0 {
			continue
		}
		d := Demand{GPUs: Bin(j.Request.GPUs), Need: s.need, Max: LastLease(j.Deadline, L, k+1)}
		s.class = Unaccepted
		if d.Need <= d.Max {
			if used == nil { // the plans made before this round's arrivals
				used = p.used(jobs, k+1)
			}
			if _, ok := Pack(used, total, append(slices.Clone(demands), d)); ok {
				s.class = Accepted
				demands = append(demands, d)
			}
		}
		if s.class == Accepted {
			p.admitted++
		} else {
			p.refused++
		}
	}
}

// opportunistic hands the GPUs the lease holders (run) leave to the
// waiting jobs that are not admitted (opportunistic_run), first-fit in the
// artifact's order (best_func, descending): jobs past their estimate,
// then unaccepted and best-effort jobs as equals, then those that can no
// longer meet their deadline; within a queue the least remaining GPU time
// first (emergence), then the earliest submitted. A waiting SLO job whose
// deadline is before now plus its remaining run time becomes Lowest.
func (p *Policy) opportunistic(now float64, c policies.Cluster, jobs []policies.Job, rem []float64, run []int) []int {
	left := c.TotalGPUs()
	running := make([]bool, len(jobs))
	for _, i := range run {
		running[i] = true
		left -= jobs[i].Request.GPUs
	}
	emergence := make([]float64, len(jobs))
	var cand []int
	for i := range jobs {
		s := p.jobs[jobs[i].Name]
		if s == nil || running[i] {
			continue
		}
		j := &jobs[i]
		if j.Deadline > 0 && s.class != BestEffort && s.class != Lowest && j.Deadline < now+rem[i] {
			if s.class == Accepted { // its plan no longer counts (abstract_lease_list takes admitted jobs only)
				p.lost++
				s.plan = nil
			}
			s.class = Lowest
		}
		progress := s.dur - rem[i]
		g := float64(j.Request.GPUs)
		if s.class == BestEffort || s.class == Unaccepted {
			emergence[i] = -(s.est - progress) * g
		} else {
			emergence[i] = -(j.Deadline - now - s.est + progress) * g
		}
		if s.class != Accepted {
			cand = append(cand, i)
		}
	}
	slices.SortStableFunc(cand, func(a, b int) int {
		sa, sb := p.jobs[jobs[a].Name], p.jobs[jobs[b].Name]
		if sa.overran != sb.overran {
			if sa.overran {
				return -1
			}
			return 1
		}
		if qa, qb := min(sa.class, Unaccepted), min(sb.class, Unaccepted); qa != qb {
			return cmp.Compare(qb, qa)
		}
		if d := cmp.Compare(emergence[b], emergence[a]); d != 0 {
			return d
		}
		return cmp.Compare(jobs[a].Submit, jobs[b].Submit)
	})
	var more []int
	for _, i := range cand {
		if g := jobs[i].Request.GPUs; g <= left {
			left -= g
			more = append(more, i)
		}
	}
	return more
}

// place gives the chosen jobs their GPUs: those that can keep their nodes
// keep them; the lease holders, the most GPUs first, then the others in
// their order, are placed on the nodes with the most free GPUs.
func (p *Policy) place(c policies.Cluster, jobs []policies.Job, run []int) [][]int {
	alloc := make([][]int, len(jobs))
	free := make([]int, c.Nodes)
	for n := range free {
		free[n] = c.NodeGPUs(n)
	}
	for _, i := range run {
		a := jobs[i].Alloc
		if policies.Sum(a) != jobs[i].Request.GPUs || len(a) != c.Nodes || a == nil {
			continue
		}
		fits := true
		for n, v := range a {
			fits = fits && v <= free[n]
		}
		if fits {
			alloc[i] = slices.Clone(a)
			for n, v := range a {
				free[n] -= v
			}
		}
	}
	order := slices.Clone(run)
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := p.jobs[jobs[a].Name], p.jobs[jobs[b].Name]
		la, lb := sa.class == Accepted, sb.class == Accepted
		switch {
		case la && !lb:
			return -1
		case !la && lb:
			return 1
		case la && lb:
			return jobs[b].Request.GPUs - jobs[a].Request.GPUs
		}
		return 0
	})
	for _, i := range order {
		if alloc[i] == nil {
			alloc[i] = policies.PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i])
		}
	}
	return alloc
}
