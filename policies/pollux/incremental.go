package pollux

import (
	"cmp"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

var _ policies.Incremental = (*Policy)(nil)

// inc is the policy's state when driven by ScheduleIncremental: the tracked
// jobs in key order, how many there are, and those holding GPUs after the last
// decision, in key order.
type inc struct {
	order   policies.JobOrder
	active  int
	holding []policies.Tracked
	sub     []policies.Tracked // scratch: the round's considered jobs
	buf     []policies.Job     // scratch: their views
}

// ScheduleIncremental implements policies.Incremental. A round of Schedule
// considers the jobs holding GPUs and the first waiting ones in input order
// (see Options.WaitingPerGPU); ScheduleIncremental gathers the same jobs from
// its tracked ones, in key order, and decides on them as Schedule would. Its
// cost follows the jobs holding GPUs and the window of waiting ones, not the
// queue. With WaitingPerGPU 0 every tracked job is considered every round.
func (p *Policy) ScheduleIncremental(now float64, c policies.Cluster, r policies.IncrementalRound) []policies.Change {
	s := &p.inc
	s.order.Apply(r)
	s.active += len(r.Added) - len(r.Removed)
	if len(r.Removed) > 0 {
		s.holding = slices.DeleteFunc(s.holding, func(t policies.Tracked) bool { return slices.Contains(r.Removed, t.Key) })
	}
	for _, t := range r.Added {
		if policies.Sum(t.Job.Alloc) > 0 { // placed before the policy knew it
			i, _ := slices.BinarySearchFunc(s.holding, t.Key, byKey)
			s.holding = slices.Insert(s.holding, i, t)
		}
	}
	// The considered jobs: those holding GPUs merged, in key order, with
	// the first limit waiting ones.
	limit := p.waitingLimit(c)
	sub, h, waiting := s.sub[:0], 0, 0
	for t := range s.order.All() {
		if limit > 0 && waiting == limit {
			break
		}
		if policies.Sum(t.Job.Alloc) > 0 {
			continue // among holding
		}
		for h < len(s.holding) && s.holding[h].Key < t.Key {
			sub = append(sub, s.holding[h])
			h++
		}
		sub = append(sub, t)
		waiting++
	}
	sub = append(sub, s.holding[h:]...)
	s.sub = sub
	s.buf = s.buf[:0]
	for _, t := range sub {
		v := *t.Job
		v.Age = now - v.Submit // a waiting job's view has a stale age
		s.buf = append(s.buf, v)
	}
	dec := p.decide(c, s.buf, s.active)
	clear(s.buf) // drop references to the views
	var changes []policies.Change
	s.holding = s.holding[:0]
	for i, t := range sub {
		a := dec.Alloc[i]
		if policies.Sum(a) > 0 {
			s.holding = append(s.holding, t)
		}
		if !policies.Equal(a, t.Job.Alloc) {
			changes = append(changes, policies.Change{Key: t.Key, Alloc: a})
		}
	}
	clear(sub)
	return changes
}

func byKey(t policies.Tracked, k int64) int { return cmp.Compare(t.Key, k) }
