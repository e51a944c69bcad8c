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
	// NoAccum forbids gradient accumulation: every step is one micro-batch
	// per GPU (AdaptDL's hint gradientAccumulation false; see Split). The
	// zero value allows it, as every simulated job does.
	NoAccum bool
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

// BatchTolerance is the relative slack of the ceilings in batch splits:
// a quotient within 1e-8 above an integer rounds down to it, so that
// rounding errors in a division never add a micro-step or a sample.
const BatchTolerance = 1e-8

// CeilBatch is ⌈x⌉ with BatchTolerance: the smallest integer not below
// x − 1e-8.
func CeilBatch(x float64) float64 { return math.Ceil(x - BatchTolerance) }

// SplitLocal splits local, the samples one GPU processes per optimizer
// step, into s+1 micro-batches of at most maxLocal samples: s is the
// smallest count with ⌈local/(s+1)⌉ ≤ maxLocal, raised to minAccum if
// lower, and m = ⌈local/(s+1)⌉ (ceilings as in CeilBatch). It is the one
// home of the (m, s) split; Limits.Split, Optimus and TunedJobs call it
// with their own local and minAccum. A maxLocal of 0 or less (a job whose
// limits name no batch) caps nothing: s is minAccum, never a count cast
// from local/0.
func SplitLocal(local float64, maxLocal, minAccum int) (m float64, s int) {
	if maxLocal > 0 {
		s = int(CeilBatch(local/float64(maxLocal))) - 1
	}
	if s < 0 {
		s = 0
	}
	if s < minAccum {
		s = minAccum
	}
	return CeilBatch(local / float64(s+1)), s
}

// CapLocal lowers a per-GPU batch m on k GPUs with s accumulation steps so
// that the total batch k·m·(s+1) does not exceed MaxBatch (no cap when
// MaxBatch is not positive).
func (l Limits) CapLocal(k, s, m int) int {
	if l.MaxBatch > 0 {
		if capped := l.MaxBatch / (k * (s + 1)); m > capped {
			m = capped
		}
	}
	return m
}

// Split turns a desired total batch size into a per-GPU batch and a number
// of accumulation steps on k GPUs: the smallest s with
// m = ceil(M/(k(s+1))) ≤ MaxLocal, then m is lowered if needed so that
// k·m·(s+1) ≤ MaxBatch. As in the reference implementation, a single GPU
// running above the initial batch size uses at least one accumulation step,
// because the agent needs two micro-batches to estimate gradient noise.
// ok is false when the result falls outside [MinLocal, MaxLocal].
//
// With NoAccum there is no accumulation step (s = 0): m = ⌈M/k⌉ at most
// MaxLocal, and a single GPU runs at M0 (at most MaxLocal), as AdaptDL's
// goodput.optimize does without accumulation.
func (l Limits) Split(k int, batch float64) (m, s int, ok bool) {
	if k <= 0 || batch <= 0 {
		return 0, 0, false
	}
	local := batch / float64(k)
	if l.NoAccum {
		if k == 1 && l.InitBatch > 0 {
			local = float64(l.InitBatch)
		}
		m = l.CapLocal(k, 0, min(int(CeilBatch(local)), l.MaxLocal))
		return m, 0, m >= l.MinLocal && m <= l.MaxLocal && m >= 1
	}
	minAccum := 0
	if k == 1 && local > float64(l.InitBatch)+BatchTolerance {
		minAccum = 1
	}
	fm, s := SplitLocal(local, l.MaxLocal, minAccum)
	m = l.CapLocal(k, s, int(fm))
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
	p := md.newPlan(n, k, nil)
	return md.best(&p, n)
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

// GoodputFunc returns a job's best goodput on k GPUs over n nodes (its
// Model.Best(n, k).Goodput); callers pass one to memoise it.
type GoodputFunc func(n, k int) float64

// Speedup is Pollux's speedup of a job: its best goodput on an allocation
// divided by its best goodput on a base allocation (see FairShare). A job
// without a fitted model yet has the linear speedup k / (GPUs of the base).
// It is a small value; At is safe for concurrent use if its GoodputFunc is.
type Speedup struct {
	best     GoodputFunc // nil: no model, linear speedup
	base     float64
	baseGPUs float64
}

// NewSpeedup builds the speedup relative to the best goodput on baseGPUs
// GPUs over baseNodes nodes. md nil means the job has no model yet. best,
// if not nil, must return md.Best(n, k).Goodput (typically memoised).
func NewSpeedup(md *Model, baseNodes, baseGPUs int, best GoodputFunc) Speedup {
	sp := Speedup{baseGPUs: float64(baseGPUs)}
	if md == nil {
		return sp
	}
	if best == nil {
		best = func(n, k int) float64 { return md.Best(n, k).Goodput }
	}
	sp.best = best
	sp.base = best(baseNodes, baseGPUs)
	return sp
}

// Base is the best goodput on the base allocation (0 without a model).
func (sp Speedup) Base() float64 { return sp.base }

// At returns the speedup on k GPUs over n nodes: 0 for no GPUs or a zero
// base goodput, k / base GPUs without a model.
func (sp Speedup) At(n, k int) float64 {
	if k <= 0 {
		return 0
	}
	if sp.best == nil {
		return float64(k) / sp.baseGPUs
	}
	if sp.base <= 0 {
		return 0
	}
	return sp.best(n, k) / sp.base
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
