package elasticflow

import (
	"math"
	"sort"
)

// Level is one GPU count a job may run at and its speed there.
type Level struct {
	// GPUs is the count: a power of two.
	GPUs int
	// Rate is the fraction of the job's remaining work done per second on
	// GPUs GPUs: 1 / its run time alone there (policies.Job.RunTimeAlone).
	Rate float64
}

// Curve is a job's scaling curve: its levels in increasing GPU count, each
// faster than the one before.
type Curve []Level

// Levels builds a curve from a job's run time alone on k GPUs (0 or less,
// or not finite, where it cannot run): the powers of two 1, 2, 4, … up to
// maxGPUs, stopping at the first count that is not faster than the one
// before. This is the throughput table of ElasticFlow's artifact (its
// columns are the powers of two, scheduler/utils.py get_next_level and
// get_last_level step through them) cut at the knee of the curve, where
// the artifact cuts it by a hand-set maximum per model (models.py
// get_max_gpu).
func Levels(maxGPUs int, runTime func(k int) float64) Curve {
	var c Curve
	for k := 1; k <= maxGPUs; k *= 2 {
		t := runTime(k)
		if !(t > 0) || math.IsInf(t, 0) {
			break
		}
		r := 1 / t
		if len(c) > 0 && !(r > c[len(c)-1].Rate) {
			break
		}
		c = append(c, Level{GPUs: k, Rate: r})
	}
	return c
}

// atMost is the index of the largest level of at most k GPUs, −1 when
// there is none.
func (c Curve) atMost(k int) int {
	i := sort.Search(len(c), func(i int) bool { return c[i].GPUs > k })
	return i - 1
}

// index is the index of the level of exactly k GPUs, −1 when k is not one.
func (c Curve) index(k int) int {
	i := c.atMost(k)
	if i >= 0 && c[i].GPUs == k {
		return i
	}
	return -1
}

// MinShareAlone is the paper's minimum satisfactory share of a job alone
// on the cluster: the fewest GPUs of its curve whose rate finishes its
// remaining work within the time it has left, Rate·left ≥ 1, or 0 when no
// level does.
func MinShareAlone(c Curve, left float64) int {
	for _, l := range c {
		if l.Rate*left >= 1 {
			return l.GPUs
		}
	}
	return 0
}

// Profile is the free GPUs of the cluster over time, from a start on:
// segment i spans [At[i], At[i+1]), the last one without end.
type Profile struct {
	At   []float64
	Free []int
}

// NewProfile is a cluster of total GPUs, all free from now on.
func NewProfile(now float64, total int) *Profile {
	return &Profile{At: []float64{now}, Free: []int{total}}
}

// end is where segment i ends (+Inf for the last one).
func (p *Profile) end(i int) float64 {
	if i+1 < len(p.At) {
		return p.At[i+1]
	}
	return math.Inf(1)
}

// split makes t (at or after the profile's start) a segment boundary and
// returns the index of the segment starting at t.
func (p *Profile) split(t float64) int {
	i := sort.SearchFloat64s(p.At, t)
	if i < len(p.At) && p.At[i] == t {
		return i
	}
	p.At = append(p.At, 0)
	copy(p.At[i+1:], p.At[i:])
	p.At[i] = t
	p.Free = append(p.Free, 0)
	copy(p.Free[i+1:], p.Free[i:])
	p.Free[i] = p.Free[i-1]
	return i
}

// Piece is a job's planned GPUs over [From, To).
type Piece struct {
	From, To float64
	GPUs     int
}

// Plan is a job's planned allocation: pieces in time order, the job done at
// End.
type Plan struct {
	Pieces []Piece
	End    float64
	// Share is the job's satisfactory share: the most GPUs it holds in a
	// piece, the level the plan was found at.
	Share int
}

// At is the plan's GPUs at time t.
func (pl *Plan) At(t float64) int {
	for _, pc := range pl.Pieces {
		if pc.From <= t && t < pc.To {
			return pc.GPUs
		}
	}
	return 0
}

// GPUTime is the plan's GPU-seconds.
func (pl *Plan) GPUTime() float64 {
	s := 0.0
	for _, pc := range pl.Pieces {
		s += float64(pc.GPUs) * (pc.To - pc.From)
	}
	return s
}

// Reserve takes the plan's GPUs out of the profile.
func (p *Profile) Reserve(pl *Plan) {
	for _, pc := range pl.Pieces {
		if pc.GPUs == 0 || !(pc.To > pc.From) {
			continue
		}
		i, j := p.split(pc.From), p.split(pc.To)
		for s := i; s < j; s++ {
			p.Free[s] -= pc.GPUs
		}
	}
}

// MinShare plans a job's remaining work (1) before deadline on what the
// profile leaves free, at its minimum satisfactory share, as ElasticFlow's
// admission control does (artifact: scheduler.py ef_sim_allocation): for
// each level q of the curve in increasing order, walk back from the
// deadline over the profile's segments, taking in each the largest level
// of at most min(q, free) GPUs, until the work is covered; the first q that
// covers it is the share. The plan then runs forward from now: the
// segments before the one where the walk stopped at the level below q (as
// the artifact's last_quota; none below the first level), the others at
// q, each capped by what is free, until the work is done. Filling from the
// deadline backward keeps a job at the smallest share that meets its
// deadline. ok is false when no level covers the work.
func MinShare(c Curve, p *Profile, deadline float64) (pl Plan, ok bool) {
	start := p.At[0]
	if !(deadline > start) || len(c) == 0 {
		return Plan{}, false
	}
	// alloc is what level cap q (an index, −1 for none) takes in segment
	// i: −1 for none.
	alloc := func(q, i int) int {
		if q < 0 {
			return -1
		}
		return min(q, c.atMost(p.Free[i]))
	}
	last := sort.SearchFloat64s(p.At, deadline) - 1 // the segment holding the deadline
	for q := range c {
		work := 0.0
		for stop := last; stop >= 0; stop-- {
			if a := alloc(q, stop); a >= 0 {
				work += (min(p.end(stop), deadline) - p.At[stop]) * c[a].Rate
			}
			if work < 1 {
				continue
			}
			pl = Plan{Share: c[q].GPUs}
			done := 0.0
			for s := 0; s <= last && done < 1-1e-12; s++ {
				level := q
				if s < stop {
					level = q - 1
				}
				a := alloc(level, s)
				if a < 0 {
					continue
				}
				from, to := p.At[s], min(p.end(s), deadline)
				if need := (1 - done) / c[a].Rate; from+need <= to {
					to = from + need
				}
				done += (to - from) * c[a].Rate
				pl.Pieces = append(pl.Pieces, Piece{From: from, To: to, GPUs: c[a].GPUs})
				pl.End = to
			}
			return pl, true
		}
	}
	return Plan{}, false
}

// Fastest plans a job's remaining work (1) as early as the profile allows:
// from now on, in each segment the largest level of the curve that is
// free, until the work is done. It is what the artifact's ef_sim_allocation
// gives a job whose deadline no share meets (every segment at the largest
// level tried, capped by what is free, past the deadline until done), so
// that a late job still runs, in its place in deadline order. ok is false
// when the job never finishes (no level is ever free).
func Fastest(c Curve, p *Profile) (pl Plan, ok bool) {
	if len(c) == 0 {
		return Plan{}, false
	}
	done := 0.0
	for s := 0; s < len(p.At) && done < 1-1e-12; s++ {
		a := c.atMost(p.Free[s])
		if a < 0 {
			continue
		}
		from, to := p.At[s], p.end(s)
		if need := (1 - done) / c[a].Rate; from+need <= to {
			to = from + need
		}
		done += (to - from) * c[a].Rate
		pl.Pieces = append(pl.Pieces, Piece{From: from, To: to, GPUs: c[a].GPUs})
		pl.End = to
		pl.Share = max(pl.Share, c[a].GPUs)
	}
	return pl, done >= 1-1e-12
}
