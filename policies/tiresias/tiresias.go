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
	queue0    []string
	queue1    []string
	known     map[string]bool
	executed  map[string]float64 // seconds run, for demotion
	lastCheck map[string]float64
	running   map[string]bool
}

// New returns a Tiresias policy with the given demotion threshold in
// GPU-seconds (0 means DefaultThreshold).
func New(threshold float64) *Policy {
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	return &Policy{
		threshold: threshold,
		known:     map[string]bool{},
		executed:  map[string]float64{},
		lastCheck: map[string]float64{},
		running:   map[string]bool{},
	}
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user GPUs and batch sizes.
func (*Policy) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// Schedule implements policies.Policy.
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	index := make(map[string]int, len(jobs))
	for i := range jobs {
		index[jobs[i].Name] = i
	}
	// Forget finished jobs, keeping queue order.
	keep := func(q []string) []string {
		out := q[:0]
		for _, name := range q {
			if _, ok := index[name]; ok {
				out = append(out, name)
			}
		}
		return out
	}
	p.queue0, p.queue1 = keep(p.queue0), keep(p.queue1)
	for name := range p.known {
		if _, ok := index[name]; !ok {
			delete(p.known, name)
			delete(p.executed, name)
			delete(p.lastCheck, name)
			delete(p.running, name)
		}
	}
	// New jobs enter the high-priority queue in arrival order.
	for i := range jobs {
		if !p.known[jobs[i].Name] {
			p.known[jobs[i].Name] = true
			p.queue0 = append(p.queue0, jobs[i].Name)
			p.lastCheck[jobs[i].Name] = now
		}
	}
	// Account executed time and demote.
	for i := range jobs {
		name := jobs[i].Name
		if p.running[name] {
			p.executed[name] += now - p.lastCheck[name]
			if float64(jobs[i].Request.GPUs)*p.executed[name] >= p.threshold {
				if k := indexOf(p.queue0, name); k >= 0 {
					p.queue0 = append(p.queue0[:k], p.queue0[k+1:]...)
					p.queue1 = append(p.queue1, name)
				}
			}
		}
		p.lastCheck[name] = now
	}
	// Decide who runs: scan the queues in order; any job that fits runs.
	alloc := make([][]int, len(jobs))
	left := c.TotalGPUs()
	for _, q := range [][]string{p.queue0, p.queue1} {
		for _, name := range q {
			i := index[name]
			if want := jobs[i].Request.GPUs; want <= left {
				p.running[name] = true
				left -= want
				if jobs[i].Alloc != nil && policies.Sum(jobs[i].Alloc) > 0 {
					alloc[i] = append([]int(nil), jobs[i].Alloc...)
				}
			} else {
				p.running[name] = false
			}
		}
	}
	// Place newly started jobs on the nodes with the most free GPUs.
	free := policies.FreeGPUs(c, alloc)
	for _, q := range [][]string{p.queue0, p.queue1} {
		for _, name := range q {
			i := index[name]
			if p.running[name] && alloc[i] == nil {
				alloc[i] = policies.PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i])
			}
		}
	}
	return policies.Decision{Alloc: alloc}
}

func indexOf(q []string, name string) int {
	for i, v := range q {
		if v == name {
			return i
		}
	}
	return -1
}
