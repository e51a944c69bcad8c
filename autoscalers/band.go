package autoscalers

import (
	"fmt"
	"math"
)

// Band is the cluster-level rule of the Pollux artifact: the cluster's
// utility (predicted goodput over the ideal of perfect scaling, all jobs
// together) averaged over the last Window rounds is kept within [Low,
// High]. When the average leaves the band the history is cleared and the
// node count is set by binary search for the largest count whose
// predicted utility is at least the band's middle (utility falls with the
// node count).
type Band struct {
	Low    float64 `option:"low" doc:"scale down when the averaged utility is below this, in (0, 1) and below high"`
	High   float64 `option:"high" doc:"scale up when the averaged utility is above this, in (0, 1] and above low"`
	Window int     `option:"window" doc:"rounds over which utility is averaged, in [1, 100000]"`

	hist []float64
}

// MaxWindow bounds Band.Window: a longer window (at the default 60 s
// interval, over 69 days) would keep the cluster at its size for the whole
// of any run, silently.
const MaxWindow = 100000

// Validate checks 0 < Low < High ≤ 1 and a window in [1, MaxWindow].
func (b *Band) Validate() error {
	switch {
	case !(b.Low > 0) || !(b.High <= 1) || math.IsNaN(b.High):
		return fmt.Errorf("low and high must be in (0, 1], got low=%v high=%v", b.Low, b.High)
	case !(b.High > b.Low):
		return fmt.Errorf("high must be greater than low, got high=%v low=%v", b.High, b.Low)
	case b.Window < 1 || b.Window > MaxWindow:
		return fmt.Errorf("window must be in [1, %d] rounds, got %d", MaxWindow, b.Window)
	}
	return nil
}

// Target records the utility at cur ready nodes and returns the desired
// node count in [lo, hi] (cur while the average stays in the band or
// fewer than Window rounds were seen since the last change).
func (b *Band) Target(c Curve, cur, lo, hi int) int {
	u, ok := c.Ratio(cur)
	if !ok {
		return Clamp(cur, lo, hi)
	}
	b.hist = append(b.hist, u)
	if len(b.hist) > b.Window {
		b.hist = b.hist[len(b.hist)-b.Window:]
	}
	if len(b.hist) < b.Window {
		return Clamp(cur, lo, hi)
	}
	avg := 0.0
	for _, x := range b.hist {
		avg += x
	}
	avg /= float64(len(b.hist))
	if avg >= b.Low && avg <= b.High {
		return Clamp(cur, lo, hi)
	}
	b.hist = b.hist[:0]
	mid := (b.Low + b.High) / 2
	// Invariant: ratio(good) ≥ mid (or good == lo); bad is past the end.
	good, bad := lo, hi+1
	for bad-good > 1 {
		m := (good + bad) / 2
		if x, ok := c.Ratio(m); ok && x >= mid {
			good = m
		} else {
			bad = m
		}
	}
	return Clamp(good, lo, hi)
}
