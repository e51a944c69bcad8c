package models_test

import (
	"testing"

	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/profiles"
)

// TestFitRealData fits θ_sys to all measured rows of each reference
// application (placements.csv and scalability.csv: step_time = T_iter at
// s = 0, step_time − sync_time = T_grad) and checks the mean relative error
// of T_iter (the paper reports ≤ 10 %; we require ≤ 15 %).
func TestFitRealData(t *testing.T) {
	set, err := profiles.Load(refdata.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range set.Names() {
		tt, ok := set.Apps[name].Truth.(*profiles.TableTruth)
		if !ok {
			t.Fatalf("%s: not a table truth", name)
		}
		var obs []models.Observation
		for _, r := range tt.Placements {
			k := 0
			for _, v := range r.Placement {
				k += v
			}
			obs = append(obs, models.Observation{Nodes: len(r.Placement), GPUs: k, Local: r.Local, TIter: r.Step, TGrad: r.Step - r.Sync})
		}
		for _, r := range tt.Scalability {
			obs = append(obs, models.Observation{Nodes: r.Nodes, GPUs: r.Replicas, Local: r.Local, TIter: r.Step, TGrad: r.Step - r.Sync})
		}
		p, err := models.Fit(obs, models.FitOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		e := models.MeanRelError(p, obs)
		t.Logf("%-12s %5d rows: mean relative error of T_iter %.1f%%  (γ=%.2f)", name, len(obs), 100*e, p.Gamma)
		if e > 0.15 {
			t.Errorf("%s: mean relative error %.1f%% > 15%%", name, 100*e)
		}
	}
}
