package results

import (
	"math"
	"testing"
)

func TestDescribe(t *testing.T) {
	v := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	s := Describe([]int{1, 2, 3, 4, 5, 6, 7, 8}, v)
	sd := math.Sqrt(32.0 / 7) // sample standard deviation
	// t(0.975, 7 df) = 2.364624 (tables).
	if s.N != 8 || s.Mean != 5 || math.Abs(s.SD-sd) > 1e-12 || s.HalfWidth == nil ||
		math.Abs(*s.HalfWidth-2.364624*sd/math.Sqrt(8)) > 1e-5 {
		t.Errorf("describe: %+v", s)
	}
	if s.CI95[0] >= 5 || s.CI95[1] <= 5 || math.Abs(s.CI95[1]-5-*s.HalfWidth) > 1e-12 {
		t.Errorf("CI %v", *s.CI95)
	}
	for df, want := range map[int]float64{1: 12.7062, 2: 4.3027, 3: 3.1824, 30: 2.0423} {
		if got := tQuantile975(df); math.Abs(got-want) > 1e-4 {
			t.Errorf("t(0.975, %d) = %v, want %v", df, got, want)
		}
	}
	one := Describe([]int{3}, []float64{7})
	if one.N != 1 || one.Mean != 7 || one.CI95 != nil || one.HalfWidth != nil {
		t.Errorf("one value: %+v", one)
	}
	if none := Describe(nil, nil); none.N != 0 || none.Mean != 0 {
		t.Errorf("no values: %+v", none)
	}
}

// TestPairedRatio: ratios pair values by workload, skipping workloads one
// side lacks and zero denominators.
func TestPairedRatio(t *testing.T) {
	s := PairedRatio([]int{1, 2, 3, 5}, []float64{10, 20, 30, 50}, []int{5, 3, 2, 4}, []float64{100, 0, 40, 1})
	if s.N != 2 || s.Workloads[0] != 2 || s.Workloads[1] != 5 || s.Values[0] != 0.5 || s.Values[1] != 0.5 || s.Mean != 0.5 || s.SD != 0 {
		t.Errorf("paired ratio: %+v", s)
	}
}
