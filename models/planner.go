package models

import (
	"math"
	"sync/atomic"
)

// A Model's best configuration on k GPUs (Model.Best) depends on its
// Params and Limits through the candidate (m, s) and their throughputs,
// and on its GradStats only through each candidate's efficiency. The
// throughputs, whose overlap term costs several transcendental functions
// each, are what makes Best expensive; the efficiencies cost a few
// divisions. A Planner keeps the candidates and throughputs per GPU count,
// so that Best under new gradient statistics (which change with every
// epoch and batch size) costs only the efficiencies. A job's throughput
// does not depend on how many nodes it spans beyond one or several (the
// synchronisation time has one pair of parameters for all multi-node
// allocations), so one list serves every node count above 1.

// plan is Best's candidate list on one GPU count, single- or multi-node.
type plan struct {
	// zero, when set, is candidate 0's (m, s): it was infeasible, so Best
	// starts from a zero-goodput configuration with it.
	zero       bool
	zeroM      int
	zeroS      int
	candidates []candidate
}

// candidate is one feasible (m, s) of Best with its predicted throughput;
// consecutive candidates with the same (m, s) are kept once (they would
// give the same goodput, and Best keeps the first of equal goodputs).
type candidate struct {
	m, s       int
	batch      int
	throughput float64
}

// nodeClass is 0 for allocations on one node, 1 for several.
func nodeClass(n int) int {
	if n > 1 {
		return 1
	}
	return 0
}

// newPlan builds the candidate list of Best on k ≥ 1 GPUs over n nodes.
func (md *Model) newPlan(n, k int, buf []candidate) plan {
	p := plan{candidates: buf[:0]}
	add := func(m, s int) {
		if l := len(p.candidates); l > 0 && p.candidates[l-1].m == m && p.candidates[l-1].s == s {
			return
		}
		p.candidates = append(p.candidates, candidate{m: m, s: s, batch: k * m * (s + 1),
			throughput: md.Params.Throughput(n, k, float64(m), s)})
	}
	if md.FixedBatch > 0 {
		m, s, _ := md.Limits.Split(k, float64(md.FixedBatch))
		if m < 1 {
			m = 1
		}
		add(m, s)
		return p
	}
	lim := md.Limits
	lo := math.Max(float64(lim.InitBatch), float64(k*lim.MinLocal))
	hi := float64(lim.MaxBatch)
	num := md.Candidates
	if num <= 0 {
		num = DefaultCandidates
	}
	logLo := math.Log(lo)
	logStep := 0.0
	if num > 1 {
		logStep = (math.Log(hi) - logLo) / float64(num-1)
	}
	for i := 0; i < num; i++ {
		batch := lo
		switch {
		case i == num-1:
			batch = hi
		case i > 0:
			batch = math.Exp(logLo + logStep*float64(i))
		}
		m, s, ok := lim.Split(k, batch)
		if !ok {
			if i == 0 {
				p.zero, p.zeroM, p.zeroS = true, m, s
			}
			continue
		}
		add(m, s)
	}
	return p
}

// best is Best's result on the plan's k GPUs over n nodes under the
// model's gradient statistics.
func (md *Model) best(p *plan, n, k int) Config {
	var best Config
	first := true
	if p.zero {
		best = Config{Nodes: n, GPUs: k, Local: p.zeroM, Accum: p.zeroS, Batch: k * p.zeroM * (p.zeroS + 1)}
		first = false
	}
	m0 := float64(md.Limits.InitBatch)
	for x := range p.candidates {
		c := &p.candidates[x]
		eff := 1.0
		if md.FixedBatch <= 0 {
			eff = md.Grad.Efficiency(m0, float64(c.batch))
		}
		if gp := c.throughput * eff; first || gp > best.Goodput {
			best = Config{Nodes: n, GPUs: k, Local: c.m, Accum: c.s, Batch: c.batch,
				Throughput: c.throughput, Efficiency: eff, Goodput: gp}
			first = false
		}
	}
	return best
}

// Planner answers Model.Best for one job's Params, Limits, FixedBatch
// and Candidates under changing gradient statistics, remembering each GPU
// count's candidates and throughputs (see plan). Its results equal
// Model.Best's exactly. It is safe for concurrent use; concurrent first
// uses of a GPU count build the same list.
type Planner struct {
	md    Model // Grad unused
	maxK  int
	plans []atomic.Pointer[plan] // by 2·k + node class, k ≤ maxK
}

// NewPlanner returns a Planner for md's Params, Limits, FixedBatch and
// Candidates (md.Grad is ignored) that remembers GPU counts up to maxK.
func NewPlanner(md Model, maxK int) *Planner {
	md.Grad = GradStats{}
	return &Planner{md: md, maxK: maxK, plans: make([]atomic.Pointer[plan], 2*(maxK+1))}
}

// Model is the model the planner was built for (with zero GradStats).
func (pl *Planner) Model() Model { return pl.md }

// MaxGPUs is the largest GPU count the planner remembers.
func (pl *Planner) MaxGPUs() int { return pl.maxK }

// Grow returns a planner for GPU counts up to maxK that keeps pl's lists
// (pl itself if it already covers maxK).
func (pl *Planner) Grow(maxK int) *Planner {
	if maxK <= pl.maxK {
		return pl
	}
	out := NewPlanner(pl.md, maxK)
	for i := range pl.plans {
		out.plans[i].Store(pl.plans[i].Load())
	}
	return out
}

// Best is Model{Params, grad, Limits, FixedBatch, Candidates}.Best(n, k).
func (pl *Planner) Best(grad GradStats, n, k int) Config {
	if k <= 0 {
		return Config{}
	}
	md := pl.md
	md.Grad = grad
	if k > pl.maxK {
		var buf [DefaultCandidates]candidate
		p := md.newPlan(n, k, buf[:])
		return md.best(&p, n, k)
	}
	slot := &pl.plans[2*k+nodeClass(n)]
	p := slot.Load()
	if p == nil {
		np := md.newPlan(n, k, nil)
		p = &np
		slot.Store(p)
	}
	return md.best(p, n, k)
}
