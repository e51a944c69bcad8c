package profiles

// LargestMeasuredGPUs is the largest GPU count of any placement the set's
// applications were measured at, on any GPU type: for measured tables the
// largest placement of placements.csv or replica count of scalability.csv
// (64 for the reference's tables, 16 nodes x 4), for a compact model the
// largest nodes x GPUs per node of its correction's knots (the measured
// grid it was fitted on). 0 when no application says (a Truth of another
// kind): then nothing is known to be too large.
//
// A trace job larger than this has no measured throughput to stand on; the
// trace samplers cap or refuse it (traces.TraceSampleOptions.MaxGPUs).
func (s *Set) LargestMeasuredGPUs() int {
	n := 0
	for _, a := range s.Apps {
		n = max(n, measuredGPUs(a.Truth))
		for _, ta := range a.ByType {
			n = max(n, measuredGPUs(ta.Truth))
		}
	}
	return n
}

// measuredGPUs is the largest GPU count a Truth's data was measured at, 0
// when it does not say.
func measuredGPUs(t Truth) int {
	switch t := t.(type) {
	case *TableTruth:
		n := 0
		for _, r := range t.Placements {
			g := 0
			for _, x := range r.Placement {
				g += x
			}
			n = max(n, g)
		}
		for _, r := range t.Scalability {
			n = max(n, r.Replicas)
		}
		return n
	case *compactTruth:
		return t.m.Correction.largestGPUs()
	case *typedTruth:
		return max(t.corr.largestGPUs(), measuredGPUs(t.Truth))
	case scaledTruth:
		return measuredGPUs(t.Truth)
	}
	return 0
}

// largestGPUs is the largest nodes x GPUs per node of the correction's
// knots, 0 without knots.
func (c *CompactCorrection) largestGPUs() int {
	n := 0
	for _, nodes := range c.Nodes {
		for _, g := range c.GPUsPerNode {
			n = max(n, int(nodes*g))
		}
	}
	return n
}
