package sim

import (
	"fmt"
	"math"
	"slices"

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
	total := 0.0
	for _, gs := range jobGPUSeconds(cfg, set, w, traits) {
		total += gs
	}
	return total
}

// jobGPUSeconds is each job's share of MinGPUSeconds.
func jobGPUSeconds(cfg Config, set *profiles.Set, w *traces.Workload, traits policies.Traits) []float64 {
	type key struct {
		app         string
		gpus, batch int
	}
	cache := map[key]float64{}
	out := make([]float64, len(w.Jobs))
	for i, spec := range w.Jobs {
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
			gs = float64(k) * isolatedJCT(app, spec, cfg, k, traits.AdaptiveBatch)
			cache[kk] = gs
		}
		out[i] = gs
	}
	return out
}

// MinJobRounds is a lower estimate of the simulation's work: active jobs
// summed over scheduling rounds. The jobs' times in the system sum to at
// least those of shortest-work-first on one machine as fast as the whole
// cluster with every job there from the start (arrivals only delay
// completions): the k-th smallest job completes no earlier than the GPU
// time of the k smallest over the cluster's GPUs; minus the arrival
// times, over the interval.
func MinJobRounds(cfg Config, set *profiles.Set, w *traces.Workload, traits policies.Traits) float64 {
	gs := jobGPUSeconds(cfg, set, w, traits)
	slices.Sort(gs)
	gpus := float64(cfg.Cluster.TotalGPUs())
	sum, prefix := 0.0, 0.0
	for _, g := range gs {
		prefix += g
		sum += prefix / gpus
	}
	for _, j := range w.Jobs {
		sum -= j.Time
	}
	return math.Max(sum, 0) / cfg.Interval
}

// CheckFeasible refuses, before any simulation, a workload that cannot
// finish within the engine's limits on the cluster however it is
// scheduled: its first arrival plus MinGPUSeconds over the cluster's GPUs
// is beyond cfg.MaxTime, that or its last arrival is beyond cfg.MaxRounds
// rounds of cfg.Interval, or MinJobRounds is beyond cfg.MaxJobRounds (the
// cluster is so overloaded that the queue of pending jobs alone would take
// too long to simulate; not checked for a run of p decided incrementally,
// whose waiting jobs cost nothing). The error is one line with the numbers. Elastic
// clusters, clusters of node pools (per-type profiles) and closed loops
// are not checked: the estimates assume a fixed cluster of the
// applications' own profiles and open arrivals.
func CheckFeasible(cfg Config, set *profiles.Set, w *traces.Workload, p policies.Policy) error {
	traits := p.Traits()
	if err := cfg.normalise(); err != nil {
		return err
	}
	if len(w.Jobs) == 0 || cfg.Elastic != nil || cfg.typed() || cfg.ClosedLoop > 0 {
		return nil
	}
	first, last := math.Inf(1), 0.0
	for _, j := range w.Jobs {
		first, last = math.Min(first, j.Time), math.Max(last, j.Time)
	}
	if last > cfg.MaxTime {
		return nil // Run refuses the job submitted after the limit, naming its line
	}
	gpuSec := MinGPUSeconds(cfg, set, w, traits)
	gpus := cfg.Cluster.TotalGPUs()
	need := first + gpuSec/float64(gpus)
	if need > cfg.MaxTime && first > 0 {
		// Say where the time goes: 1.12 GPU-hours alone cannot need 1e8 s.
		return fmt.Errorf("workload %s needs at least %.3g GPU-hours, %.3g s on %d GPUs after its first arrival at %.3g s, so it cannot end before %.3g s, beyond the simulation's time limit of %.3g s: use a larger cluster, fewer jobs or earlier arrivals",
			w.Source, gpuSec/3600, gpuSec/float64(gpus), gpus, first, need, cfg.MaxTime)
	}
	if need > cfg.MaxTime {
		return fmt.Errorf("workload %s needs at least %.3g GPU-hours, so at least %.3g s of simulated time on %d GPUs, beyond the simulation's time limit of %.3g s: use a larger cluster or fewer jobs",
			w.Source, gpuSec/3600, need, gpus, cfg.MaxTime)
	}
	if rounds := math.Max(need, last) / cfg.Interval; rounds > float64(cfg.MaxRounds) {
		return fmt.Errorf("workload %s runs at least %.3g s of simulated time, %.3g scheduling rounds of %v s, beyond the engine's round limit of %d: use a longer round interval",
			w.Source, math.Max(need, last), rounds, cfg.Interval, cfg.MaxRounds)
	}
	if Incremental(cfg, p) {
		return nil
	}
	if jr := MinJobRounds(cfg, set, w, traits); jr > float64(cfg.MaxJobRounds) {
		return fmt.Errorf("workload %s on %d GPUs is so overloaded (%.3g GPU-hours of work) that simulating it takes at least %.3g job-rounds (active jobs summed over rounds), beyond the engine's work limit of %.3g: use a larger cluster or fewer jobs%s",
			w.Source, gpus, gpuSec/3600, jr, float64(cfg.MaxJobRounds), incrementalHint(cfg, p, ", or "))
	}
	return nil
}
