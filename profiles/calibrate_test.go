package profiles

import (
	"strings"
	"testing"
)

func TestScaleStepTimes(t *testing.T) {
	set := Default()
	scaled, err := ScaleStepTimes(set, map[string]float64{"cifar10": 1.8})
	if err != nil {
		t.Fatal(err)
	}
	place := []int{4, 2}
	step, sync := set.Apps["cifar10"].Truth.Step(place, 128)
	s2, y2 := scaled.Apps["cifar10"].Truth.Step(place, 128)
	if d := s2 - 1.8*step; d > 1e-12 || d < -1e-12 || y2 != 1.8*sync {
		t.Errorf("scaled step %v sync %v, want 1.8 × (%v, %v)", s2, y2, step, sync)
	}
	// Other applications, the training curve and the original set are untouched.
	if scaled.Apps["bert"] != set.Apps["bert"] {
		t.Error("bert was copied though it has no factor")
	}
	if a, b := scaled.Apps["cifar10"].Target(), set.Apps["cifar10"].Target(); a != b {
		t.Errorf("target %v, want %v", a, b)
	}
	if s3, _ := set.Apps["cifar10"].Truth.Step(place, 128); s3 != step {
		t.Error("the original set changed")
	}
	if _, err := ScaleStepTimes(set, map[string]float64{"gpt": 2}); err == nil || !strings.Contains(err.Error(), `"gpt"`) {
		t.Errorf("unknown application: %v", err)
	}
	if _, err := ScaleStepTimes(set, map[string]float64{"ncf": 0}); err == nil || !strings.Contains(err.Error(), "ncf") {
		t.Errorf("zero factor: %v", err)
	}
}

// The factor reaches every GPU type's tables, and a per-type entry that is
// the application itself (the Sia layout's T4) stays the application.
func TestScaleStepTimesEveryType(t *testing.T) {
	set := Default()
	base := *set.Apps["cifar10"]
	base.ByType = map[string]*App{T4: &base}
	for typ, b := range set.Apps["cifar10"].ByType {
		base.ByType[typ] = b
	}
	set.Apps["cifar10"] = &base
	scaled, err := ScaleStepTimes(set, map[string]float64{"cifar10": 1.8})
	if err != nil {
		t.Fatal(err)
	}
	app := scaled.Apps["cifar10"]
	if app.ForType(T4) != app {
		t.Error("the scaled T4 entry is not the scaled application")
	}
	for _, typ := range base.Types() {
		step, sync := base.ForType(typ).Truth.Step([]int{2}, 64)
		s2, y2 := app.ForType(typ).Truth.Step([]int{2}, 64)
		if d := s2 - 1.8*step; d > 1e-12 || d < -1e-12 || y2 != 1.8*sync {
			t.Errorf("%s: scaled step %v sync %v, want 1.8 × (%v, %v)", typ, s2, y2, step, sync)
		}
	}
}
