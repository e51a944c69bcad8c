package models

import "math"

// Limits bound the batch sizes a job may use.
type Limits struct {
	// InitBatch is M0, the batch size the user submitted the job with and
	// the reference point of statistical efficiency.
	InitBatch int
	// MaxBatch is M_max, the largest total batch size that still trains
	// to the same quality.
	MaxBatch int
	// MinLocal and MaxLocal bound the per-GPU batch size m; MaxLocal is the
	// GPU memory limit.
	MinLocal, MaxLocal int
}

// Config is one configuration of a job on an allocation of GPUs together
// with its predicted performance.
type Config struct {
	Nodes, GPUs int     // N and K
	Local       int     // per-GPU batch size m
	Accum       int     // gradient accumulation steps s
	Batch       int     // total batch size M = K·m·(s+1)
	Throughput  float64 // samples per second
	Efficiency  float64 // statistical efficiency relative to M0
	Goodput     float64 // Throughput · Efficiency
}

// DefaultCandidates is the number of geometrically spaced total batch sizes
// the optimiser evaluates, as in the reference implementation.
const DefaultCandidates = 50

// Model is what a scheduler knows about one job: its fitted throughput
// parameters, its current gradient statistics and its batch-size limits.
type Model struct {
	Params Params
	Grad   GradStats
	Limits Limits
	// FixedBatch, when positive, makes the job non-adaptive: it always runs
	// at this total batch size and its efficiency is taken as 1.
	FixedBatch int
	// Candidates is the number of total batch sizes the optimiser tries;
	// 0 means DefaultCandidates.
	Candidates int
}

// Evaluate predicts throughput, efficiency and goodput of running at per-GPU
// batch m with s accumulation steps on k GPUs over n nodes.
func (md *Model) Evaluate(n, k, m, s int) Config {
	c := Config{Nodes: n, GPUs: k, Local: m, Accum: s, Batch: k * m * (s + 1)}
	c.Throughput = md.Params.Throughput(n, k, float64(m), s)
	if md.FixedBatch > 0 {
		c.Efficiency = 1
	} else {
		c.Efficiency = md.Grad.Efficiency(float64(md.Limits.InitBatch), float64(c.Batch))
	}
	c.Goodput = c.Throughput * c.Efficiency
	return c
}

// Split turns a desired total batch size into a per-GPU batch and a number
// of accumulation steps on k GPUs: the smallest s with
// m = ceil(M/(k(s+1))) ≤ MaxLocal, then m is lowered if needed so that
// k·m·(s+1) ≤ MaxBatch. As in the reference implementation, a single GPU
// running above the initial batch size uses at least one accumulation step,
// because the agent needs two micro-batches to estimate gradient noise.
// ok is false when the result falls outside [MinLocal, MaxLocal].
func (l Limits) Split(k int, batch float64) (m, s int, ok bool) {
	const eps = 1e-8
	if k <= 0 || batch <= 0 {
		return 0, 0, false
	}
	local := batch / float64(k)
	s = int(math.Ceil(local/float64(l.MaxLocal)-eps)) - 1
	if s < 0 {
		s = 0
	}
	if k == 1 && local > float64(l.InitBatch)+eps && s < 1 {
		s = 1
	}
	m = int(math.Ceil(local/float64(s+1) - eps))
	if l.MaxBatch > 0 {
		if capped := l.MaxBatch / (k * (s + 1)); m > capped {
			m = capped
		}
	}
	ok = m >= l.MinLocal && m <= l.MaxLocal && m >= 1
	return m, s, ok
}

// Best returns the goodput-maximising configuration on k GPUs over n nodes:
// total batch sizes from max(M0, k·MinLocal) to MaxBatch (geometrically
// spaced candidates), each split by Limits.Split. Non-adaptive jobs get
// their fixed batch. If no candidate is feasible, the returned Config has
// zero goodput and the first candidate's (m, s).
func (md *Model) Best(n, k int) Config {
	if k <= 0 {
		return Config{}
	}
	if md.FixedBatch > 0 {
		m, s, _ := md.Limits.Split(k, float64(md.FixedBatch))
		if m < 1 {
			m = 1
		}
		return md.Evaluate(n, k, m, s)
	}
	lim := md.Limits
	lo := math.Max(float64(lim.InitBatch), float64(k*lim.MinLocal))
	hi := float64(lim.MaxBatch)
	num := md.Candidates
	if num <= 0 {
		num = DefaultCandidates
	}
	var best Config
	first := true
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
			if first {
				best = Config{Nodes: n, GPUs: k, Local: m, Accum: s, Batch: k * m * (s + 1)}
				first = false
			}
			continue
		}
		c := md.Evaluate(n, k, m, s)
		if first || c.Goodput > best.Goodput {
			best = c
			first = false
		}
	}
	return best
}

// GeomPoint is the i-th (0-based) of num points geometrically spaced from
// lo to hi, with both ends exact: the optimiser's candidate total batches.
func GeomPoint(lo, hi float64, i, num int) float64 {
	if i == 0 || num == 1 {
		return lo
	}
	if i == num-1 {
		return hi
	}
	return math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*float64(i)/float64(num-1))
}

// FairShare returns the allocation the reference Pollux implementation uses
// as the baseline of speedup: ceil(totalGPUs/jobs) GPUs on a single node.
func FairShare(totalGPUs, jobs int) (nodes, gpus int) {
	if jobs < 1 {
		jobs = 1
	}
	return 1, (totalGPUs + jobs - 1) / jobs
}

// Speedup compares a job's best goodput on an allocation with its best
// goodput on a base allocation. It memoises results per (nodes, GPUs) and
// is not safe for concurrent use.
type Speedup struct {
	model *Model
	base  float64
	memo  map[[2]int]float64
}

// NewSpeedup builds a speedup function relative to the best goodput on
// baseGPUs GPUs over baseNodes nodes (see FairShare).
func NewSpeedup(md *Model, baseNodes, baseGPUs int) *Speedup {
	return &Speedup{model: md, base: md.Best(baseNodes, baseGPUs).Goodput, memo: map[[2]int]float64{}}
}

// Base is the goodput of the base allocation.
func (sp *Speedup) Base() float64 { return sp.base }

// At returns best goodput on k GPUs over n nodes divided by the base
// goodput; 0 for an empty allocation or a zero base.
func (sp *Speedup) At(n, k int) float64 {
	if k <= 0 || sp.base <= 0 {
		return 0
	}
	key := [2]int{n, k}
	if v, ok := sp.memo[key]; ok {
		return v
	}
	v := sp.model.Best(n, k).Goodput / sp.base
	sp.memo[key] = v
	return v
}

// PackedPlacement returns the placement of k GPUs packed onto as few nodes
// of perNode GPUs as possible, full nodes first (10 on 4-GPU nodes is
// [4 4 2]); nil if k or perNode is not positive.
func PackedPlacement(k, perNode int) []int {
	if k <= 0 || perNode <= 0 {
		return nil
	}
	p := make([]int, 0, (k+perNode-1)/perNode)
	for k > 0 {
		take := min(k, perNode)
		p = append(p, take)
		k -= take
	}
	return p
}
