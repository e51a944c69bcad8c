package sim

import (
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
)

// The engine's oracle (TypeIterTime) gives, on the job's own type, the step time the
// engine runs a fixed-batch job at (Limits.Split, then the true tables),
// and refuses types the application has no tables for.
func TestTypeIterTime(t *testing.T) {
	set := profiles.Default()
	for _, name := range []string{"cifar10", "imagenet", "bert"} {
		app := set.Apps[name]
		app.ByType = nil // the T4 tables alone, without the embedded per-type models
		o := jobOracle{app: app, base: app}
		for _, k := range []int{1, 2, 4, 8} {
			batch := app.Limits.InitBatch * k
			place := models.PackedPlacement(k, 4)
			got, ok := o.TypeIterTime(policies.DefaultType, place, batch)
			m, s, _ := app.Limits.Split(k, float64(batch))
			want, _, _ := app.IterTime(place, float64(max(m, 1)), s)
			if !ok || got != want || !(got > 0) {
				t.Errorf("%s on %d GPUs: TypeIterTime = %v, %v, want %v", name, k, got, ok, want)
			}
		}
		if _, ok := o.TypeIterTime("a100", []int{1}, app.Limits.InitBatch); ok {
			t.Errorf("%s: the T4 tables answered for a100", name)
		}
	}
}
