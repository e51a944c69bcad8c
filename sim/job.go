package sim

import (
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// phase is a job's state machine: future → pending ⇄ (restarting → running)
// → done. A pending job holds no GPUs; a restarting one holds GPUs but
// makes no progress until its restart delay has passed.
type phase int

const (
	phaseFuture phase = iota // not yet submitted
	phasePending
	phaseRestarting
	phaseRunning
	phaseDone
	// phaseDeclined: the policy declined the job at its submission
	// (policies.Admitter); it never runs.
	phaseDeclined
)

func (p phase) String() string {
	return [...]string{"future", "pending", "restarting", "running", "done", "declined"}[p]
}

// nPhases is the number of phases.
const nPhases = int(phaseDeclined) + 1

// transitions[from][to] says whether a job may change from phase from to
// phase to: it is submitted (future → pending), gets GPUs and restarts
// (pending → restarting) or is declined at its submission (future →
// declined, policies.Admitter), is re-allocated (running or restarting →
// restarting), finishes its restart (restarting → running), loses its
// GPUs (restarting or running → pending) or completes (running → done).
var transitions = [nPhases][nPhases]bool{
	phaseFuture:     {phasePending: true, phaseDeclined: true},
	phasePending:    {phaseRestarting: true},
	phaseRestarting: {phasePending: true, phaseRestarting: true, phaseRunning: true},
	phaseRunning:    {phasePending: true, phaseRestarting: true, phaseDone: true},
}

// setPhase changes the job's phase; a change the transitions table does
// not allow is an error naming the job and both phases.
func (j *job) setPhase(to phase, now float64) error {
	if !transitions[j.phase][to] {
		return fmt.Errorf("invariant violated: job %s (job %d) cannot go from phase %s to %s (t=%v)",
			j.spec.Name, j.line, j.phase, to, now)
	}
	j.phase = to
	return nil
}

type job struct {
	idx  int
	spec traces.Job
	app  *profiles.App
	// line is the job's 1-based position in the workload, for messages.
	line int
	// rigid: the policy does not size jobs with a memory floor itself
	// (not policies.Traits.SizesLLMJobs): such a job runs on its request.
	rigid bool

	phase     phase
	alloc     []int // GPUs per node; nil when none
	placement []int // the non-zero entries of alloc, in node order
	// net is where the placement's nodes sit in a two-tier network (the
	// zero Network on one tier or one rack).
	net   profiles.Network
	nodes int
	gpus  int
	local int // per-GPU batch m
	accum int // accumulation steps s
	batch int // total batch M

	progress float64
	epoch    int
	last     float64 // time up to which progress and counters are accounted
	rate     float64 // progress per second while running
	slowdown float64 // interference slowdown applied to rate
	version  int     // bumped whenever pending events become stale

	restarts   int // -1 before the first start
	attained   float64
	firstStart float64
	finish     float64
	// declined is the reason the policy declined the job (phaseDeclined).
	declined string

	// time-weighted sums over running time, for mean batch and efficiency
	runTime, batchSum, effSum float64
	// the current segment's true statistical efficiency
	eff float64

	agent agent
	// oracle is the truth oracle policies see this round (Traits.NeedsOracle).
	oracle jobOracle
	// lastRec is the state of the job's last round record (RoundsChanges).
	lastRec recKey
	// open is the job's last round record while its duration is unknown.
	open openRecord
	// pv is the job's view kept for a policy deciding incrementally.
	pv policies.Job
	// pm is the true performance of the job's configuration (perf).
	pm perfMemo

	// On a cluster of pools: the GPU types the job may use, the type and
	// profile of its current (or last) allocation, and GPU-seconds per type.
	types   []string
	gtype   string
	tapp    *profiles.App
	typeSec map[string]float64

	// ft is the job's book under failures (nil: no fault model).
	ft *jobFaults
}

// on is the job's profile on the GPU type it holds (or last held): its
// type's tables on a cluster of pools, the application's own otherwise.
func (j *job) on() *profiles.App {
	if j.tapp != nil {
		return j.tapp
	}
	return j.app
}

func (j *job) target() float64 { return j.app.Target() }

// perfMemo is a job's true performance and the configuration it is of.
type perfMemo struct {
	app                 *profiles.App
	alloc               *int // the allocation's first element: its identity
	local, accum, epoch int
	pf                  profiles.Perf
}

// perf is the true performance of the job's configuration on the GPUs it
// holds (profiles.App.Perf), remembered while the configuration is the
// same: the engine asks for it every round for every running job. An
// installed allocation is never changed in place (setAlloc installs a new
// slice), so its first element identifies it.
func (j *job) perf() profiles.Perf {
	var a *int
	if len(j.alloc) > 0 {
		a = &j.alloc[0]
	}
	m := &j.pm
	if m.app != j.on() || m.alloc != a || m.local != j.local || m.accum != j.accum || m.epoch != j.epoch {
		*m = perfMemo{app: j.on(), alloc: a, local: j.local, accum: j.accum, epoch: j.epoch,
			pf: j.on().PerfAcross(j.placement, j.net, j.local, j.accum, j.epoch)}
	}
	return m.pf
}

// advanceTo brings progress and counters up to time t.
func (j *job) advanceTo(t float64) {
	dt := t - j.last
	if dt <= 0 {
		j.last = math.Max(j.last, t)
		return
	}
	if j.gpus > 0 && (j.phase == phaseRunning || j.phase == phaseRestarting) {
		j.attained += float64(j.gpus) * dt
		if j.typeSec != nil {
			j.typeSec[j.gtype] += float64(j.gpus) * dt
		}
	}
	if j.phase == phaseRunning {
		j.progress += j.rate * dt
		j.runTime += dt
		j.batchSum += float64(j.batch) * dt
		j.effSum += j.eff * dt
		if j.ft != nil {
			j.ft.run(dt, j.rate, j.progress, j.gpus)
		}
	}
	j.last = t
}

// setAlloc installs a new allocation (nil for none).
func (j *job) setAlloc(alloc []int) {
	j.alloc = alloc
	j.net = profiles.Network{}
	j.placement = j.placement[:0]
	j.nodes, j.gpus = 0, 0
	for _, v := range alloc {
		if v > 0 {
			j.placement = append(j.placement, v)
			j.nodes++
			j.gpus += v
		}
	}
	if j.gpus == 0 {
		j.alloc = nil
	}
}

// tune picks the per-GPU batch and accumulation steps for the current
// allocation, as the job's agent would: the user's batch under
// non-adaptive policies or for fixed-batch applications, the
// goodput-optimal configuration from the fitted model otherwise (before any
// observation: M0, or the smallest batch the GPUs can hold).
func (j *job) tune(adaptive bool) error {
	if j.gpus == 0 {
		j.local, j.accum, j.batch = 0, 0, 0
		return nil
	}
	if err := j.resolveFits(); err != nil {
		return err
	}
	lim := j.on().Limits
	j.local, j.accum, j.batch = policies.ConfigureWith(adaptive, j.spec.Batch, j.app.FixedBatch, j.agent.params != nil, lim, j.gpus,
		func() models.Config { return j.agent.best(lim, j.nodes, j.gpus) })
	return nil
}

// resolveFits runs the job's due refits (see agent).
func (j *job) resolveFits() error {
	return j.fitError(j.agent.resolve())
}

// fitError names the job in an error of its agent's fits (nil stays nil).
func (j *job) fitError(err error) error {
	if err != nil {
		return fmt.Errorf("job %s: fitting its throughput model: %w", j.spec.Name, err)
	}
	return nil
}

// view fills v with the policy's view of the job. v.Alloc is the job's
// own allocation, not a copy: the engine never changes an installed
// allocation in place (setAlloc installs a fresh slice), and policies must
// not modify their input. The oracle, when given, is the job's own
// (updated here each round), so building a view allocates nothing on a
// cluster of one GPU type.
func (j *job) view(v *policies.Job, now float64, oracle bool) {
	*v = policies.Job{
		Name:        j.spec.Name,
		App:         j.spec.App,
		Submit:      j.spec.Time,
		Deadline:    j.spec.DueAt(),
		Age:         now - j.spec.Time,
		Restarts:    max(j.restarts, 0),
		Attained:    j.attained,
		Alloc:       j.alloc,
		Request:     policies.Request{GPUs: j.spec.Replicas, Batch: j.spec.Batch},
		Limits:      j.on().Limits,
		FixedBatch:  j.app.FixedBatch,
		MaxGPUs:     j.app.MaxGPUs,
		MinGPUs:     j.viewFloor(),
		NodeUnit:    j.on().NodeGPUs,
		MaxSeenGPUs: j.agent.maxGPUs,
		Params:      j.agent.params,
		Grad:        j.agent.grad,
		Epoch:       j.epoch,
	}
	if j.rigid && v.MinGPUs > 0 {
		v.MaxGPUs = v.MinGPUs // rigid at its request (see floor)
	}
	if j.ft != nil {
		v.Interruptions = j.ft.Interruptions
	}
	if oracle {
		j.oracle = jobOracle{app: j.on(), base: j.app, epoch: j.epoch, progress: j.progress}
		v.Oracle = &j.oracle
	}
	if j.types != nil {
		v.Types = append([]string(nil), j.types...)
		if j.agent.boot != nil {
			v.TypeModels = j.typeModels()
		}
	}
}

// jobOracle gives oracle policies the truth about one job: its
// application's measured profile and, for remaining work, its progress
// when the round began.
type jobOracle struct {
	app      *profiles.App
	base     *profiles.App // the application's profile of every GPU type
	epoch    int
	progress float64
}

var _ policies.Oracle = (*jobOracle)(nil)

// Epochs implements policies.Oracle.
func (o jobOracle) Epochs() int { return o.app.Epochs }

// Iterations implements policies.Oracle.
func (o jobOracle) Iterations(batch, epoch int) float64 {
	return o.app.Truth.Iterations(float64(batch), epoch)
}

// IterTime implements policies.Oracle.
func (o jobOracle) IterTime(placement []int, local float64, accum int) float64 {
	t, _, _ := o.app.IterTime(placement, local, accum)
	return t
}

// StepTime implements policies.Oracle.
func (o jobOracle) StepTime(placement []int, local float64) (step, sync float64) {
	_, step, sync = o.app.IterTime(placement, local, 0)
	return step, sync
}

// CompletionEpoch implements policies.Oracle: the last of the
// application's epochs, at any batch size (the engine ends a job when its
// progress reaches the end of epoch Epochs − 1).
func (o jobOracle) CompletionEpoch(int) int { return o.app.Epochs - 1 }

// TypeIterTime implements policies.Oracle.
func (o jobOracle) TypeIterTime(t string, placement []int, batch int) (float64, bool) {
	a := o.base.ForType(t)
	if a == nil {
		return 0, false
	}
	m, s, _ := a.Limits.Split(policies.Sum(placement), float64(batch))
	it, _, _ := a.IterTime(placement, float64(max(m, 1)), s)
	return it, it > 0
}

// RemainingIterations implements policies.Oracle.
func (o jobOracle) RemainingIterations(batch int) float64 {
	return o.app.RemainingIterations(float64(batch), o.epoch, o.progress)
}

// release drops what a finished job no longer needs (its agent's
// observations), so that memory follows the active jobs.
func (j *job) release() {
	j.agent.obs, j.agent.seen, j.agent.params, j.agent.pending = nil, nil, nil, nil
	if t := j.agent.task; t != nil {
		t.cancel() // a finished job's refits are not needed
	}
	j.agent.planner, j.agent.other, j.agent.boot, j.agent.task = nil, nil, nil, nil
	j.alloc, j.placement, j.net = nil, nil, profiles.Network{}
	j.pm = perfMemo{}
}
