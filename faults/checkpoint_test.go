package faults

import (
	"math"
	"testing"
)

// The exact ETTR agrees with its first-order form when failures are rare
// against the interval and the restart, and Young's interval maximises the
// first-order ETTR (minimises the time lost) over a sweep of intervals;
// Daly's is closer to the exact optimum than Young's.
func TestETTRAndIntervals(t *testing.T) {
	for _, c := range []struct{ rate, cost, restart float64 }{
		{1.0 / 36000, 60, 300}, {1.0 / 3600, 30, 60}, {1.0 / 86400, 300, 600},
	} {
		young, daly := Young(c.cost, 1/c.rate), Daly(c.cost, 1/c.rate)
		lost := func(tau float64, exact bool) float64 {
			if exact {
				return 1 - ETTR(c.rate, tau, c.cost, 0, c.restart)
			}
			return 1 - ETTRFirstOrder(c.rate, tau, c.cost, 0, c.restart)
		}
		best, bestExact := math.Inf(1), math.Inf(1)
		var argmin, argminExact float64
		for tau := young / 10; tau < young*10; tau *= 1.001 {
			if l := lost(tau, false); l < best {
				best, argmin = l, tau
			}
			if l := lost(tau, true); l < bestExact {
				bestExact, argminExact = l, tau
			}
		}
		// Young's interval minimises C/τ + Λτ/2, the first-order loss
		// with C ≪ τ: at it the loss is within 1 % of the sweep's minimum
		// (exact or first order), and Daly's loses no more than Young's.
		if lost(young, false) > best*1.01 || lost(young, true) > bestExact*1.01 {
			t.Errorf("%+v: loss at Young's %v: %v (first order), %v (exact); sweep minima %v at %v, %v at %v",
				c, young, lost(young, false), lost(young, true), best, argmin, bestExact, argminExact)
		}
		if lost(daly, true) > lost(young, true) {
			t.Errorf("%+v: exact loss at Daly's %v: %v, more than at Young's %v: %v", c, daly, lost(daly, true), young, lost(young, true))
		}
		if d := lost(young, true) - lost(young, false); math.Abs(d) > 0.1*lost(young, true) {
			t.Errorf("%+v: exact and first-order loss %v and %v", c, lost(young, true), lost(young, false))
		}
	}
}
