// Package gandiva implements Gandiva (Xiao et al., OSDI'18, "Gandiva:
// Introspective Cluster Scheduling for Deep Learning") as ElasticFlow's
// artifact (pkusys/ElasticFlow, ElasticFlow/scheduler: gandiva_sim_jobs in
// scheduler.py; gandiva_placement, gandiva_node_set_adjust and
// time_slicing_execute in cluster.py) runs it. Gandiva has no official
// code; that reimplementation is what the field compares with.
//
// Jobs run at the GPUs and batch size their users asked for. The cluster's
// nodes are grouped into node sets, each serving one job size g (the jobs
// of g GPUs): a set is the fewest whole free nodes of one GPU type holding
// g GPUs, and its capacity is how many jobs of g GPUs it runs at once,
// ⌊GPUs of the set / g⌋. A job joins the least-loaded set of its size with
// a free slot, else a new set on free nodes, else (no free nodes) the
// least-loaded set of its size anyway, where it is time-sliced; with no
// set of its size and no free nodes it waits. In a set holding more jobs
// than its capacity the first `capacity` jobs run and the others are
// suspended; every time quantum the running ones move to the back of the
// set's queue (suspend-resume, round robin). Every round the GPUs are
// re-divided among the sizes in proportion to their demand (jobs × g),
// sets growing onto free nodes or shrinking, their jobs migrating to the
// size's other sets (migration, which also consolidates a job onto the
// fewest nodes). Packing (co-location of jobs on a GPU) is the artifact's:
// every model's memory utilisation is 1, so no two jobs share a GPU;
// docs/gandiva.md says why and what suspend-resume costs here.
package gandiva

import (
	"fmt"
	"math"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "gandiva"

// Options are Gandiva's user-settable options.
type Options struct {
	// QuantumSeconds is the time-slicing quantum.
	QuantumSeconds float64 `option:"quantum_s" doc:"time-slicing quantum in seconds, in (0, 1e6]: every quantum the running jobs of an over-subscribed node set are suspended and the next ones resumed (ElasticFlow's artifact: 60)"`
	// ArtifactExpand deals a size's jobs anew after an expansion exactly
	// when the artifact does (see expand); false deals them whenever a
	// set was added.
	ArtifactExpand bool `option:"artifact_expand" doc:"after adding node sets for a job size, move its jobs onto them only when ElasticFlow's artifact does (its reused loop variable: not after a last new set of one node) (true), or whenever a set was added (false)"`
}

// DefaultOptions are the artifact's: a 60-second quantum, its expansion.
func DefaultOptions() Options { return Options{QuantumSeconds: 60, ArtifactExpand: true} }

// Validate checks the options' bounds.
func (o *Options) Validate() error {
	if !(o.QuantumSeconds > 0 && o.QuantumSeconds <= 1e6) {
		return fmt.Errorf("quantum_s must be in (0, 1e6], got %v", o.QuantumSeconds)
	}
	return nil
}

// Policy is a Gandiva scheduler. It keeps its node sets, their queues and
// the waiting jobs between rounds.
type Policy struct {
	opt     Options
	sets    []*nodeSet
	pending []string         // jobs without a node set, in arrival order
	known   map[string]bool  // jobs seen (in a set or pending)
	quantum int64            // the quantum of the latest rotation (-1 before the first)
	shape   policies.Cluster // the cluster of the latest round
}

var _ policies.Policy = (*Policy)(nil)

// New returns a Gandiva policy with options o (validated by the caller).
func New(o Options) *Policy { return &Policy{opt: o, known: map[string]bool{}, quantum: -1} }

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "Gandiva as ElasticFlow's artifact runs it: node sets per job size, time-slicing with suspend-resume at a fixed quantum, migration between sets as demand shifts, at the requested GPUs and batch",
	}, DefaultOptions, func(o Options, _ policies.Env) (policies.Policy, error) {
		if err := o.Validate(); err != nil {
			return nil, err
		}
		return New(o), nil
	})
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user GPUs and batch sizes.
func (*Policy) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// Schedule implements policies.Policy. A round, in the artifact's order
// where the engine allows: the jobs that ended leave their sets (empty
// sets free their nodes), the GPUs are re-divided among the job sizes
// (Adjust), the over-subscribed sets rotate when a new quantum has begun,
// the new jobs are placed in arrival order, then the waiting ones; the
// first `capacity` jobs of each set run on its nodes.
func (p *Policy) Schedule(now float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	byName := make(map[string]int, len(jobs))
	for i := range jobs {
		byName[jobs[i].Name] = i
	}
	p.forget(byName)
	p.reshape(c, jobs, byName)
	p.adjust(c, jobs, byName)
	p.sets = slices.DeleteFunc(p.sets, func(s *nodeSet) bool { return len(s.jobs) == 0 })
	if q := int64(math.Floor(now / p.opt.QuantumSeconds)); q > p.quantum {
		p.quantum = q
		for _, s := range p.sets {
			s.rotate(c)
		}
	}
	var waiting []string
	for i := range jobs {
		if !p.known[jobs[i].Name] {
			p.known[jobs[i].Name] = true
			if !p.place(c, &jobs[i]) {
				waiting = append(waiting, jobs[i].Name)
			}
		}
	}
	still := p.pending[:0]
	for _, name := range p.pending {
		if !p.place(c, &jobs[byName[name]]) {
			still = append(still, name)
		}
	}
	p.pending = append(still, waiting...)
	return p.decide(c, jobs, byName)
}

// forget drops the jobs that are no longer active and frees the nodes of
// the sets left empty.
func (p *Policy) forget(active map[string]int) {
	for name := range p.known {
		if _, ok := active[name]; !ok {
			delete(p.known, name)
		}
	}
	p.pending = slices.DeleteFunc(p.pending, func(n string) bool { _, ok := active[n]; return !ok })
	for _, s := range p.sets {
		s.jobs = slices.DeleteFunc(s.jobs, func(n string) bool { _, ok := active[n]; return !ok })
	}
	p.sets = slices.DeleteFunc(p.sets, func(s *nodeSet) bool { return len(s.jobs) == 0 })
}

// reshape dissolves every node set when the cluster changed since the
// last round (a node failed or came back: the nodes after it are numbered
// anew) and places their jobs again in the sets' order, as arrivals.
func (p *Policy) reshape(c policies.Cluster, jobs []policies.Job, byName map[string]int) {
	same := c.Nodes == p.shape.Nodes && c.GPUsPerNode == p.shape.GPUsPerNode && slices.Equal(c.Pools, p.shape.Pools)
	p.shape = c
	if same {
		return
	}
	var queue []string
	for _, s := range p.sets {
		queue = append(queue, s.jobs...)
	}
	p.sets = nil
	for _, name := range queue {
		if !p.place(c, &jobs[byName[name]]) {
			p.pending = append(p.pending, name)
		}
	}
}

// place puts job j in a node set as gandiva_placement does: the
// least-loaded set of its size if it has a free slot, else a new set on
// free nodes, else the least-loaded set of its size (time-slicing). It
// reports false when the job must wait (no set of its size, no free
// nodes).
func (p *Policy) place(c policies.Cluster, j *policies.Job) bool {
	g := j.Request.GPUs
	best := p.leastLoaded(c, g, j)
	if best != nil && len(best.jobs)+1 < best.capacity(c) {
		best.jobs = append(best.jobs, j.Name)
		return true
	}
	if s := p.newSet(c, g, j); s != nil {
		s.jobs = append(s.jobs, j.Name)
		return true
	}
	if best != nil {
		best.jobs = append(best.jobs, j.Name)
		return true
	}
	return false
}

// leastLoaded is the set of size g with the fewest jobs among those of a
// type job j may use (ties: the earliest set), or nil.
func (p *Policy) leastLoaded(c policies.Cluster, g int, j *policies.Job) *nodeSet {
	var best *nodeSet
	for _, s := range p.sets {
		if s.g == g && (j == nil || j.Offers(s.typ)) && (best == nil || len(s.jobs) < len(best.jobs)) {
			best = s
		}
	}
	return best
}

// decide runs the first `capacity` jobs of each set on its nodes, those
// already there on the same GPUs.
func (p *Policy) decide(c policies.Cluster, jobs []policies.Job, byName map[string]int) policies.Decision {
	alloc := make([][]int, len(jobs))
	for _, s := range p.sets {
		free := make([]int, c.Nodes)
		for _, n := range s.nodes {
			free[n] = c.NodeGPUs(n)
		}
		run := s.jobs[:min(len(s.jobs), s.capacity(c))]
		for _, name := range run { // those that can stay where they are
			j := &jobs[byName[name]]
			if within(free, j.Alloc, s.g) {
				alloc[byName[name]] = slices.Clone(j.Alloc)
				for n, v := range j.Alloc {
					free[n] -= v
				}
			}
		}
		for _, name := range run {
			if i := byName[name]; alloc[i] == nil {
				alloc[i] = fill(free, s.nodes, s.g)
			}
		}
	}
	return policies.Decision{Alloc: alloc}
}

// within reports whether alloc holds exactly g GPUs, all within free.
func within(free, alloc []int, g int) bool {
	if policies.Sum(alloc) != g || g == 0 || len(alloc) != len(free) {
		return false
	}
	for n, v := range alloc {
		if v > free[n] {
			return false
		}
	}
	return true
}

// fill takes g GPUs from free on nodes, in order.
func fill(free []int, nodes []int, g int) []int {
	alloc := make([]int, len(free))
	for _, n := range nodes {
		take := min(free[n], g)
		alloc[n] += take
		free[n] -= take
		g -= take
	}
	return alloc
}
