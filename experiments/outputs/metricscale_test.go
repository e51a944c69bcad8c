package outputs

import (
	"math"
	"testing"
)

// TestMetricScale: durations read in h, min or s by their size, fractions
// in percent, counts whole, ratios bare; three significant digits of the
// typical value.
func TestMetricScale(t *testing.T) {
	jct, _ := LookupMetric("avg_jct_s")
	queue, _ := LookupMetric("avg_queueing_s")
	util, _ := LookupMetric("utilisation")
	rho, _ := LookupMetric("max_fairness_rho")
	restarts, _ := LookupMetric("restarts")
	for _, c := range []struct {
		m        Metric
		typical  float64
		v        float64
		heading  string
		formated string
	}{
		{jct, 2736, 2736, "average JCT (h)", "0.760"},
		{jct, 39600, 39600, "average JCT (h)", "11.0"},
		{queue, 29.4, 29.4, "average queueing (s)", "29.4"},
		{queue, 600, 90, "average queueing (min)", "1.5"},
		{util, 0.836, 0.836, "GPU utilisation (%)", "83.6"},
		{rho, 3.21, 3.21, "largest finish-time fairness ρ", "3.21"},
		{restarts, 1234, 1234, "restarts", "1234"},
	} {
		s := c.m.ScaleFor(c.typical)
		if h := s.Heading(c.m.Label); h != c.heading {
			t.Errorf("%s at %g: heading %q, want %q", c.m.Name, c.typical, h, c.heading)
		}
		if f := s.Format(c.v); f != c.formated {
			t.Errorf("%s at %g: %g reads %q, want %q", c.m.Name, c.typical, c.v, f, c.formated)
		}
	}
}

// TestMetricClip: a fraction's interval stops at 0 and 1, a duration's at
// 0 only.
func TestMetricClip(t *testing.T) {
	util, _ := LookupMetric("utilisation")
	jct, _ := LookupMetric("avg_jct_s")
	if got := util.Clip(1.023); got != 1 {
		t.Errorf("utilisation 1.023 clipped to %g, want 1", got)
	}
	if got := util.Clip(-0.1); got != 0 {
		t.Errorf("utilisation -0.1 clipped to %g, want 0", got)
	}
	if got := jct.Clip(-5); got != 0 {
		t.Errorf("JCT -5 clipped to %g, want 0", got)
	}
	if got := jct.Clip(1e9); got != 1e9 {
		t.Errorf("JCT 1e9 clipped to %g", got)
	}
	if _, hi := jct.Bounds(); !math.IsInf(hi, 1) {
		t.Errorf("JCT bounded above by %g", hi)
	}
}
