package llm

import (
	"errors"
	"fmt"
	"strings"
)

// PlacedStep predicts one iteration of job on allocation a under topology
// topo, its GPUs filled in layout l. It is Step with the data-parallel
// rings' bandwidth and latency taken from where the GPUs sit (see
// placedLinks): tensor groups inside a node at NVLink, pipeline
// point-to-point traffic left out as in Step, each data-parallel ring at
// the slowest link it crosses, the spine's oversubscription on rings that
// cross racks. On whole nodes of one rack, with t·p dividing or a
// multiple of the node size, ReplicasInNodes gives Step's time exactly.
func (cal Calibration) PlacedStep(job Job, a Allocation, topo Topology, l Layout) (Step, error) {
	if err := validate(job.Model, job.Par, job.GPU); err != nil {
		return Step{}, err
	}
	if err := checkPlacement(job.GPU, a, topo); err != nil {
		return Step{}, err
	}
	ln, err := job.GPU.placedLinks(a, topo, job.Par, l)
	if err != nil {
		return Step{}, err
	}
	return cal.step(job, ln)
}

// ErrNoFit is what Plan's error wraps when no configuration fits in
// memory (errors.Is), as against malformed inputs.
var ErrNoFit = errors.New("no configuration fits in memory")

// Plan is the fastest configuration of model m on allocation a of GPU type
// g under topology topo, training globalBatch sequences per step, with
// the layout it runs in: the search of Configurations over a's GPU count,
// restricted to tensor degrees that divide every node's share (a tensor
// group never spans nodes), each configuration timed by PlacedStep in
// both layouts and the faster kept (ReplicasInNodes on a tie). It fails
// when the inputs are malformed or nothing fits in memory.
func (cal Calibration) Plan(m Transformer, g GPU, a Allocation, topo Topology, globalBatch int, sp Space) (Candidate, error) {
	if err := g.Validate(); err != nil {
		return Candidate{}, err
	}
	if err := checkPlacement(g, a, topo); err != nil {
		return Candidate{}, err
	}
	type shape struct{ t, p int }
	cache := map[shape][]links{} // the links of each layout of a (t, p)
	divides := func(t int) bool {
		for _, s := range a {
			if s.GPUs%t != 0 {
				return false
			}
		}
		return true
	}
	timed := func(job Job) (Step, Layout, error) {
		c := job.Par
		ls, ok := cache[shape{c.TP, c.PP}]
		if !ok {
			for _, l := range layouts {
				ln, err := g.placedLinks(a, topo, c, l)
				if err != nil {
					return Step{}, 0, err
				}
				ls = append(ls, ln)
			}
			cache[shape{c.TP, c.PP}] = ls
		}
		var best Step
		var bestL Layout
		for i, ln := range ls {
			st, err := cal.step(job, ln)
			if err != nil {
				return Step{}, 0, err
			}
			if i == 0 || st.Time < best.Time {
				best, bestL = st, layouts[i]
			}
		}
		return best, bestL, nil
	}
	cs, err := cal.search(m, g, a.GPUs(), globalBatch, sp, divides, timed)
	if err != nil {
		return Candidate{}, err
	}
	if len(cs) == 0 {
		return Candidate{}, fmt.Errorf("plan: %s (batch %d) on %s: %w", m.Name, globalBatch, a, ErrNoFit)
	}
	return cs[0], nil
}

// checkPlacement validates a topology and an allocation on GPU type g.
func checkPlacement(g GPU, a Allocation, topo Topology) error {
	if err := topo.Validate(); err != nil {
		return err
	}
	return a.Validate(g)
}

// String lists the shares as node:GPUs.
func (a Allocation) String() string {
	parts := make([]string, len(a))
	for i, s := range a {
		parts[i] = fmt.Sprintf("%d:%d", s.Node, s.GPUs)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
