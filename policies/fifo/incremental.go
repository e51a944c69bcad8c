package fifo

import (
	"github.com/polluxsim/polluxsim/policies"
)

var _ policies.Incremental = (*Policy)(nil)

// ScheduleIncremental implements policies.Incremental: Schedule's decision,
// found by a walk over the jobs in key order that stops at the first waiting
// job that does not fit, past only the running jobs before it. Running jobs
// keep their GPUs (FIFO never preempts), so the changes are the jobs started.
func (p *Policy) ScheduleIncremental(_ float64, c policies.Cluster, r policies.IncrementalRound) []policies.Change {
	p.order.Apply(r)
	if p.held == nil {
		p.held = map[int64]*policies.Job{}
	}
	for _, k := range r.Removed {
		delete(p.held, k)
	}
	for _, t := range r.Added {
		if policies.Sum(t.Job.Alloc) > 0 {
			p.held[t.Key] = t.Job // placed before the policy knew it
		}
	}
	allocs := make([][]int, 0, len(p.held))
	for _, j := range p.held {
		allocs = append(allocs, j.Alloc)
	}
	free := policies.FreeGPUs(c, allocs)
	var changes []policies.Change
	for t := range p.order.All() {
		if policies.Sum(t.Job.Alloc) > 0 {
			continue
		}
		a := policies.PlaceJob(c, free, t.Job.Request.GPUs, t.Job)
		if a == nil {
			break
		}
		changes = append(changes, policies.Change{Key: t.Key, Alloc: a})
		p.held[t.Key] = t.Job
	}
	return changes
}
