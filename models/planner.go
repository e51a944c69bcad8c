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
	params     Params
	n, k       int
}

// candidate is one feasible (m, s) of Best; consecutive candidates with
// the same (m, s) are kept once (they would give the same goodput, and
// Best keeps the first of equal goodputs). Its throughput is computed on
// first use (see plan.throughput); until then bound is an upper bound of
// it that costs no transcendental function.
type candidate struct {
	m, s       int
	batch      int
	bound      float64
	throughput atomic.Uint64 // float64 bits; notComputed until computed
}

// notComputed marks a throughput not yet computed (a NaN pattern no
// computation yields).
const notComputed = ^uint64(0)

// boundSlack inflates the throughput bound so that rounding in the exact
// throughput (a few units in the last place) can never exceed it.
const boundSlack = 1 + 1e-9

// nodeClass is 0 for allocations on one node, 1 for several.
func nodeClass(n int) int {
	if n > 1 {
		return 1
	}
	return 0
}

// newPlan builds the candidate list of Best on k ≥ 1 GPUs over n nodes.
func (md *Model) newPlan(n, k int, buf []candidate) plan {
	if buf == nil {
		size := max(md.Candidates, DefaultCandidates)
		if md.FixedBatch > 0 {
			size = 1
		}
		buf = make([]candidate, 0, size)
	}
	p := plan{candidates: buf[:0], params: md.Params, n: n, k: k}
	// The overlapped time (a^γ + b^γ)^(1/γ) is at least max(a, b) and, by
	// Hölder's inequality, at least (a + b)·2^(1/γ − 1).
	tsync := md.Params.TSync(n, k)
	holder := 0.0
	if g := md.Params.Gamma; g >= 1 {
		holder = math.Exp2(1/g - 1)
	}
	add := func(m, s int) {
		if l := len(p.candidates); l > 0 && p.candidates[l-1].m == m && p.candidates[l-1].s == s {
			return
		}
		tg := md.Params.TGrad(float64(m))
		lower := float64(s)*tg + math.Max(math.Max(tg, tsync), (tg+max(tsync, 0))*holder)
		batch := k * m * (s + 1)
		p.candidates = append(p.candidates, candidate{m: m, s: s, batch: batch,
			bound: float64(batch) / lower * boundSlack})
		p.candidates[len(p.candidates)-1].throughput.Store(notComputed)
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

// throughput is candidate x's predicted throughput, computed on first use.
func (p *plan) throughput(x int) float64 {
	c := &p.candidates[x]
	if b := c.throughput.Load(); b != notComputed {
		return math.Float64frombits(b)
	}
	v := p.params.Throughput(p.n, p.k, float64(c.m), c.s)
	c.throughput.Store(math.Float64bits(v))
	return v
}

// config is candidate x's configuration on n nodes at efficiency eff.
func (p *plan) config(x, n int, eff float64) Config {
	c := &p.candidates[x]
	thr := p.throughput(x)
	return Config{Nodes: n, GPUs: p.k, Local: c.m, Accum: c.s, Batch: c.batch,
		Throughput: thr, Efficiency: eff, Goodput: thr * eff}
}

func (p *plan) zeroConfig(n int) Config {
	return Config{Nodes: n, GPUs: p.k, Local: p.zeroM, Accum: p.zeroS, Batch: p.k * p.zeroM * (p.zeroS + 1)}
}

// efficiency is candidate x's statistical efficiency under the model's
// gradient statistics (1 for a fixed batch).
func (md *Model) efficiency(p *plan, x int) float64 {
	if md.FixedBatch > 0 {
		return 1
	}
	return md.Grad.Efficiency(float64(md.Limits.InitBatch), float64(p.candidates[x].batch))
}

// best is Best's result on the plan's k GPUs over n nodes under the
// model's gradient statistics: the first candidate of the largest goodput
// (a zero-goodput configuration of candidate 0 if that was infeasible and
// no goodput is positive). It computes the throughput of only those
// candidates whose bound does not rule them out; with non-finite values
// it falls back to evaluating every candidate in order as Best always did.
func (md *Model) best(p *plan, n int) Config {
	cs := p.candidates
	if len(cs) == 0 {
		if p.zero {
			return p.zeroConfig(n)
		}
		return Config{}
	}
	var effBuf [DefaultCandidates]float64
	effs := effBuf[:0]
	top := -1 // candidate of the largest goodput bound
	topBound := 0.0
	for x := range cs {
		e := md.efficiency(p, x)
		effs = append(effs, e)
		ub := cs[x].bound * e
		if !(ub >= 0) || math.IsInf(ub, 0) {
			return md.bestInOrder(p, n)
		}
		if top < 0 || ub > topBound {
			top, topBound = x, ub
		}
	}
	threshold := p.throughput(top) * effs[top]
	if !(threshold >= 0) || math.IsInf(threshold, 0) {
		return md.bestInOrder(p, n)
	}
	arg, argGp := -1, 0.0
	for x := range cs {
		if cs[x].bound*effs[x] < threshold {
			continue // its goodput is below another's: not the first maximum
		}
		gp := p.throughput(x) * effs[x]
		if !(gp >= 0) || math.IsInf(gp, 0) {
			return md.bestInOrder(p, n)
		}
		if arg < 0 || gp > argGp {
			arg, argGp = x, gp
		}
		threshold = max(threshold, gp)
	}
	if p.zero && !(argGp > 0) {
		return p.zeroConfig(n)
	}
	return p.config(arg, n, effs[arg])
}

// bestInOrder evaluates every candidate in order, keeping the first of
// the largest goodputs (Best's definition for any values).
func (md *Model) bestInOrder(p *plan, n int) Config {
	var best Config
	first := true
	if p.zero {
		best, first = p.zeroConfig(n), false
	}
	for x := range p.candidates {
		eff := md.efficiency(p, x)
		if c := p.config(x, n, eff); first || c.Goodput > best.Goodput {
			best, first = c, false
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
		p := md.newPlan(n, k, nil)
		return md.best(&p, n)
	}
	slot := &pl.plans[2*k+nodeClass(n)]
	p := slot.Load()
	if p == nil {
		np := md.newPlan(n, k, nil)
		p = &np
		slot.Store(p)
	}
	return md.best(p, n)
}
