package optimus

import (
	"cmp"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

var _ policies.Incremental = (*Policy)(nil)

// inc is the policy's state when driven by ScheduleIncremental: the tracked
// jobs in key order, the keys holding GPUs after the last decision, and what
// that decision was made from.
type inc struct {
	order  policies.JobOrder
	held   []int64
	last   []decided
	lastC  policies.Cluster
	prefix []policies.Tracked // scratch
	buf    []policies.Job
}

// decided is one job of the last decision's prefix: its epoch then and the
// GPUs it was given.
type decided struct {
	key         int64
	epoch, gpus int
}

// ScheduleIncremental implements policies.Incremental. Schedule gives a first
// GPU to the jobs in input order while GPUs last and the rest only to jobs that
// have one, so its decision for the first TotalGPUs jobs does not depend on the
// others, which get none: ScheduleIncremental runs Schedule on that prefix and
// takes the GPUs of any job behind it that held some (possible only when a job
// arrives out of key order).
func (p *Policy) ScheduleIncremental(now float64, c policies.Cluster, r policies.IncrementalRound) []policies.Change {
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
	if s.unchanged(c, prefix) {
		// Schedule's input differs from the last round's only in what it
		// does not read: its decision would repeat the last, which the
		// jobs hold.
		clear(prefix)
		return nil
	}
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
	s.held = slices.Clip(held)
	s.last = s.last[:0]
	for i, t := range prefix {
		s.last = append(s.last, decided{key: t.Key, epoch: t.Job.Epoch, gpus: policies.Sum(dec.Alloc[i])})
	}
	s.lastC = c
	clear(prefix)
	return changes
}

// unchanged reports whether the last decision stands: the prefix holds the
// same jobs in the same epochs, each holding the GPUs it was given, on the
// same single-type cluster, and no job behind it holds any. Schedule's
// counts depend on the jobs in order, their epochs (remaining work) and
// static facts; a job keeps its nodes when its count equals its GPUs; a job
// whose placement failed would fail again, with no more free GPUs.
func (s *inc) unchanged(c policies.Cluster, prefix []policies.Tracked) bool {
	if len(s.last) != len(prefix) || len(s.held) > len(prefix) || c.Heterogeneous() ||
		c.Nodes != s.lastC.Nodes || c.MaxNodeGPUs() != s.lastC.MaxNodeGPUs() || len(c.Pools) > 0 || len(s.lastC.Pools) > 0 {
		return false
	}
	for i, t := range prefix {
		d := s.last[i]
		if t.Key != d.key || t.Job.Epoch != d.epoch || policies.Sum(t.Job.Alloc) != d.gpus {
			return false
		}
	}
	// Every held key was in the last prefix; it still holds its GPUs only
	// if it is in this one (checked above).
	for _, k := range s.held {
		if _, ok := slices.BinarySearchFunc(s.last, k, func(d decided, k int64) int { return cmp.Compare(d.key, k) }); !ok {
			return false
		}
	}
	return true
}
