package gavel

import (
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// TestOptionsListedPerPolicy: weights are listed under gavel-las only,
// ftf_tol under gavel-ftf only, normalise and lp under gavel-throughput
// only; round_s, placement, ties and share under all three.
func TestOptionsListedPerPolicy(t *testing.T) {
	want := map[string][]string{LAS: {"weights"}, FTF: {"ftf_tol"}, Throughput: {"normalise", "lp"}}
	for name, own := range want {
		docs, err := policies.MustRegistry(Registrations()...).Describe(name)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		for _, d := range docs {
			keys[d.Key] = true
		}
		for _, k := range append([]string{"round_s", "placement", "ties", "share"}, own...) {
			if !keys[k] {
				t.Errorf("%s does not list %s", name, k)
			}
		}
		for other, ks := range want {
			for _, k := range ks {
				if other != name && keys[k] {
					t.Errorf("%s lists %s, an option of %s", name, k, other)
				}
			}
		}
	}
}
