package sim

import (
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// MinGPUSeconds is a lower estimate of the GPU time the workload needs:
// each job's run alone, with no restarts, on its requested GPUs when the
// policy keeps them (traits.UserGPUs), on one GPU otherwise (the most
// GPU-time-efficient share), at its requested batch or, under an adaptive
// policy, the goodput-optimal batch of each epoch. Unknown applications
// count zero (Run reports them).
func MinGPUSeconds(cfg Config, set *profiles.Set, w *traces.Workload, traits policies.Traits) float64 {
	type key struct {
		app         string
		gpus, batch int
	}
	cache := map[key]float64{}
	total := 0.0
	for _, spec := range w.Jobs {
		app, ok := set.Apps[spec.App]
		if !ok || spec.Replicas < 1 || spec.Batch < 1 {
			continue
		}
		k := 1
		if traits.UserGPUs {
			k = spec.Replicas
		}
		kk := key{spec.App, k, spec.Batch}
		if traits.AdaptiveBatch {
			kk.batch = 0 // the requested batch does not matter
		}
		gs, ok := cache[kk]
		if !ok {
			gs = float64(k) * runTime(app, spec, k, cfg.Cluster.GPUsPerNode, traits.AdaptiveBatch)
			cache[kk] = gs
		}
		total += gs
	}
	return total
}

// CheckFeasible refuses, before any simulation, a workload that cannot
// finish within cfg.MaxTime on the cluster however it is scheduled: its
// first arrival plus MinGPUSeconds over the cluster's GPUs is beyond the
// limit. The error is one line with the numbers.
func CheckFeasible(cfg Config, set *profiles.Set, w *traces.Workload, traits policies.Traits) error {
	if err := cfg.normalise(); err != nil {
		return err
	}
	if len(w.Jobs) == 0 {
		return nil
	}
	first := math.Inf(1)
	for _, j := range w.Jobs {
		first = math.Min(first, j.Time)
	}
	gpuSec := MinGPUSeconds(cfg, set, w, traits)
	gpus := cfg.Cluster.TotalGPUs()
	if need := first + gpuSec/float64(gpus); need > cfg.MaxTime {
		return fmt.Errorf("workload %s needs at least %.3g GPU-hours, so at least %.3g s of simulated time on %d GPUs, beyond the simulation's time limit of %.3g s: use a larger cluster or fewer jobs",
			w.Source, gpuSec/3600, need, gpus, cfg.MaxTime)
	}
	return nil
}
