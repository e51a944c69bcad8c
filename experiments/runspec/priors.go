package runspec

import (
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

// OfflineParams fits θ_sys of every application once on its full profile —
// what an offline profiling campaign would give (paper §5.3.2, "seeded"
// throughput models). The observations are the true step times on packed
// placements of 1..64 GPUs, on every node count of up to 16 nodes with one
// to gpusPerNode GPUs each, at five per-GPU batch sizes spread
// geometrically over the application's range.
func OfflineParams(set *profiles.Set, gpusPerNode int) (map[string]models.Params, error) {
	out := make(map[string]models.Params, len(set.Apps))
	for _, name := range set.Names() {
		app := set.Apps[name]
		obs := offlineObservations(app, gpusPerNode)
		p, err := models.Fit(obs, models.FitOptions{})
		if err != nil {
			return nil, fmt.Errorf("offline fit of %s: %w", name, err)
		}
		out[name] = p
	}
	return out, nil
}

// OfflineSeenGPUs is, per application, the most GPUs of the placements
// OfflineParams fits on.
func OfflineSeenGPUs(set *profiles.Set, gpusPerNode int) map[string]int {
	out := make(map[string]int, len(set.Apps))
	for _, name := range set.Names() {
		for _, o := range offlineObservations(set.Apps[name], gpusPerNode) {
			out[name] = max(out[name], o.GPUs)
		}
	}
	return out
}

func offlineObservations(app *profiles.App, gpusPerNode int) []models.Observation {
	lim := app.Limits
	var locals []float64
	lo, hi := float64(lim.MinLocal), float64(lim.MaxLocal)
	for i := 0; i < 5; i++ {
		l := lo
		if hi > lo {
			l = lo * math.Pow(hi/lo, float64(i)/4)
		}
		if len(locals) == 0 || l > locals[len(locals)-1]*1.0001 {
			locals = append(locals, l)
		}
	}
	var placements [][]int
	for k := 1; k <= 64; k *= 2 {
		placements = append(placements, models.PackedPlacement(k, gpusPerNode))
	}
	for nodes := 2; nodes <= 16; nodes *= 2 {
		for per := 1; per <= gpusPerNode; per++ {
			placements = append(placements, profiles.SpreadPlacement(nodes*per, nodes))
		}
	}
	var obs []models.Observation
	for _, pl := range placements {
		k := 0
		for _, g := range pl {
			k += g
		}
		if k*lim.MinLocal > lim.MaxBatch {
			continue
		}
		for _, m := range locals {
			step, sync := app.Truth.Step(pl, m)
			if !(step > 0) || !(step-sync >= 0) {
				continue
			}
			obs = append(obs, models.Observation{Nodes: len(pl), GPUs: k, Local: m, TIter: step, TGrad: step - sync})
		}
	}
	return obs
}

// SimConfigFor is SimConfig with what needs the profiles: the offline
// throughput models of OfflinePriors.
func (s RunSpec) SimConfigFor(set *profiles.Set) (sim.Config, error) {
	c := s.SimConfig()
	if s.OfflinePriors {
		seeds, err := OfflineParams(set, s.GPUsPerNode)
		if err != nil {
			return c, err
		}
		c.SeedParams = seeds
		if s.OfflinePriorsScaleOut {
			c.SeedSeenGPUs = OfflineSeenGPUs(set, s.GPUsPerNode)
		}
	}
	return c, nil
}
