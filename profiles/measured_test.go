package profiles

import "testing"

func TestLargestMeasuredGPUs(t *testing.T) {
	// The reference's tables reach 16 nodes x 4 GPUs (scalability.csv);
	// the compact model is fitted on the same grid.
	if got := Embedded().LargestMeasuredGPUs(); got != 64 {
		t.Errorf("embedded: %d, want 64", got)
	}
	if got := Compact().LargestMeasuredGPUs(); got != 64 {
		t.Errorf("compact: %d, want 64", got)
	}
	tab := &TableTruth{
		Placements:  []PlacementRow{{Placement: []int{4, 4, 3}}, {Placement: []int{2}}},
		Scalability: []ScalabilityRow{{Nodes: 2, Replicas: 8}},
	}
	s := &Set{Apps: map[string]*App{"a": {Truth: tab}}}
	if got := s.LargestMeasuredGPUs(); got != 11 {
		t.Errorf("placements 4+4+3: %d, want 11", got)
	}
	// A calibrated (scaled) truth measures what it wraps; a type of its
	// own counts too.
	wide := &TableTruth{Scalability: []ScalabilityRow{{Nodes: 4, Replicas: 32}}}
	s.Apps["a"].ByType = map[string]*App{"a100": {Truth: scaledTruth{Truth: wide, factor: 2}}}
	if got := s.LargestMeasuredGPUs(); got != 32 {
		t.Errorf("with a scaled a100 table of 32 replicas: %d, want 32", got)
	}
	if got := (&Set{Apps: map[string]*App{"a": {Truth: nil}}}).LargestMeasuredGPUs(); got != 0 {
		t.Errorf("a truth that does not say: %d, want 0", got)
	}
}
