// Package tiresias implements the Tiresias scheduler (NSDI'19) in the
// discretised two-queue form the Pollux paper compares against: jobs run
// with the GPUs and batch size their users asked for; a job moves from the
// high- to the low-priority queue once its attained service (executed time
// × requested GPUs) reaches a threshold (16 GPU-hours); each round the
// queues are scanned in order and every job that still fits runs, the rest
// are preempted; new jobs go to the nodes with the most free GPUs, without
// consolidation.
package tiresias

import (
	"github.com/polluxsim/polluxsim/policies"
)

// DefaultThreshold is the demotion threshold in GPU-seconds (16 GPU-hours).
const DefaultThreshold = 16 * 3600

// Policy is a Tiresias scheduler. Create one per simulation with New.
type Policy struct {
	threshold float64
	// queue0 and queue1 hold the known jobs in queue order; every known
	// job is in exactly one of them.
	queue0, queue1 []*entry
	known          map[string]*entry
	round          uint64
	ents           []*entry // this round's entry of each input job
	spare          []*entry // last round's ents, reused
	// inc is the state when driven by ScheduleIncremental (incremental.go).
	inc inc
}

// entry is what the policy keeps about one job.
type entry struct {
	name      string
	executed  float64 // seconds run, for demotion
	lastCheck float64
	running   bool
	demoted   bool   // in queue1
	idx       int    // position in this round's input
	seen      uint64 // last round the job was active
}

// New returns a Tiresias policy with the given demotion threshold in
// GPU-seconds (0 means DefaultThreshold).
func New(threshold float64) *Policy {
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	return &Policy{threshold: threshold, known: map[string]*entry{}}
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user GPUs and batch sizes.
func (*Policy) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// Schedule implements policies.Policy. Its cost is a pass over the jobs
// (map look-ups only for jobs not in last round's order) and scans of the
// two queues; a running job keeps its own allocation slice in the
// decision.
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	p.round++
	// Find each job's entry. The input usually lists last round's jobs in
	// the same order, less some and with others inserted, so the entry is
	// most often the one after the last found in last round's list; the
	// map finds the others.
	prev := p.ents
	p.ents = p.spare[:0]
	cur := 0
	var arrived []*entry
	for i := range jobs {
		name := jobs[i].Name
		var e *entry
		if cur < len(prev) && prev[cur].name == name {
			e = prev[cur]
			cur++
		} else if e = p.known[name]; e == nil {
			e = &entry{name: name, lastCheck: now}
			p.known[name] = e
			arrived = append(arrived, e)
		} else if e.idx >= cur && e.idx < len(prev) && prev[e.idx] == e {
			cur = e.idx + 1
		}
		e.idx, e.seen = i, p.round
		p.ents = append(p.ents, e)
	}
	clear(prev)
	p.spare = prev[:0]
	// Forget finished jobs, keeping queue order.
	keep := func(q []*entry) []*entry {
		out := q[:0]
		for _, e := range q {
			if e.seen == p.round {
				out = append(out, e)
			} else {
				delete(p.known, e.name)
			}
		}
		clear(q[len(out):])
		return out
	}
	p.queue0, p.queue1 = keep(p.queue0), keep(p.queue1)
	// New jobs enter the high-priority queue in arrival order.
	p.queue0 = append(p.queue0, arrived...)
	// Account executed time and demote, in input order.
	demoted := false
	for i, e := range p.ents {
		if e.running {
			e.executed += now - e.lastCheck
			if float64(jobs[i].Request.GPUs)*e.executed >= p.threshold && !e.demoted {
				e.demoted, demoted = true, true
				p.queue1 = append(p.queue1, e)
			}
		}
		e.lastCheck = now
	}
	if demoted {
		out := p.queue0[:0]
		for _, e := range p.queue0 {
			if !e.demoted {
				out = append(out, e)
			}
		}
		clear(p.queue0[len(out):])
		p.queue0 = out
	}
	// Decide who runs: scan the queues in order; any job that fits runs.
	alloc := make([][]int, len(jobs))
	left := c.TotalGPUs()
	for _, q := range [2][]*entry{p.queue0, p.queue1} {
		for _, e := range q {
			j := &jobs[e.idx]
			if want := j.Request.GPUs; want <= left {
				e.running = true
				left -= want
				if policies.Sum(j.Alloc) > 0 {
					alloc[e.idx] = j.Alloc
				}
			} else {
				e.running = false
			}
		}
	}
	// Place newly started jobs on the nodes with the most free GPUs.
	free := policies.FreeGPUs(c, alloc)
	for _, q := range [2][]*entry{p.queue0, p.queue1} {
		for _, e := range q {
			if e.running && alloc[e.idx] == nil {
				alloc[e.idx] = policies.PlaceJob(c, free, jobs[e.idx].Request.GPUs, &jobs[e.idx])
			}
		}
	}
	return policies.Decision{Alloc: alloc}
}
