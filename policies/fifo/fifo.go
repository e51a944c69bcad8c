// Package fifo implements first-in-first-out scheduling, the simplest
// example of the policies.Policy interface: jobs run in arrival order with
// the GPUs their users asked for; a job that does not fit waits, and so do
// all jobs behind it (no backfilling). Running jobs are never preempted.
package fifo

import "github.com/polluxsim/polluxsim/policies"

// Policy is a FIFO scheduler. It keeps no state between Schedule calls; driven
// by ScheduleIncremental, it keeps the jobs in order and those holding GPUs.
type Policy struct {
	order policies.JobOrder
	held  map[int64]*policies.Job
}

// New returns a FIFO policy.
func New() *Policy { return &Policy{} }

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user GPUs and batch sizes.
func (*Policy) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// Schedule implements policies.Policy. Jobs arrive sorted by submission
// time; running jobs keep their GPUs, then waiting jobs start in order
// while the head of the queue fits.
func (*Policy) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	alloc := make([][]int, len(jobs))
	for i := range jobs {
		if policies.Sum(jobs[i].Alloc) > 0 {
			alloc[i] = append([]int(nil), jobs[i].Alloc...)
		}
	}
	free := policies.FreeGPUs(c, alloc)
	for i := range jobs {
		if alloc[i] != nil {
			continue
		}
		a := policies.PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i])
		if a == nil {
			break
		}
		alloc[i] = a
	}
	return policies.Decision{Alloc: alloc}
}
