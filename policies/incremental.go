package policies

import (
	"cmp"
	"iter"
	"slices"
)

// Incremental is an optional interface of a policy that can decide a round
// from what changed since its previous round, at a cost that follows the
// jobs holding GPUs (and the few it starts) rather than every active job.
// On an overloaded cluster thousands of jobs wait; under Schedule each of
// them is presented, and answered, every round.
//
// "Incremental" is the one word for this throughout: the interface, its
// method ScheduleIncremental, its input IncrementalRound, the simulator's
// test sim.Incremental of whether a run is decided this way, and the
// conformance rule RuleIncremental.
//
// ScheduleIncremental must make exactly the decisions Schedule would on
// the same rounds: started from a fresh instance with the same options,
// fed the same jobs, the allocations after each round are the same. The
// conformance suite checks this (RuleIncremental), and the simulator's
// tests compare whole runs of both kinds. An instance is driven either by
// Schedule or by ScheduleIncremental, never both.
//
// The caller keeps one view (a Job) per tracked job, from the round it is
// added until the round it is removed, and updates it in place:
//
//   - a job holding GPUs has its view brought up to date before every
//     ScheduleIncremental (all fields);
//   - a job without GPUs has the view it had when it was added or lost its
//     GPUs. Nothing a waiting job has changes while it waits except its Age,
//     which is then stale: a policy wanting it computes now − Submit.
//
// A policy may keep the pointers; it must not modify the views.
type Incremental interface {
	Policy
	// ScheduleIncremental decides one round at time now. r tells which
	// jobs became active and which finished since the previous call; the
	// result lists the jobs whose allocation changes, each at most once,
	// with its new allocation (nil: no GPUs). A job not listed keeps what
	// it holds.
	ScheduleIncremental(now float64, cluster Cluster, r IncrementalRound) []Change
}

// IncrementalRound is what changed since an incremental policy's previous
// round.
type IncrementalRound struct {
	// Added are the jobs that became active, in increasing Key.
	Added []Tracked
	// Removed are the keys of tracked jobs that finished.
	Removed []int64
}

// Tracked is a job handed to an incremental policy: Key identifies it in
// Removed and Change and orders it, as Schedule's input would list it (in
// increasing Key; the simulator uses the job's place in the workload). Job
// is the caller's view of it (see Incremental).
type Tracked struct {
	Key int64
	Job *Job
}

// Change is a job's new allocation in an incremental round: GPUs per node
// (length Cluster.Nodes), or nil for none.
type Change struct {
	Key   int64
	Alloc []int
}

// JobOrder is the tracked jobs of an incremental policy in key order (the
// order of Schedule's input), kept from its rounds. A finished job leaves
// a gap that is closed when enough have gathered, so that a job finishing
// in the middle of a long queue does not move the rest.
type JobOrder struct {
	jobs []Tracked // in key order; Job nil for a finished job not yet dropped
	gaps int
}

// maxGaps is the most finished jobs JobOrder keeps in its list.
const maxGaps = 64

// Apply removes the round's finished jobs and adds its new ones.
func (o *JobOrder) Apply(r IncrementalRound) {
	for _, k := range r.Removed {
		if i, ok := o.index(k); ok && o.jobs[i].Job != nil {
			o.jobs[i].Job = nil
			o.gaps++
		}
	}
	if o.gaps > maxGaps {
		o.jobs = slices.DeleteFunc(o.jobs, func(t Tracked) bool { return t.Job == nil })
		o.gaps = 0
	}
	for _, t := range r.Added {
		i, ok := o.index(t.Key)
		if ok && o.jobs[i].Job == nil {
			o.jobs[i] = t
			o.gaps--
			continue
		}
		o.jobs = slices.Insert(o.jobs, i, t)
	}
}

// All yields the tracked jobs in key order.
func (o *JobOrder) All() iter.Seq[Tracked] {
	return func(yield func(Tracked) bool) {
		for _, t := range o.jobs {
			if t.Job != nil && !yield(t) {
				return
			}
		}
	}
}

// Has reports whether key is tracked.
func (o *JobOrder) Has(key int64) bool {
	i, ok := o.index(key)
	return ok && o.jobs[i].Job != nil
}

// index returns the position of key in the list and whether it is there
// (if not, where it would go).
func (o *JobOrder) index(key int64) (int, bool) {
	return slices.BinarySearchFunc(o.jobs, key, func(t Tracked, k int64) int { return cmp.Compare(t.Key, k) })
}
