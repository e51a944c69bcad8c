package profiles

import "strconv"

// NormalizePlacement returns the canonical form of a placement (GPUs used
// on each node): zero entries dropped, then rotated to its lexicographically
// smallest cyclic rotation, as the reference simulator does before looking
// a placement up. The input is not modified.
func NormalizePlacement(p []int) []int {
	out := make([]int, 0, len(p))
	for _, g := range p {
		if g != 0 {
			out = append(out, g)
		}
	}
	return minRotation(out)
}

// minRotation rotates p in place to its lexicographically smallest cyclic
// rotation and returns it.
func minRotation(p []int) []int {
	best := bestRotation(p)
	if best == 0 {
		return p
	}
	rot := make([]int, len(p))
	copy(rot, p[best:])
	copy(rot[len(p)-best:], p[:best])
	copy(p, rot)
	return p
}

// bestRotation returns the start index of the smallest rotation of p
// (the first one on ties). Placements are short, so the quadratic scan is
// the fast choice.
func bestRotation(p []int) int {
	n := len(p)
	best := 0
	for s := 1; s < n; s++ {
		for i := 0; i < n; i++ {
			a, b := p[(s+i)%n], p[(best+i)%n]
			if a != b {
				if a < b {
					best = s
				}
				break
			}
		}
	}
	return best
}

// placementKey is the reference's id of a normalised placement: its digits
// concatenated ("1244"). Entries above 9 are written in brackets so that
// keys stay unique; such placements are never in a measured table.
func placementKey(p []int) string {
	b := make([]byte, 0, len(p))
	for _, g := range p {
		if g >= 1 && g <= 9 {
			b = append(b, byte('0'+g))
		} else {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(g), 10)
			b = append(b, ']')
		}
	}
	return string(b)
}
