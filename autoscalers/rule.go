package autoscalers

import (
	"fmt"
	"math"
)

// Rule is the paper's scaling rule with thresholds U > L, both in (0, 1]
// as fractions of the ideal (perfectly scaling) value.
type Rule struct {
	U float64 `option:"u" doc:"scale up when the predicted value per node exceeds this fraction of the ideal, in (0, 1] and above l"`
	L float64 `option:"l" doc:"scale to the largest node count whose predicted value is at least this fraction of the ideal, in (0, 1) and below u"`
	// Down also scales down, to the L target, when the ratio falls below
	// L; the paper's rule only scales up (a job's goodput per node grows
	// as training goes on).
	Down bool `option:"scale_down" doc:"also scale down to the L target when the ratio falls below l (the paper's rule only scales up)"`
}

// Validate checks 0 < L < U ≤ 1.
func (r *Rule) Validate() error {
	switch {
	case !(r.L > 0) || !(r.U <= 1) || math.IsNaN(r.U):
		return fmt.Errorf("u and l must be in (0, 1], got u=%v l=%v", r.U, r.L)
	case !(r.U > r.L):
		return fmt.Errorf("u must be greater than l, got u=%v l=%v", r.U, r.L)
	}
	return nil
}

// Target applies the rule to curve c at cur ready nodes, within [lo, hi]:
// when the ratio at cur exceeds U, the largest n > cur (up to hi) whose
// ratio is still at least L, scanning upward until it falls below L; when
// the ratio at cur is below L and Down is set, the largest n < cur (down to lo) whose
// ratio reaches L, or lo; otherwise cur. Without a prediction, cur. The
// result is clamped to [lo, hi].
func (r Rule) Target(c Curve, cur, lo, hi int) int {
	ratio, ok := c.Ratio(cur)
	switch {
	case !ok:
	case ratio > r.U:
		n := cur
		for n < hi {
			x, ok := c.Ratio(n + 1)
			if !ok || x < r.L {
				break
			}
			n++
		}
		cur = n
	case ratio < r.L && r.Down:
		n := cur - 1
		for ; n > lo; n-- {
			if x, ok := c.Ratio(n); ok && x >= r.L {
				break
			}
		}
		cur = n
	}
	return Clamp(cur, lo, hi)
}
