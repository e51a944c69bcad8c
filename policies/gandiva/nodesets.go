package gandiva

import (
	"math"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// nodeSet is a group of whole nodes of one GPU type serving the jobs of g
// GPUs, with its queue: the first capacity jobs run, the rest are
// suspended.
type nodeSet struct {
	g     int
	typ   string
	nodes []int
	jobs  []string
}

// capacity is how many jobs of g GPUs the set runs at once.
func (s *nodeSet) capacity(c policies.Cluster) int {
	return Capacity(s.gpus(c), s.g)
}

func (s *nodeSet) gpus(c policies.Cluster) int {
	k := 0
	for _, n := range s.nodes {
		k += c.NodeGPUs(n)
	}
	return k
}

// Capacity is the number of jobs of g GPUs a node set of gpus GPUs runs at
// once, ⌊gpus / g⌋ (the artifact's node_set['capacity'], every model's
// memory utilisation being 1).
func Capacity(gpus, g int) int {
	if g <= 0 {
		return 0
	}
	return gpus / g
}

// rotate is the time slice's end in an over-subscribed set: the running
// jobs (the first capacity ones) move to the back of the queue.
func (s *nodeSet) rotate(c policies.Cluster) {
	s.jobs = Rotate(s.jobs, s.capacity(c))
}

// Rotate is the queue after one quantum of a node set running capacity
// jobs at once: when more jobs than that wait, the first capacity ones
// move to the back, in their order; otherwise the queue is unchanged.
func Rotate(queue []string, capacity int) []string {
	if len(queue) <= capacity || capacity <= 0 {
		return queue
	}
	return append(slices.Clone(queue[capacity:]), queue[:capacity]...)
}

// freeNodes are the nodes in no set, in order.
func (p *Policy) freeNodes(c policies.Cluster) []int {
	used := make([]bool, c.Nodes)
	for _, s := range p.sets {
		for _, n := range s.nodes {
			used[n] = true
		}
	}
	var free []int
	for n := range used {
		if !used[n] {
			free = append(free, n)
		}
	}
	return free
}

// newSet makes a set of size g on the fewest free nodes of one type (of
// those job j may use when j is not nil; the cluster's types in order,
// then the nodes in order), or returns nil when no type has free nodes
// holding g GPUs.
func (p *Policy) newSet(c policies.Cluster, g int, j *policies.Job) *nodeSet {
	if g <= 0 {
		return nil
	}
	free := p.freeNodes(c)
	for _, t := range c.Types() {
		if j != nil && !j.Offers(t) {
			continue
		}
		var nodes []int
		k := 0
		for _, n := range free {
			if c.NodeType(n) == t && k < g {
				nodes = append(nodes, n)
				k += c.NodeGPUs(n)
			}
		}
		if k >= g {
			s := &nodeSet{g: g, typ: t, nodes: nodes}
			p.sets = append(p.sets, s)
			return s
		}
	}
	return nil
}

// sizes are the job sizes with a set, ascending (the artifact's node_g
// classes, in its order).
func (p *Policy) sizes() []int {
	var gs []int
	for _, s := range p.sets {
		if !slices.Contains(gs, s.g) {
			gs = append(gs, s.g)
		}
	}
	slices.Sort(gs)
	return gs
}

// Target is the GPUs the job size with demand GPUs (its jobs × g) is given
// out of total, with all sizes demanding sum: its proportional share
// ⌊demand / sum × total⌋, never more than its demand
// (gandiva_node_set_adjust).
func Target(demand, sum, total int) int {
	if sum <= 0 {
		return 0
	}
	return min(int(math.Floor(float64(demand)/float64(sum)*float64(total))), demand)
}

// adjust re-divides the GPUs among the job sizes in proportion to their
// demand (Target): a size holding less than its target gains ⌈gap / g⌉
// sets on free nodes, as many as there are, and its jobs are dealt anew
// over its sets, the least loaded first (migration); a size holding more
// gives up ⌈excess / g⌉ of its least-loaded sets (keeping one), whose jobs
// join its remaining sets, the least loaded first.
func (p *Policy) adjust(c policies.Cluster, jobs []policies.Job, byName map[string]int) {
	sum := 0
	demand := map[int]int{}
	for _, s := range p.sets {
		demand[s.g] += len(s.jobs) * s.g
		sum += len(s.jobs) * s.g
	}
	total := c.TotalGPUs()
	for _, g := range p.sizes() {
		if demand[g] == 0 {
			continue
		}
		held := 0
		for _, s := range p.sets {
			if s.g == g {
				held += s.gpus(c)
			}
		}
		switch diff := Target(demand[g], sum, total) - held; {
		case diff > 0:
			p.expand(c, g, (diff+g-1)/g, jobs, byName)
		case diff < 0:
			p.shrink(c, g, (-diff+g-1)/g, jobs, byName)
		}
	}
}

// expand adds up to n sets of size g on free nodes (gandiva_node_set_expand)
// and deals the size's jobs anew over all its sets when the artifact does:
// with the artifact's expansion (the default), after the n attempts unless
// the last one made a set of a single node — its loop variable, reused by
// the inner loop over the new set's nodes, then ends at 0 and the test
// `i > 0` fails (the sets made stay empty and are freed); otherwise only
// when a set was added.
func (p *Policy) expand(c policies.Cluster, g, n int, jobs []policies.Job, byName map[string]int) {
	added, last := 0, 0 // sets made, and the nodes of the last attempt's set (0: it failed)
	for range n {
		last = 0
		if s := p.newSet(c, g, nil); s != nil {
			added++
			last = len(s.nodes)
		}
	}
	deal := added > 0
	if p.opt.ArtifactExpand {
		deal = last != 1
	}
	if !deal {
		return
	}
	var queue []string
	for _, s := range p.sets {
		if s.g == g {
			queue = append(queue, s.jobs...)
			s.jobs = nil
		}
	}
	p.deal(c, g, queue, jobs, byName)
}

// shrink frees up to n of the least-loaded sets of size g, keeping at
// least one, and deals their jobs over the size's remaining sets.
func (p *Policy) shrink(c policies.Cluster, g, n int, jobs []policies.Job, byName map[string]int) {
	var mine []*nodeSet
	for _, s := range p.sets {
		if s.g == g {
			mine = append(mine, s)
		}
	}
	n = min(n, len(mine)-1)
	if n <= 0 {
		return
	}
	slices.SortStableFunc(mine, func(a, b *nodeSet) int { return len(a.jobs) - len(b.jobs) })
	var queue []string
	for _, s := range mine[:n] {
		queue = append(queue, s.jobs...)
		s.jobs = nil
	}
	p.sets = slices.DeleteFunc(p.sets, func(s *nodeSet) bool { return slices.Contains(mine[:n], s) })
	p.deal(c, g, queue, jobs, byName)
}

// deal appends each job of queue, in order, to the least-loaded set of
// size g of a type it may use; a job no set can take waits.
func (p *Policy) deal(c policies.Cluster, g int, queue []string, jobs []policies.Job, byName map[string]int) {
	for _, name := range queue {
		if s := p.leastLoaded(c, g, &jobs[byName[name]]); s != nil {
			s.jobs = append(s.jobs, name)
		} else {
			p.pending = append(p.pending, name)
		}
	}
}
