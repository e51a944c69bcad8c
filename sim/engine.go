package sim

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// engine is the state of one simulation.
type engine struct {
	// ctx ends the run early when it is cancelled (checked every round).
	ctx    context.Context
	cfg    Config
	policy policies.Policy
	traits policies.Traits
	jobs   []*job
	// active holds the submitted, unfinished jobs in workload order.
	active   []*job
	due      []*job   // scratch of resolveFits
	fits     *fitPool // runs due refits ahead (nil: none)
	events   scheduler
	rec      roundRecorder
	now      float64
	nextTick float64
	ticks    int
	// jobRounds is the work so far: active jobs summed over rounds.
	jobRounds int64
	finished  int
	res       *Result
	// elastic is the book of an elastic cluster (nil: fixed cluster).
	elastic *elasticState
	// nextSubmit is the next job a closed loop submits.
	nextSubmit int
	// used, usedOn and held are checkDecision's scratch: the GPUs the
	// decision puts on each node (all zero between calls), the nodes
	// where that is not zero, and the nodes one allocation holds GPUs on.
	used, usedOn, holds []int
	// views is the policy's input, reused from round to round (a policy
	// keeps nothing of its input past the call).
	views []policies.Job
	// incremental is the book of a run decided incrementally (nil: every
	// active job is presented to the policy every round; see Incremental).
	incremental *incremental
	// idle is the current stretch of rounds in which no job held a GPU
	// while one that fits waited (see checkStall).
	idle idleStretch
	// failures is the book of a run with failures (nil: no fault model).
	failures *faultState
}

// Run simulates workload w on the applications in set under policy p.
// The workload is validated first: unknown applications and jobs larger
// than the cluster are errors before any simulation happens.
func Run(cfg Config, set *profiles.Set, w *traces.Workload, p policies.Policy) (*Result, error) {
	return RunContext(context.Background(), cfg, set, w, p)
}

// RunContext is Run that stops at the next scheduling round once ctx is
// cancelled, returning ctx's error (the policy's round in progress ends
// first).
func RunContext(ctx context.Context, cfg Config, set *profiles.Set, w *traces.Workload, p policies.Policy) (*Result, error) {
	if err := cfg.normalise(); err != nil {
		return nil, err
	}
	if len(w.Jobs) == 0 {
		return nil, fmt.Errorf("workload %s has no jobs", w.Source)
	}
	set, err := profiles.ScaleStepTimes(set, cfg.StepScale)
	if err != nil {
		return nil, err
	}
	if ac, ok := p.(policies.AppChecker); ok {
		if err := ac.CheckApps(set.Names()); err != nil {
			return nil, err
		}
	}
	e := &engine{ctx: ctx, cfg: cfg, policy: p, traits: p.Traits(), incremental: newIncremental(cfg, p)}
	if cfg.Failures != nil {
		// Spare nodes are held back from the cluster the policy sees.
		if e.cfg.Cluster, err = servedCluster(cfg.Cluster, cfg.Failures.Spares); err != nil {
			return nil, err
		}
	}
	total := e.cfg.Cluster.TotalGPUs()
	if cfg.Elastic != nil {
		e.elastic = &elasticState{cfg: cfg.Elastic}
		total = cfg.Elastic.MaxNodes * cfg.Cluster.MaxNodeGPUs()
	}
	if cfg.typed() {
		total = math.MaxInt // checkTypes bounds requests per type
	}
	names := make(map[string]int, len(w.Jobs))
	for i, spec := range w.Jobs {
		// Policies know jobs by name (policies.Job.Name).
		if first, dup := names[spec.Name]; dup {
			return nil, &traces.InputError{File: w.Source, Line: spec.Line, Job: spec.Name, Err: fmt.Errorf(
				"job name %q is also job %d's: names must be unique", spec.Name, first+1)}
		}
		names[spec.Name] = i
		app, ok := set.Apps[spec.App]
		if !ok {
			return nil, fmt.Errorf("workload %s: job %s (job %d): unknown application %q (profiles from %s have %v)",
				w.Source, spec.Name, i+1, spec.App, set.Source, set.Names())
		}
		if e.traits.UserGPUs && spec.Replicas > total {
			return nil, fmt.Errorf("workload %s: job %s (job %d) asks for %d GPUs, the cluster has %d",
				w.Source, spec.Name, i+1, spec.Replicas, total)
		}
		if spec.Replicas < 1 || spec.Batch < 1 {
			return nil, fmt.Errorf("workload %s: job %s (job %d): GPUs and batch size must be positive", w.Source, spec.Name, i+1)
		}
		if math.IsNaN(spec.Time) || spec.Time < 0 || math.IsInf(spec.Time, 0) {
			return nil, fmt.Errorf("workload %s: job %s (job %d): bad submission time %v", w.Source, spec.Name, i+1, spec.Time)
		}
		if !(spec.Deadline >= 0) || math.IsInf(spec.Deadline, 0) {
			return nil, fmt.Errorf("workload %s: job %s (job %d): bad deadline %v (seconds after submission, 0 for none)", w.Source, spec.Name, i+1, spec.Deadline)
		}
		if spec.Time > cfg.MaxTime {
			// An input problem: name the file and line the job came from.
			return nil, &traces.InputError{File: w.Source, Line: spec.Line, Job: spec.Name, Err: fmt.Errorf(
				"submitted at %v s, after the simulation's time limit of %v s", spec.Time, cfg.MaxTime)}
		}
		j := &job{idx: i, spec: spec, app: app, line: i + 1, restarts: -1, firstStart: math.NaN(), finish: math.NaN(),
			rigid: !e.traits.SizesLLMJobs}
		if err := checkFloor(cfg, j); err != nil {
			return nil, &traces.InputError{File: w.Source, Line: spec.Line, Job: spec.Name, Err: err}
		}
		j.agent.start(e.traits.AdaptiveBatch, spec.App, cfg.SeedParams, cfg.SeedSeenGPUs)
		if cfg.typed() {
			j.types, j.typeSec = j.fitting(e.cfg.Cluster, offered(e.cfg.Cluster, app)), map[string]float64{}
			if e.traits.AdaptiveBatch && len(e.cfg.Cluster.Types()) > 1 {
				if err := e.bootstrap(j); err != nil {
					return nil, err
				}
			}
		}
		e.jobs = append(e.jobs, j)
		if cfg.ClosedLoop <= 0 || i < cfg.ClosedLoop {
			e.events.arrive(event{time: spec.Time, kind: evArrival, job: i})
		}
	}
	e.events.sortArrivals()
	e.rec = roundRecorder{mode: cfg.Rounds, sink: cfg.RoundSink}
	if cfg.typed() {
		if err := checkTypes(e.cfg.Cluster, set, w, e.traits.UserGPUs); err != nil {
			return nil, err
		}
	}
	e.nextSubmit = e.initialArrivals()
	e.res = newResult(cfg, p.Name(), w, set)
	e.res.adaptive = e.traits.AdaptiveBatch
	e.nextTick = cfg.Interval
	e.events.push(event{time: e.nextTick, kind: evTick, job: -1})
	if cfg.Failures != nil {
		if err := e.startFaults(cfg.Cluster); err != nil {
			return nil, err
		}
	}
	wall := time.Now()
	e.fits = newFitPool(e.fitWorkers() - 1)
	defer e.fits.close()
	if err := e.loop(); err != nil {
		return nil, err
	}
	if err := e.checkFinished(); err != nil {
		return nil, err
	}
	if err := e.rec.flush(e.res, e.jobs); err != nil {
		return nil, err
	}
	e.res.finish(e.jobs, time.Since(wall).Seconds())
	e.finishFaults()
	if sr, ok := e.policy.(policies.StatsReporter); ok {
		e.res.Summary.PolicyStats = sr.PolicyStats().Counters
	}
	e.finishElastic()
	if err := e.res.checkFinite(); err != nil {
		return nil, err
	}
	return e.res, nil
}

func (e *engine) loop() error {
	for e.finished < len(e.jobs) {
		ev, ok := e.events.pop()
		if !ok {
			return fmt.Errorf("internal error: no events left with %d of %d jobs unfinished at t=%v", len(e.jobs)-e.finished, len(e.jobs), e.now)
		}
		if !(ev.time >= e.now) { // also catches NaN
			return fmt.Errorf("invariant violated: %s event at t=%v before current time %v", ev.kind, ev.time, e.now)
		}
		if ev.time > e.cfg.MaxTime {
			return fmt.Errorf("simulation did not finish by t=%v s: %d of %d jobs unfinished%s (do they fit the cluster?)",
				e.cfg.MaxTime, len(e.jobs)-e.finished, len(e.jobs), e.firstUnfinished())
		}
		e.now = ev.time
		var err error
		switch ev.kind {
		case evArrival:
			j := e.jobs[ev.job]
			if reason := e.admit(j); reason != "" {
				err = e.decline(j, reason)
				break
			}
			err = j.setPhase(phasePending, e.now)
			j.last = e.now
			e.activate(j)
		case evRestartDone:
			j := e.jobs[ev.job]
			if ev.version != j.version {
				continue
			}
			j.advanceTo(e.now)
			if j.ft != nil {
				e.resumeFaults(j)
			}
			if err = j.setPhase(phaseRunning, e.now); err == nil {
				err = e.startSegment(j)
			}
		case evEpoch:
			j := e.jobs[ev.job]
			if ev.version != j.version {
				continue
			}
			err = e.epochBoundary(j)
		case evFault:
			err = e.fault()
		case evJobFault:
			j := e.jobs[ev.job]
			if ev.version != j.version {
				continue
			}
			err = e.jobFault(j)
		case evTick:
			if err = e.ctx.Err(); err == nil {
				err = e.tick()
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkFinished verifies at the end that every job ran all its epochs and
// has consistent times.
func (e *engine) checkFinished() error {
	for _, j := range e.jobs {
		if j.phase == phaseDeclined && j.epoch == 0 && j.attained == 0 && j.restarts < 0 {
			continue
		}
		if j.phase != phaseDone || j.epoch != j.app.Epochs ||
			!(j.finish >= j.firstStart && j.firstStart >= j.spec.Time) || math.IsInf(j.finish, 0) {
			return fmt.Errorf("invariant violated: job %s ended in phase %s after %d of %d epochs (submit %v, start %v, finish %v)",
				j.spec.Name, j.phase, j.epoch, j.app.Epochs, j.spec.Time, j.firstStart, j.finish)
		}
	}
	return nil
}

// Tolerances of the progress invariants: progress may pass an epoch
// boundary or the target by progressSlack relative plus progressAbsSlack
// absolute (rounding of rate × time); in step mode, whose crossing times
// are rounded to whole seconds, by up to stepRounding seconds of progress
// more.
const (
	progressSlack    = 1e-9
	progressAbsSlack = 1e-9
	stepRounding     = 0.5
)

// epochBoundary handles job j reaching the end of an epoch.
func (e *engine) epochBoundary(j *job) error {
	j.advanceTo(e.now)
	next := j.app.Truth.Progress(j.epoch + 1)
	// Exact mode lands on the boundary up to rounding; step mode may round
	// the crossing time by up to half a second either way.
	slack := progressSlack*next + progressAbsSlack
	if e.cfg.Step {
		slack += stepRounding * j.rate
	}
	if math.Abs(j.progress-next) > slack {
		return fmt.Errorf("invariant violated: job %s reached its epoch %d boundary event at progress %v, boundary %v (t=%v)",
			j.spec.Name, j.epoch+1, j.progress, next, e.now)
	}
	j.epoch++
	j.progress = j.app.Truth.Progress(j.epoch) // exact, whatever rounding
	if j.epoch >= j.app.Epochs {
		if err := j.setPhase(phaseDone, e.now); err != nil {
			return err
		}
		j.finish = e.now
		j.version++
		e.deactivate(j)
		j.setAlloc(nil)
		j.release()
		e.rec.finished(j)
		e.finished++
		e.submitNext()
		return nil
	}
	if err := j.tune(e.traits.AdaptiveBatch); err != nil {
		return err
	}
	return e.startSegment(j)
}

// startSegment starts a period of constant progress rate for running job j
// at the current time: it measures the true step time and gradient
// statistics of its configuration, lets the agent observe them, and
// schedules the next epoch boundary if it falls before the next tick.
func (e *engine) startSegment(j *job) error {
	j.version++
	truth := j.app.Truth
	pf := j.perf()
	if !(pf.Step > 0) || math.IsInf(pf.Step, 0) || math.IsNaN(pf.Sync) {
		return fmt.Errorf("profile of %s has no valid step time for placement %v at per-GPU batch %d (job %s, t=%v)",
			j.app.Name, j.placement, j.local, j.spec.Name, e.now)
	}
	if err := j.fitError(j.agent.observe(j.nodes, j.gpus, j.local, pf.Step, pf.Sync, pf.Grad)); err != nil {
		return err
	}
	e.fits.launch(&j.agent)
	j.rate = pf.Rate * (1 - j.slowdown)
	if j.ft != nil {
		j.rate *= j.ft.share() // the time checkpoints take
	}
	j.eff = pf.Efficiency
	if !(j.rate > 0) || math.IsInf(j.rate, 0) {
		return fmt.Errorf("job %s: non-positive progress rate %v at t=%v (placement %v, batch %d)", j.spec.Name, j.rate, e.now, j.placement, j.batch)
	}
	next := truth.Progress(j.epoch + 1)
	if j.progress > j.target()*(1+progressSlack)+progressAbsSlack {
		return fmt.Errorf("invariant violated: job %s progress %v beyond its target %v at t=%v", j.spec.Name, j.progress, j.target(), e.now)
	}
	left := e.nextTick - e.now
	d := (next - j.progress) / j.rate
	if d < 0 {
		d = 0
	}
	if j.ft != nil {
		e.pushJobFault(j, left)
	}
	if e.cfg.Step {
		// The reference crosses an epoch only if it happens within the
		// interval, and then rounds the crossing time (half to even).
		if j.progress+j.rate*left < next {
			return nil
		}
		d = math.RoundToEven(d)
	} else if d > left {
		return nil
	}
	e.events.push(event{time: e.now + d, kind: evEpoch, job: j.idx, version: j.version})
	return nil
}

// tick runs one scheduling round.
func (e *engine) tick() error {
	e.ticks++
	if int64(e.ticks) > e.cfg.MaxRounds {
		return fmt.Errorf("simulation stopped at t=%v s after %d scheduling rounds of %v s, the engine's round limit: %d of %d jobs unfinished (use a longer round interval)",
			e.now, e.cfg.MaxRounds, e.cfg.Interval, len(e.jobs)-e.finished, len(e.jobs))
	}
	e.nextTick = e.cfg.Interval * float64(e.ticks+1)
	// Bring every job up to date; running jobs re-tune their batch, as the
	// agent does at the end of every interval.
	// A run decided incrementally visits only the jobs holding GPUs (and,
	// in decide, those that arrived or changed): the others wait, making no
	// progress, with nothing to refit or re-tune.
	active, visit := e.active, e.active
	if e.incremental != nil {
		visit = e.incremental.holding
		e.jobRounds += int64(len(e.incremental.added))
	}
	if err := e.catchUp(visit); err != nil {
		return err
	}
	if e.elastic != nil {
		if err := e.autoscale(active); err != nil {
			return err
		}
	}
	// With every node down (failures) there is nothing to decide.
	if len(active) > 0 && e.cfg.Cluster.Nodes > 0 {
		var err error
		if e.incremental != nil {
			err = e.decide()
		} else {
			err = e.schedule(active)
		}
		if err != nil {
			return err
		}
		if err := e.checkStall(); err != nil {
			return err
		}
	}
	if e.cfg.Observer != nil {
		e.cfg.Observer(e.now, e.finished, len(e.jobs))
	}
	e.events.push(event{time: e.nextTick, kind: evTick, job: -1})
	return nil
}

// catchUp brings the jobs of visit up to date before the policy is
// called: their due refits, their progress, and the batch of the running
// ones, which re-tune as the agent does at the end of every interval.
func (e *engine) catchUp(visit []*job) error {
	if err := e.resolveFits(visit); err != nil {
		return err
	}
	e.jobRounds += int64(len(visit))
	if e.jobRounds > e.cfg.MaxJobRounds {
		return fmt.Errorf("simulation stopped at t=%v s after %d job-rounds (active jobs summed over rounds), the engine's work limit: %d of %d jobs unfinished (is the cluster overloaded?%s)",
			e.now, e.jobRounds, len(e.jobs)-e.finished, len(e.jobs), incrementalHint(e.cfg, e.policy, "; "))
	}
	for _, j := range visit {
		j.advanceTo(e.now)
		if j.phase != phaseRunning {
			// No progress since the last round's check: the job has been
			// pending or restarting since then.
			continue
		}
		if next := j.app.Truth.Progress(j.epoch + 1); j.progress > next*(1+progressSlack)+progressAbsSlack && !e.cfg.Step {
			return fmt.Errorf("invariant violated: job %s passed its epoch %d boundary (progress %v > %v) without an event (t=%v)",
				j.spec.Name, j.epoch+1, j.progress, next, e.now)
		}
		if err := j.tune(e.traits.AdaptiveBatch); err != nil {
			return err
		}
	}
	return nil
}

// schedule calls the policy for the active jobs and applies its decision.
func (e *engine) schedule(active []*job) error {
	views := e.viewBuffer(len(active))
	for i, j := range active {
		j.view(&views[i], e.now, e.traits.NeedsOracle)
	}
	start := time.Now()
	dec := e.policy.Schedule(e.now, e.cfg.Cluster, views)
	wall := time.Since(start).Seconds()
	if err := policyErr(e.policy); err != nil {
		return err
	}
	if err := e.checkDecision(active, dec); err != nil {
		return err
	}
	if err := e.checkCaps(views, dec); err != nil {
		return err
	}
	for i, j := range active {
		if _, err := e.apply(j, dec.Alloc[i]); err != nil {
			return err
		}
	}
	e.applyInterference(active)
	for _, j := range active {
		if j.phase == phaseRunning {
			if err := e.startSegment(j); err != nil {
				return err
			}
		}
	}
	return e.rec.record(e.res, e.now, wall, active, len(active))
}

// policyErr is the fault of a policy whose rounds can fail
// (policies.Fallible), or nil.
func policyErr(p policies.Policy) error {
	if f, ok := p.(policies.Fallible); ok {
		return f.Err()
	}
	return nil
}

// apply gives job j the policy's allocation alloc (nil or all zeros: none)
// and reports whether that changed what it holds: a job losing its GPUs
// becomes pending; one getting new GPUs restarts on them.
func (e *engine) apply(j *job, alloc []int) (bool, error) {
	if sameSlice(alloc, j.alloc) {
		return false, nil // the job's own allocation, kept
	}
	if k := policies.Sum(alloc); k == 0 || k < e.minGPUs(j, alloc) {
		alloc = nil // too few GPUs for the job's memory: none (minGPUs)
	}
	if policies.Equal(alloc, j.alloc) {
		return false, nil
	}
	j.version++
	if alloc == nil {
		j.setAlloc(nil)
		if err := j.setPhase(phasePending, e.now); err != nil {
			return true, err
		}
		return true, j.tune(e.traits.AdaptiveBatch)
	}
	j.setAlloc(append([]int(nil), alloc...))
	j.net = e.cfg.network(alloc)
	if e.cfg.typed() {
		// A job holds one GPU type; a change of type is a restart
		// like any re-allocation, on the new type's tables.
		j.gtype = e.cfg.Cluster.AllocType(alloc)
		j.tapp = j.app.ForType(j.gtype)
		if err := j.fitError(j.agent.switchType(j.gtype)); err != nil {
			return true, err
		}
	}
	j.restarts++
	if j.restarts == 0 {
		j.firstStart = e.now
	}
	if err := j.tune(e.traits.AdaptiveBatch); err != nil {
		return true, err
	}
	if err := j.setPhase(phaseRestarting, e.now); err != nil {
		return true, err
	}
	e.events.push(event{time: e.now + e.cfg.restartDelay(j.spec.App), kind: evRestartDone, job: j.idx, version: j.version})
	return true, nil
}

// viewBuffer returns the reused buffer of n job views, dropping what the
// views beyond n referred to.
func (e *engine) viewBuffer(n int) []policies.Job {
	switch {
	case n > cap(e.views):
		e.views = make([]policies.Job, n, max(n, 2*cap(e.views)))
	case n < len(e.views):
		clear(e.views[n:])
	}
	e.views = e.views[:n]
	return e.views
}

// sameSlice reports whether a and b are the same slice (a policy that keeps
// a job's allocation may return the job's own).
func sameSlice(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// activate adds a submitted job to the active list, keeping workload
// order.
func (e *engine) activate(j *job) {
	i := sort.Search(len(e.active), func(i int) bool { return e.active[i].idx > j.idx })
	e.active = append(e.active, nil)
	copy(e.active[i+1:], e.active[i:])
	e.active[i] = j
	if e.incremental != nil {
		e.incremental.activate(j)
	}
}

// deactivate removes a finished job, still holding its GPUs, from the
// active list.
func (e *engine) deactivate(j *job) {
	i := sort.Search(len(e.active), func(i int) bool { return e.active[i].idx >= j.idx })
	if i < len(e.active) && e.active[i] == j {
		e.active = append(e.active[:i], e.active[i+1:]...)
	}
	if e.incremental != nil {
		e.incremental.deactivate(j)
	}
}

// applyInterference sets each job's slowdown: a multi-node job that shares
// a node with another multi-node job runs at (1 − Interference).
func (e *engine) applyInterference(active []*job) {
	if e.cfg.Interference == 0 {
		return
	}
	distributed := make([]int, e.cfg.Cluster.Nodes)
	for _, j := range active {
		if j.nodes > 1 {
			for n, v := range j.alloc {
				if v > 0 {
					distributed[n]++
				}
			}
		}
	}
	for _, j := range active {
		j.slowdown = 0
		if j.nodes > 1 {
			for n, v := range j.alloc {
				if v > 0 && distributed[n] > 1 {
					j.slowdown = e.cfg.Interference
					break
				}
			}
		}
	}
}

// checkDecision validates a policy's output before it is applied. Each
// allocation is read whole once (checkAlloc); the node capacities are
// then summed over the nodes that hold GPUs only, so a round costs the
// allocations' length once rather than once per check.
func (e *engine) checkDecision(active []*job, dec policies.Decision) error {
	if len(dec.Alloc) != len(active) {
		return fmt.Errorf("policy %s returned %d allocations for %d jobs at t=%v", e.policy.Name(), len(dec.Alloc), len(active), e.now)
	}
	if len(e.used) != e.cfg.Cluster.Nodes {
		e.used = make([]int, e.cfg.Cluster.Nodes)
	}
	defer e.clearUsed()
	for i, a := range dec.Alloc {
		if a == nil {
			continue
		}
		if err := e.checkAlloc(active[i], a); err != nil {
			return err
		}
		for _, n := range e.holds {
			v := a[n]
			if e.used[n] == 0 {
				e.usedOn = append(e.usedOn, n)
			}
			e.used[n] += v
			if e.used[n] > e.cfg.Cluster.NodeGPUs(n) {
				// Name the job whose GPUs are one too many.
				return fmt.Errorf("invariant violated: policy %s put %d GPUs on node %d, which has %d, when it gave job %s %d there (t=%v)",
					e.policy.Name(), e.used[n], n, e.cfg.Cluster.NodeGPUs(n), active[i].spec.Name, v, e.now)
			}
		}
	}
	return nil
}

// clearUsed zeroes checkDecision's per-node sums on the nodes it touched.
func (e *engine) clearUsed() {
	for _, n := range e.usedOn {
		e.used[n] = 0
	}
	e.usedOn = e.usedOn[:0]
}

// checkAlloc validates one job's allocation a (not nil): one entry per
// node, none negative, GPUs of one type the job may use, and exactly its
// request under a policy that runs jobs on their request. It leaves in
// e.holds the nodes where a holds GPUs, ascending.
func (e *engine) checkAlloc(j *job, a []int) error {
	c := e.cfg.Cluster
	e.holds = e.holds[:0]
	if len(a) != c.Nodes {
		return fmt.Errorf("policy %s gave job %s an allocation over %d nodes, the cluster has %d (t=%v)",
			e.policy.Name(), j.spec.Name, len(a), c.Nodes, e.now)
	}
	k := 0
	for n, v := range a {
		if v < 0 {
			return fmt.Errorf("policy %s gave job %s %d GPUs on node %d (t=%v)", e.policy.Name(), j.spec.Name, v, n, e.now)
		}
		if v > 0 {
			e.holds = append(e.holds, n)
			k += v
		}
	}
	if e.cfg.typed() && k > 0 {
		if err := e.checkTypedAlloc(j, c.NodesType(e.holds)); err != nil {
			return err
		}
	}
	if e.traits.UserGPUs && k != 0 && k != j.spec.Replicas {
		return fmt.Errorf("policy %s gave job %s %d GPUs, it asked for exactly %d (t=%v)",
			e.policy.Name(), j.spec.Name, k, j.spec.Replicas, e.now)
	}
	return nil
}

// checkUsed checks the GPUs held on each node against its size.
func (e *engine) checkUsed(used []int) error {
	c := e.cfg.Cluster
	for n, u := range used {
		if u > c.NodeGPUs(n) {
			return fmt.Errorf("invariant violated: policy %s put %d GPUs on node %d, which has %d (t=%v)",
				e.policy.Name(), u, n, c.NodeGPUs(n), e.now)
		}
	}
	return nil
}

// firstUnfinished describes the first active job in workload order (empty
// if none), for errors about jobs that do not finish.
func (e *engine) firstUnfinished() string {
	if len(e.active) == 0 {
		return ""
	}
	j := e.active[0]
	return fmt.Sprintf(", the first %s (%s, %s, epoch %d of %d, %d GPUs)", j.spec.Name, j.spec.App, j.phase, j.epoch, j.app.Epochs, j.gpus)
}
