package profiles

import (
	"fmt"
	"math"
	"sort"
)

// ScaleStepTimes returns a copy of set in which each named application's
// true step and sync times are multiplied by its factor: a calibration of
// the measured tables to a slower (factor > 1) or faster cluster, as the
// Sia artifact calibrates its simulator to its testbed. Applications
// without a factor are unchanged; set itself is not modified. Factors must
// be positive and finite and name applications of the set.
func ScaleStepTimes(set *Set, factors map[string]float64) (*Set, error) {
	if len(factors) == 0 {
		return set, nil
	}
	names := make([]string, 0, len(factors))
	for name := range factors {
		names = append(names, name)
	}
	sort.Strings(names)
	out := &Set{Source: set.Source, Apps: make(map[string]*App, len(set.Apps))}
	for name, app := range set.Apps {
		out.Apps[name] = app
	}
	for _, name := range names {
		f := factors[name]
		app, err := set.App(name)
		if err != nil {
			return nil, err
		}
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("step-time factor of %s must be positive and finite, got %v", name, f)
		}
		c := *app
		c.Truth = scaledTruth{Truth: app.Truth, factor: f}
		out.Apps[name] = &c
	}
	return out, nil
}

// scaledTruth is a Truth whose step and sync times are scaled by factor;
// the training curve and gradient statistics are unchanged.
type scaledTruth struct {
	Truth
	factor float64
}

var _ Truth = scaledTruth{}

// Step implements Truth.
func (s scaledTruth) Step(placement []int, local float64) (float64, float64) {
	step, sync := s.Truth.Step(placement, local)
	return step * s.factor, sync * s.factor
}
