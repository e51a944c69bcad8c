package conformance

import (
	"strings"
	"testing"
)

// TestParseBounds: the reader of documented bounds on the forms the docs
// use.
func TestParseBounds(t *testing.T) {
	for _, tc := range []struct {
		doc     string
		integer bool
		want    []string
	}{
		{"round length in seconds, in (0, 1e6] as --interval", false, []string{"0", "1.0000000000000001e+06"}},
		{"genetic algorithm population, in [1, 100000]", true, []string{"0", "100001"}},
		{"in [-10, -0.01] or [0.01, 10] (< 0 minimises)", false, []string{"-10.000000000000002", "10.000000000000002", "0"}},
		{"cap on any job's GPUs, 0 or more (0: no cap)", true, []string{"-1"}},
		{"cap on the nodes any job spans, at least 1", true, []string{"0"}},
		{"slowdown in [0,1) of multi-node jobs", false, []string{"-5e-324", "1"}},
		{"any finite number", false, []string{"NaN", "Inf", "-1e999"}},
	} {
		b, ok := ParseBounds(tc.doc, tc.integer)
		if got := b.Outside(); !ok || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q: %v %q, want %q", tc.doc, ok, got, tc.want)
		}
	}
	for _, doc := range []string{"allow several multi-node jobs on one node", "(0: no cap)", "(seconds, or e.g. 60s, 2m)", "(160 = 1.0x load)"} {
		if b, ok := ParseBounds(doc, false); ok {
			t.Errorf("%q declares bounds %+v", doc, b)
		}
	}
}
