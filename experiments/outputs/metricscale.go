package outputs

import (
	"fmt"
	"math"
)

// The units of metrics that people read in other units: durations are
// stored in seconds and shown in s, min or h as their size asks;
// fractions are stored in [0, 1] and shown as percentages; ratios are
// shown without a unit.
const (
	UnitSeconds  = "s"
	UnitFraction = "fraction (0–1)"
	UnitRatio    = "ratio"
)

// Bounds is the range a metric's values lie in: every metric is at least
// 0, and a fraction at most 1. Confidence intervals are clipped to it
// (a utilisation interval never reaches past 100 %).
func (m Metric) Bounds() (lo, hi float64) {
	if m.Unit == UnitFraction {
		return 0, 1
	}
	return 0, math.Inf(1)
}

// Clip returns v within the metric's bounds.
func (m Metric) Clip(v float64) float64 {
	lo, hi := m.Bounds()
	return math.Min(math.Max(v, lo), hi)
}

// Scale is how values of one metric read for people, in one table: each
// divided by Div, in Unit, with Digits decimals.
type Scale struct {
	Unit   string
	Div    float64
	Digits int
}

// Format writes v (in the metric's stored unit) on the scale.
func (s Scale) Format(v float64) string {
	return fmt.Sprintf("%.*f", s.Digits, v/s.Div)
}

// Heading is a metric's label with the scale's unit, e.g.
// "average JCT (h)".
func (s Scale) Heading(label string) string {
	if s.Unit == "" {
		return label
	}
	return label + " (" + s.Unit + ")"
}

// ScaleFor picks the scale of a table of the metric whose largest value
// (in the stored unit) is typical: a duration in hours from half an hour
// up, in minutes from a minute, else in seconds; a fraction in percent
// with one decimal; a count whole; anything else in its own unit. Values
// are shown to three significant digits of the typical one (at most three
// decimals).
func (m Metric) ScaleFor(typical float64) Scale {
	typical = math.Abs(typical)
	switch {
	case m.Count:
		return Scale{Unit: m.countUnit(), Div: 1}
	case m.Unit == UnitFraction:
		return Scale{Unit: "%", Div: 0.01, Digits: 1}
	case m.Unit == UnitSeconds && typical >= 1800:
		return Scale{Unit: "h", Div: 3600, Digits: digits(typical / 3600)}
	case m.Unit == UnitSeconds && typical >= 60:
		return Scale{Unit: "min", Div: 60, Digits: digits(typical / 60)}
	}
	return Scale{Unit: m.countUnit(), Div: 1, Digits: digits(typical)}
}

// countUnit is the unit shown beside the metric's values: none for a
// count or a ratio.
func (m Metric) countUnit() string {
	if m.Unit == UnitRatio {
		return ""
	}
	return m.Unit
}

// digits is the number of decimals that shows v to three significant
// digits, within [0, 3].
func digits(v float64) int {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 2
	}
	d := 2 - int(math.Floor(math.Log10(v)))
	return min(max(d, 0), 3)
}
