package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/polluxsim/polluxsim/faults"
	"github.com/polluxsim/polluxsim/policies"
)

// This file holds the engine's side of failures (Config.Failures): nodes
// that go down and come back, jobs that lose the work since their last
// checkpoint, and the checkpoints themselves. A run without a fault model
// takes none of these paths.
//
// The cluster the policy sees holds the nodes that are up: a node that
// fails leaves it (the nodes after it move down one place, as when an
// elastic cluster releases a node) and a repaired node comes back at its
// end. The engine keeps which physical node each place is.
//
// Checkpoints are spread over the work: a job that checkpoints every τ
// seconds of work at a cost of C seconds runs at τ/(τ+C) of its speed, and
// its last checkpoint is the progress it had at the last multiple of τ+C
// seconds of running since its (re)start. A failure takes it back there:
// on average half an interval of work is lost per failure, as in the
// closed forms (faults.ETTR). A re-allocation or preemption by the policy
// checkpoints first and loses nothing.

// JobFaults are one job's figures under failures.
type JobFaults struct {
	// Interruptions counts the failures of nodes the job held.
	Interruptions int `json:"interruptions"`
	// LostGPUSeconds is the GPU time of work lost to failures (redone).
	LostGPUSeconds float64 `json:"lost_gpu_seconds"`
	// CheckpointGPUSeconds is the GPU time spent writing checkpoints.
	CheckpointGPUSeconds float64 `json:"checkpoint_gpu_seconds"`
	// ETTR is the effective training time ratio: running time whose work
	// was kept, less checkpoints, over the time from first start to finish.
	ETTR float64 `json:"ettr"`
}

// FaultSummary is a run's figures under failures.
type FaultSummary struct {
	// NodeFailures counts nodes going down.
	NodeFailures int `json:"node_failures"`
	// Interruptions counts job interruptions (a job on several failed
	// nodes at once counts one).
	Interruptions int `json:"interruptions"`
	// LostGPUHours and CheckpointGPUHours sum the jobs' figures.
	LostGPUHours       float64 `json:"lost_gpu_hours"`
	CheckpointGPUHours float64 `json:"checkpoint_gpu_hours"`
	// Availability is the share of node time up, from the start of the
	// run to its end.
	Availability float64 `json:"node_availability"`
	// AvgETTR is the mean of the jobs' ETTR.
	AvgETTR float64 `json:"avg_ettr"`
}

// jobFaults is a job's book under failures.
type jobFaults struct {
	JobFaults
	tau, cost float64 // the current interval and checkpoint cost (τ = +Inf: none)
	// cyc is the running time since the last checkpoint or restart, and
	// ckProgress the progress at that point.
	cyc, ckProgress float64
	useful          float64 // running seconds whose work was kept, checkpoints out
	// budget is the running time left before the job's own next failure,
	// drawn from rng (nil: no failures of its own).
	budget float64
	rng    *rand.Rand
}

// share is the part of running time that does work (the rest writes
// checkpoints).
func (f *jobFaults) share() float64 {
	if math.IsInf(f.tau, 1) {
		return 1
	}
	return f.tau / (f.tau + f.cost)
}

// run accounts dt seconds of running at rate, ending at progress.
func (f *jobFaults) run(dt, rate, progress float64, gpus int) {
	s := f.share()
	f.useful += dt * s
	f.CheckpointGPUSeconds += float64(gpus) * dt * (1 - s)
	f.cyc += dt
	f.budget -= dt
	if w := f.tau + f.cost; f.cyc >= w {
		f.cyc -= math.Floor(f.cyc/w) * w
		f.ckProgress = progress - rate*f.cyc
	}
}

// faultState is the engine's book of a run with failures.
type faultState struct {
	model  *faults.Model
	stream *faults.Stream
	// view is which machine each node of the cluster the policy sees is,
	// and the state of every machine.
	view *faultView
	// down counts the nodes down, downSec integrates it up to last.
	down          int
	downSec, last float64
	nodeFailures  int
	interruptions int
	// replans counts the rounds called at once after a failure
	// (Model.Replan).
	replans int
}

// startFaults sets up a run's failures on cluster full (the cluster
// given, spares included; e.cfg.Cluster is the part in service): the
// fault stream and each job's book, and refuses what it cannot run.
func (e *engine) startFaults(full policies.Cluster) error {
	m := e.cfg.Failures
	machines := full.Nodes
	switch {
	case m.Replan && e.cfg.Step:
		return fmt.Errorf("--failures replan=now needs exact event times (not --step, whose rounds are whole intervals)")
	case e.cfg.Elastic != nil && m.Spares > 0:
		return fmt.Errorf("--failures spares=%d on an elastic cluster: the autoscaler orders nodes, none is held back", m.Spares)
	case e.cfg.Elastic != nil:
		// Every machine the cluster may hold fails and is repaired
		// whether the cluster holds it or not.
		machines = e.cfg.Elastic.MaxNodes
	}
	v := newFaultView(full, machines, m.Spares, e.cfg.Elastic != nil)
	// The run's seed and the workload's name: the same faults for every
	// policy on a workload, other faults on another workload.
	h := fnv.New64a()
	h.Write([]byte(e.res.Workload))
	seed := e.cfg.FaultSeed ^ h.Sum64()
	s, err := faults.NewStream(m, v.types, seed)
	if err != nil {
		return err
	}
	e.failures = &faultState{model: m, stream: s, view: v}
	for _, j := range e.jobs {
		if err := e.checkJobProgress(j, full); err != nil {
			return err
		}
		j.ft = &jobFaults{tau: math.Inf(1)}
		if m.JobFailRate > 0 {
			// The job's own stream: the same failures, in its running
			// time, whatever the policy does.
			h := fnv.New64a()
			h.Write([]byte(j.spec.Name))
			j.ft.rng = rand.New(rand.NewPCG(seed, h.Sum64()))
			j.ft.budget = j.ft.rng.ExpFloat64() / (m.JobFailRate / faults.Day)
		}
	}
	e.pushFault()
	return nil
}

// checkJobProgress refuses a model under which job j cannot be expected
// to get through its restart on the fewest nodes it can run on (one, or
// its request's under a policy that runs jobs on their request), on the
// GPU type where it fails least.
func (e *engine) checkJobProgress(j *job, full policies.Cluster) error {
	m := e.cfg.Failures
	restart := e.cfg.restartDelay(j.spec.App)
	pools := full.Pools
	if len(pools) == 0 {
		pools = []policies.Pool{{Type: full.NodeType(0), Nodes: full.Nodes, GPUsPerNode: full.GPUsPerNode}}
	}
	var first error
	for i, p := range pools {
		if len(full.Pools) > 0 && !slices.Contains(j.types, p.Type) {
			continue
		}
		need := 1
		if e.traits.UserGPUs {
			need = (j.spec.Replicas + p.GPUsPerNode - 1) / p.GPUsPerNode
		}
		if need > p.Nodes {
			continue
		}
		start := 0
		for _, q := range pools[:i] {
			start += q.Nodes
		}
		nodes, types := make([]int, need), make([]string, need)
		for k := range nodes {
			nodes[k], types[k] = start+k, p.Type
		}
		err := m.CheckProgress(j.spec.Name, nodes, types, restart)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// pushFault schedules the stream's next change, if any.
func (e *engine) pushFault() {
	if t := e.failures.stream.Next(); t <= e.cfg.MaxTime {
		e.events.push(event{time: t, kind: evFault, job: -1})
	}
}

// fault applies the fault stream's next change.
func (e *engine) fault() error {
	fs := e.failures
	tr := fs.stream.Pop()
	fs.downSec += float64(fs.down) * (e.now - fs.last)
	fs.last = e.now
	fs.down += len(tr.Down) - len(tr.Up)
	fs.nodeFailures += len(tr.Down)
	if n := len(e.res.NodesDown); n > 0 && e.res.NodesDown[n-1].Time == e.now {
		e.res.NodesDown[n-1].Nodes = fs.down
	} else {
		e.res.NodesDown = append(e.res.NodesDown, NodesDown{e.now, fs.down})
	}
	hit := false
	if len(tr.Down) > 0 {
		next, lost := fs.view.goDown(tr.Down)
		for _, j := range e.active {
			for n, v := range j.alloc {
				if v > 0 && lost[n] {
					if err := e.interrupt(j); err != nil {
						return err
					}
					hit = true
					break
				}
			}
		}
		if err := e.remap(next); err != nil {
			return err
		}
	}
	if len(tr.Up) > 0 {
		if err := e.remap(fs.view.comeUp(tr.Up)); err != nil {
			return err
		}
	}
	e.pushFault()
	if hit {
		return e.replan()
	}
	return nil
}

// replan, under Model.Replan, calls the policy at once after a failure
// interrupted a job: a round of its own at the failure's time, which
// brings the active jobs up to date as a scheduling round does (refits,
// progress, batch) and is recorded as one; the scheduling rounds keep
// their times, the autoscaler is consulted only at those. Without
// Model.Replan the interrupted jobs wait for the next scheduling round.
func (e *engine) replan() error {
	if !e.failures.model.Replan || len(e.active) == 0 || e.cfg.Cluster.Nodes == 0 {
		return nil
	}
	e.failures.replans++
	if err := e.catchUp(e.active); err != nil {
		return err
	}
	return e.schedule(e.active)
}

// pushJobFault schedules running job j's own next failure if it falls
// within left seconds (before the next round, which starts a new segment).
func (e *engine) pushJobFault(j *job, left float64) {
	if f := j.ft; f.rng != nil && f.budget < left {
		e.events.push(event{time: e.now + math.Max(f.budget, 0), kind: evJobFault, job: j.idx, version: j.version})
	}
}

// jobFault fails running job j by a fault of its own: it loses the work
// since its last checkpoint and its GPUs, as on a node failure; its nodes
// stay up.
func (e *engine) jobFault(j *job) error {
	if err := e.interrupt(j); err != nil {
		return err
	}
	j.ft.budget = j.ft.rng.ExpFloat64() / (e.failures.model.JobFailRate / faults.Day)
	return e.replan()
}

// interrupt fails job j, which holds a node that went down: it loses the
// work since its last checkpoint and its GPUs, and waits for the policy to
// place it again (paying the restart delay then).
func (e *engine) interrupt(j *job) error {
	j.advanceTo(e.now)
	f := j.ft
	f.Interruptions++
	e.failures.interruptions++
	if j.phase == phaseRunning {
		back := math.Min(f.ckProgress, j.progress)
		j.progress = back
		for j.epoch > 0 && j.app.Truth.Progress(j.epoch) > back {
			j.epoch--
		}
		s := f.share()
		f.useful -= f.cyc * s
		f.CheckpointGPUSeconds -= float64(j.gpus) * f.cyc * (1 - s)
		f.LostGPUSeconds += float64(j.gpus) * f.cyc
		f.cyc = 0
	}
	j.version++
	j.setAlloc(nil)
	if err := j.setPhase(phasePending, e.now); err != nil {
		return err
	}
	return j.tune(e.traits.AdaptiveBatch)
}

// resumeFaults starts job j's checkpoint cycle as it (re)starts running on
// its current nodes: the interval for the nodes' failure rate, the
// progress it restarts from as its last checkpoint.
func (e *engine) resumeFaults(j *job) {
	f := j.ft
	fs := e.failures
	var nodes []int
	var types []string
	for n, v := range j.alloc {
		if v > 0 {
			m := fs.view.phys[n]
			nodes = append(nodes, m)
			types = append(types, fs.view.types[m])
		}
	}
	ck := fs.model.Checkpoint
	f.tau, f.cost = ck.For(fs.model.JobRate(nodes, types)), ck.Cost
	if math.IsInf(f.tau, 1) {
		f.cost = 0
	}
	f.cyc, f.ckProgress = 0, j.progress
}

// finishFaults fills in the run's and the jobs' figures under failures.
func (e *engine) finishFaults() {
	fs := e.failures
	if fs == nil {
		return
	}
	fs.downSec += float64(fs.down) * (e.now - fs.last)
	sum := &FaultSummary{NodeFailures: fs.nodeFailures, Interruptions: fs.interruptions}
	if e.now > 0 {
		sum.Availability = 1 - fs.downSec/(float64(len(fs.view.types))*e.now)
	} else {
		sum.Availability = 1
	}
	for i, j := range e.jobs {
		f := j.ft.JobFaults
		if wall := j.finish - j.firstStart; wall > 0 {
			f.ETTR = j.ft.useful / wall
		}
		sum.LostGPUHours += f.LostGPUSeconds / 3600
		sum.CheckpointGPUHours += f.CheckpointGPUSeconds / 3600
		sum.AvgETTR += f.ETTR / float64(len(e.jobs))
		e.res.Jobs[i].Faults = &f
	}
	e.res.Summary.Faults = sum
}
