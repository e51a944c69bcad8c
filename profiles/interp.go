package profiles

import (
	"math"
	"sort"
)

// This file holds the throughput interpolation of measured tables.
//
// Measured placements: (step, sync) are linear in the per-GPU batch size
// between the measured rows of the placement, and clamped to the end rows
// outside them (the reference's scipy interp1d raises there instead).
//
// Any other placement is looked up in a "grid" over (nodes, replicas,
// local batch) made of the placement rows averaged per (nodes, replicas,
// local) plus the scalability rows, as in the reference. Instead of the
// reference's 3-D Delaunay triangulation (Qhull), the grid is read as what
// it is, a set of node-count levels (1, 2, 3, 4, 6, 8, 12, 16 in the
// reference data), each holding a few replica counts, each holding a curve
// over the per-GPU batch size:
//
//  1. along the per-GPU batch size: linear between the measured sizes; a
//     pair whose curve stops short of the largest size measured at its
//     level (the reference omits some large total batches) is first
//     completed from the nearest replica count of its level that has the
//     missing sizes, by the ratio of that neighbour's times; beyond every
//     measured size the last segment is continued with a slope of at least
//     zero; below the smallest size the value is clamped;
//  2. along the replica count within a level: linear between measured
//     counts; above the largest one the last segment is continued with a
//     slope of at least zero (e.g. 8-GPU nodes); below the smallest one it
//     is clamped;
//  3. between two levels a < n < b: piecewise linear on the Delaunay
//     triangulation of the strip between the two levels' (nodes, replicas)
//     points (see strip.go), close to what the reference's 3-D
//     triangulation does there (mean difference 0.6–1.9 % on the reference
//     data, see README.md); above the strip's top edge
//     (more GPUs per node than measured, e.g. 8-GPU nodes) the top edge's
//     value is continued along the replica count with the two levels'
//     last slopes (at least zero). Node counts above the largest level (16)
//     are capped to it, as in the reference; replicas are kept, so more
//     than 64 GPUs extrapolate along the replica count of that level.
//
// Every result is deterministic, monotone outside the measured range, and
// satisfies 0 ≤ sync ≤ step.

// curve is the measured (step, sync) of one placement or one (nodes,
// replicas) pair at strictly increasing per-GPU batch sizes.
type curve struct {
	local []float64
	step  []float64
	sync  []float64
}

// at interpolates the curve at per-GPU batch l. Below the first point it
// clamps; above the last it clamps, or, if extrapolate is set, continues
// the last segment with a non-negative slope.
func (c *curve) at(l float64, extrapolate bool) (step, sync float64) {
	n := len(c.local)
	if n == 1 || !(l > c.local[0]) {
		return c.step[0], c.sync[0]
	}
	if l >= c.local[n-1] {
		if !extrapolate || l == c.local[n-1] {
			return c.step[n-1], c.sync[n-1]
		}
		d := (l - c.local[n-1]) / (c.local[n-1] - c.local[n-2])
		return extend(c.step[n-2], c.sync[n-2], c.step[n-1], c.sync[n-1], d)
	}
	i := searchAbove(c.local, l)
	if c.local[i] == l {
		return c.step[i], c.sync[i]
	}
	w := (l - c.local[i-1]) / (c.local[i] - c.local[i-1])
	return lerp(c.step[i-1], c.step[i], w), lerp(c.sync[i-1], c.sync[i], w)
}

// searchAbove returns the first index i with xs[i] ≥ x (xs sorted, short).
func searchAbove(xs []float64, x float64) int {
	for i, v := range xs {
		if v >= x {
			return i
		}
	}
	return len(xs)
}

func lerp(a, b, w float64) float64 { return a + w*(b-a) }

// maxTime bounds every extrapolated or derived time (seconds), so that
// arithmetic on absurd queries stays finite.
const maxTime = 1e15

// extend continues the segment (s0, y0) → (s1, y1) by d segment lengths
// beyond its end with slopes of at least zero, keeping sync ≤ step.
func extend(s0, y0, s1, y1, d float64) (step, sync float64) {
	step, sync = s1, y1
	if s1 > s0 {
		step = math.Min(s1+(s1-s0)*d, maxTime)
	}
	if y1 > y0 {
		sync = math.Min(y1+(y1-y0)*d, maxTime)
	}
	return step, math.Min(sync, step)
}

// level is the set of (replicas, curve) pairs measured at one node count.
type level struct {
	nodes float64
	reps  []float64 // ascending
	pairs []*curve
}

// at interpolates the level at replica count r and per-GPU batch l.
func (lv *level) at(r, l float64) (step, sync float64) {
	n := len(lv.reps)
	if n == 1 || !(r > lv.reps[0]) {
		return lv.pairs[0].at(l, true)
	}
	if r >= lv.reps[n-1] {
		s1, y1 := lv.pairs[n-1].at(l, true)
		if r == lv.reps[n-1] {
			return s1, y1
		}
		s0, y0 := lv.pairs[n-2].at(l, true)
		return extend(s0, y0, s1, y1, (r-lv.reps[n-1])/(lv.reps[n-1]-lv.reps[n-2]))
	}
	i := searchAbove(lv.reps, r)
	if lv.reps[i] == r {
		return lv.pairs[i].at(l, true)
	}
	s0, y0 := lv.pairs[i-1].at(l, true)
	s1, y1 := lv.pairs[i].at(l, true)
	w := (r - lv.reps[i-1]) / (lv.reps[i] - lv.reps[i-1])
	return lerp(s0, s1, w), lerp(y0, y1, w)
}

// grid is the interpolant over (nodes, replicas, local batch).
type grid struct {
	levels []level // ascending node counts
	strips []strip // strips[i] joins levels i and i+1
}

// at interpolates the grid for a job on nodes nodes with reps GPUs in total
// at per-GPU batch l.
func (g *grid) at(nodes, reps int, l float64) (step, sync float64) {
	lv := g.levels
	n, r := float64(nodes), float64(reps)
	if len(lv) == 1 || !(n > lv[0].nodes) {
		return lv[0].at(r, l)
	}
	last := len(lv) - 1
	if n >= lv[last].nodes {
		return lv[last].at(r, l)
	}
	i := 1
	for lv[i].nodes < n {
		i++
	}
	if lv[i].nodes == n {
		return lv[i].at(r, l)
	}
	return g.strips[i-1].at(&lv[i-1], &lv[i], n, r, l)
}

// gridSample is one (nodes, replicas, local) → (step, sync) point.
type gridSample struct {
	nodes, reps int
	local       float64
	step, sync  float64
}

// referenceSamples returns the points the reference interpolates between:
// placement rows averaged per (nodes, replicas, local), then every
// scalability row.
func referenceSamples(pl []PlacementRow, sc []ScalabilityRow) []gridSample {
	type key struct {
		n, r int
		l    float64
	}
	type acc struct {
		step, sync float64
		count      int
	}
	sums := map[key]*acc{}
	var order []key
	for _, row := range pl {
		k := key{len(row.Placement), sum(row.Placement), row.Local}
		a := sums[k]
		if a == nil {
			a = &acc{}
			sums[k] = a
			order = append(order, k)
		}
		a.step += row.Step
		a.sync += row.Sync
		a.count++
	}
	out := make([]gridSample, 0, len(order)+len(sc))
	for _, k := range order {
		a := sums[k]
		c := float64(a.count)
		out = append(out, gridSample{k.n, k.r, k.l, a.step / c, a.sync / c})
	}
	for _, row := range sc {
		out = append(out, gridSample{row.Nodes, row.Replicas, row.Local, row.Step, row.Sync})
	}
	return out
}

func sum(p []int) int {
	s := 0
	for _, g := range p {
		s += g
	}
	return s
}

// buildGrid organises samples into levels and pairs. Samples at the same
// (nodes, replicas, local) are averaged. It returns nil for no samples.
func buildGrid(samples []gridSample) *grid {
	if len(samples) == 0 {
		return nil
	}
	type pairKey struct{ n, r int }
	type point struct {
		step, sync float64
		count      int
	}
	pairs := map[pairKey]map[float64]*point{}
	for _, s := range samples {
		k := pairKey{s.nodes, s.reps}
		m := pairs[k]
		if m == nil {
			m = map[float64]*point{}
			pairs[k] = m
		}
		p := m[s.local]
		if p == nil {
			p = &point{}
			m[s.local] = p
		}
		p.step += s.step
		p.sync += s.sync
		p.count++
	}
	keys := make([]pairKey, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].n != keys[j].n {
			return keys[i].n < keys[j].n
		}
		return keys[i].r < keys[j].r
	})
	g := &grid{}
	for _, k := range keys {
		m := pairs[k]
		c := &curve{}
		for l := range m {
			c.local = append(c.local, l)
		}
		sort.Float64s(c.local)
		for _, l := range c.local {
			p := m[l]
			c.step = append(c.step, p.step/float64(p.count))
			c.sync = append(c.sync, p.sync/float64(p.count))
		}
		if len(g.levels) == 0 || g.levels[len(g.levels)-1].nodes != float64(k.n) {
			g.levels = append(g.levels, level{nodes: float64(k.n)})
		}
		lv := &g.levels[len(g.levels)-1]
		lv.reps = append(lv.reps, float64(k.r))
		lv.pairs = append(lv.pairs, c)
	}
	for i := range g.levels {
		g.levels[i].complete()
	}
	for i := 1; i < len(g.levels); i++ {
		g.strips = append(g.strips, newStrip(&g.levels[i-1], &g.levels[i]))
	}
	return g
}

// complete extends the pairs of a level whose curves stop short of the
// level's largest measured per-GPU batch, using the shape of the nearest
// pair (by replica count; the smaller one on ties) that has both the
// pair's last size and the missing one.
func (lv *level) complete() {
	orig := make([]*curve, len(lv.pairs))
	copy(orig, lv.pairs)
	for i, c := range orig {
		last := c.local[len(c.local)-1]
		missing := map[float64]bool{}
		for _, d := range orig {
			for _, l := range d.local {
				if l > last {
					missing[l] = true
				}
			}
		}
		if len(missing) == 0 {
			continue
		}
		ls := make([]float64, 0, len(missing))
		for l := range missing {
			ls = append(ls, l)
		}
		sort.Float64s(ls)
		ext := &curve{
			local: append([]float64(nil), c.local...),
			step:  append([]float64(nil), c.step...),
			sync:  append([]float64(nil), c.sync...),
		}
		s0, y0 := c.step[len(c.step)-1], c.sync[len(c.sync)-1]
		for _, l := range ls {
			d := nearestDonor(lv, i, last, l)
			if d == nil {
				break
			}
			ds0, dy0 := d.at(last, false)
			ds1, dy1 := d.at(l, false)
			step := math.Min(s0*ds1/ds0, maxTime)
			sync := y0
			if dy0 > 0 {
				sync = math.Min(y0*dy1/dy0, maxTime)
			}
			ext.local = append(ext.local, l)
			ext.step = append(ext.step, step)
			ext.sync = append(ext.sync, math.Min(sync, step))
		}
		lv.pairs[i] = ext
	}
}

// nearestDonor returns the pair of lv other than i, nearest in replica
// count, whose measured curve contains both per-GPU sizes a and b (the
// pairs already completed count with their completed points).
func nearestDonor(lv *level, i int, a, b float64) *curve {
	var best *curve
	bestDist := math.Inf(1)
	for j, d := range lv.pairs {
		if j == i || !hasPoint(d, a) || !hasPoint(d, b) {
			continue
		}
		dist := math.Abs(lv.reps[j] - lv.reps[i])
		if dist < bestDist {
			best, bestDist = d, dist
		}
	}
	return best
}

func hasPoint(c *curve, l float64) bool {
	i := searchAbove(c.local, l)
	return i < len(c.local) && c.local[i] == l
}
