package profiles

import (
	"fmt"
	"math"
	"sort"
)

// ScaleStepTimes returns a copy of set in which each named application's
// true step and sync times are multiplied by its factor, on every GPU type
// it has tables for (App.ByType, read through ForType): a calibration of
// the measured tables to a slower (factor > 1) or faster cluster, as the
// Sia artifact calibrates its simulator to its testbed (one factor per
// model on every type). Applications without a factor are unchanged; set
// itself is not modified. Factors must be positive and finite and name
// applications of the set.
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
		out.Apps[name] = scaleApp(app, f)
	}
	return out, nil
}

// scaleApp returns a copy of app whose true step times, and those of each
// of its per-type profiles, are scaled by f. A per-type entry that is app
// itself (the Sia layout keeps the T4 tables as the application and in
// ByType) becomes the copy, so that ForType sees one scaled profile.
func scaleApp(app *App, f float64) *App {
	c := *app
	c.Truth = scaledTruth{Truth: app.Truth, factor: f}
	if app.ByType != nil {
		c.ByType = make(map[string]*App, len(app.ByType))
		for t, b := range app.ByType {
			if b == app {
				c.ByType[t] = &c
				continue
			}
			bc := *b
			bc.Truth = scaledTruth{Truth: b.Truth, factor: f}
			c.ByType[t] = &bc
		}
	}
	return &c
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
