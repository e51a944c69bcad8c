package optimus

import (
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

var _ policies.Incremental = (*Policy)(nil)

// inc is the policy's state when driven by Decide: the tracked jobs in key
// order and the keys holding GPUs after the last decision.
type inc struct {
	order  policies.JobOrder
	held   []int64
	prefix []policies.Tracked // scratch
	buf    []policies.Job
}

// Decide implements policies.Incremental. Schedule gives a first GPU to
// the jobs in input order while GPUs last and the rest only to jobs that
// have one, so its decision for the first TotalGPUs jobs does not depend
// on the others, which get none: Decide runs Schedule on that prefix and
// takes the GPUs of any job behind it that held some (possible only when
// a job arrives out of key order).
func (p *Policy) Decide(now float64, c policies.Cluster, r policies.Round) []policies.Change {
	s := &p.inc
	s.order.Apply(r)
	for _, t := range r.Added {
		if policies.Sum(t.Job.Alloc) > 0 {
			s.held = append(s.held, t.Key) // placed before the policy knew it
		}
	}
	prefix := s.prefix[:0]
	for t := range s.order.All() {
		if len(prefix) == c.TotalGPUs() {
			break
		}
		prefix = append(prefix, t)
	}
	s.prefix = prefix
	s.buf = s.buf[:0]
	for _, t := range prefix {
		s.buf = append(s.buf, *t.Job)
	}
	dec := p.Schedule(now, c, s.buf)
	clear(s.buf) // drop references to the views
	var changes []policies.Change
	held := make([]int64, 0, len(s.held))
	for i, t := range prefix {
		a := dec.Alloc[i]
		if policies.Sum(a) > 0 {
			held = append(held, t.Key)
		}
		if !policies.Equal(a, t.Job.Alloc) {
			changes = append(changes, policies.Change{Key: t.Key, Alloc: a})
		}
	}
	// Jobs behind the prefix that held GPUs lose them (those that finished
	// are no longer tracked).
	if len(prefix) == c.TotalGPUs() && len(prefix) > 0 {
		last := prefix[len(prefix)-1].Key
		for _, k := range s.held {
			if k > last && s.order.Has(k) {
				changes = append(changes, policies.Change{Key: k})
			}
		}
	}
	clear(prefix)
	s.held = slices.Clip(held)
	return changes
}
