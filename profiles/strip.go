package profiles

import "math"

// strip is the Delaunay triangulation of the (nodes, replicas) points of
// two adjacent levels a < b, i.e. of points on two parallel lines. It is
// built by the classic zipper merge: starting from the bottom edge (the
// smallest replica count of each level), each step advances along level a
// unless the next point of level b lies inside the circle through the
// current edge and the next point of a. Every edge joins a point of level a
// to one of level b, edges never cross, and two consecutive edges bound one
// triangle.
type strip struct {
	ea, eb []int // edge k joins a.reps[ea[k]] and b.reps[eb[k]]
}

func newStrip(a, b *level) strip {
	s := strip{ea: []int{0}, eb: []int{0}}
	i, j := 0, 0
	for i < len(a.reps)-1 || j < len(b.reps)-1 {
		advanceA := j == len(b.reps)-1
		if i < len(a.reps)-1 && j < len(b.reps)-1 {
			advanceA = !inCircle(
				a.nodes, a.reps[i], b.nodes, b.reps[j], a.nodes, a.reps[i+1],
				b.nodes, b.reps[j+1])
		}
		if advanceA {
			i++
		} else {
			j++
		}
		s.ea, s.eb = append(s.ea, i), append(s.eb, j)
	}
	return s
}

// inCircle reports whether point d lies strictly inside the circle through
// a, b and c (in either orientation).
func inCircle(ax, ay, bx, by, cx, cy, dx, dy float64) bool {
	adx, ady := ax-dx, ay-dy
	bdx, bdy := bx-dx, by-dy
	cdx, cdy := cx-dx, cy-dy
	det := (adx*adx+ady*ady)*(bdx*cdy-cdx*bdy) -
		(bdx*bdx+bdy*bdy)*(adx*cdy-cdx*ady) +
		(cdx*cdx+cdy*cdy)*(adx*bdy-bdx*ady)
	if (bx-ax)*(cy-ay)-(by-ay)*(cx-ax) < 0 {
		det = -det
	}
	return det > 1e-9
}

// at interpolates between levels a and b at n nodes (a.nodes < n <
// b.nodes), r replicas and per-GPU batch l.
func (s *strip) at(a, b *level, n, r, l float64) (step, sync float64) {
	t := (n - a.nodes) / (b.nodes - a.nodes)
	// cross(k) is the replica count where edge k crosses the line x = n;
	// it increases with k.
	cross := func(k int) float64 { return lerp(a.reps[s.ea[k]], b.reps[s.eb[k]], t) }
	edge := func(k int) (float64, float64) {
		s0, y0 := a.at(a.reps[s.ea[k]], l)
		s1, y1 := b.at(b.reps[s.eb[k]], l)
		return lerp(s0, s1, t), lerp(y0, y1, t)
	}
	last := len(s.ea) - 1
	if !(r > cross(0)) {
		return edge(0)
	}
	if top := cross(last); r >= top {
		step, sync = edge(last)
		if r == top {
			return step, sync
		}
		ss0, sy0 := a.slope(l)
		ss1, sy1 := b.slope(l)
		d := r - top
		if ss := lerp(ss0, ss1, t); ss > 0 {
			step = math.Min(step+d*ss, maxTime)
		}
		if sy := lerp(sy0, sy1, t); sy > 0 {
			sync = math.Min(sync+d*sy, maxTime)
		}
		return step, math.Min(sync, step)
	}
	k := 1
	for cross(k) < r {
		k++
	}
	// The triangle between edges k-1 and k has the two ends of edge k-1
	// and the one new point of edge k.
	x1, r1 := a.nodes, a.reps[s.ea[k-1]]
	x2, r2 := b.nodes, b.reps[s.eb[k-1]]
	x3, r3, lv3 := a.nodes, a.reps[s.ea[k]], a
	if s.ea[k] == s.ea[k-1] {
		x3, r3, lv3 = b.nodes, b.reps[s.eb[k]], b
	}
	det := (r2-r3)*(x1-x3) + (x3-x2)*(r1-r3)
	w1 := ((r2-r3)*(n-x3) + (x3-x2)*(r-r3)) / det
	w2 := ((r3-r1)*(n-x3) + (x1-x3)*(r-r3)) / det
	w3 := 1 - w1 - w2
	s1, y1 := a.at(r1, l)
	s2, y2 := b.at(r2, l)
	s3, y3 := lv3.at(r3, l)
	return w1*s1 + w2*s2 + w3*s3, w1*y1 + w2*y2 + w3*y3
}

// slope returns the level's slope per replica of (step, sync) beyond its
// largest replica count at per-GPU batch l, floored at zero.
func (lv *level) slope(l float64) (float64, float64) {
	n := len(lv.reps)
	if n < 2 {
		return 0, 0
	}
	s1, y1 := lv.pairs[n-1].at(l, true)
	s0, y0 := lv.pairs[n-2].at(l, true)
	d := lv.reps[n-1] - lv.reps[n-2]
	return math.Max(0, (s1-s0)/d), math.Max(0, (y1-y0)/d)
}
