package sim

import (
	"math"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// exclusiveJCT is the finish-time-fairness baseline of Themis: how long the
// job would take alone on a 1/N share of the cluster, N = contention (the
// average number of active jobs over its life). The share is
// floor(total GPUs / N) GPUs (at least 1, at most what the job can use),
// packed onto the fewest nodes, with no restarts and no queueing. Under an
// adaptive policy the job uses, in each epoch, the batch size that
// maximises its true goodput on that share; otherwise its requested batch.
func exclusiveJCT(app *profiles.App, spec traces.Job, cfg Config, contention float64, adaptive bool) float64 {
	k := int(math.Floor(float64(cfg.Cluster.TotalGPUs()) / math.Max(contention, 1)))
	k = max(1, min(k, isolatedMaxGPUs(app, spec, adaptive)))
	return isolatedJCT(app, spec, cfg, k, adaptive)
}

// equalShareJCT is the denominator of finish-time fairness as the Pollux
// paper words it after Themis: the job's run time in an isolated cluster
// partitioned equally among N = contention jobs, so that its partition is
// exactly total GPUs / N GPUs' worth of GPU time, a fraction of one GPU
// included. The job runs on k = min(ceil(total / N), what it can use) GPUs
// packed onto the fewest nodes, time-sliced down to its share: the run
// time alone on k GPUs (as in exclusiveJCT) times max(1, k·N / total).
// It differs from exclusiveJCT only when total / N is not a whole number
// of GPUs, most of all under contention above the cluster's GPU count,
// where exclusiveJCT still grants a whole GPU.
func equalShareJCT(app *profiles.App, spec traces.Job, cfg Config, contention float64, adaptive bool) float64 {
	share := float64(cfg.Cluster.TotalGPUs()) / math.Max(contention, 1)
	k := max(1, min(int(math.Ceil(share)), isolatedMaxGPUs(app, spec, adaptive)))
	return isolatedJCT(app, spec, cfg, k, adaptive) * math.Max(1, float64(k)/share)
}

// isolatedMaxGPUs is the most GPUs the job can use when it runs alone: its
// largest batch (the requested one for non-adaptive runs) at the smallest
// per-GPU batch, and its application's cap.
func isolatedMaxGPUs(app *profiles.App, spec traces.Job, adaptive bool) int {
	lim := app.Limits
	maxK := lim.MaxBatch / max(lim.MinLocal, 1)
	if !adaptive {
		maxK = spec.Batch / max(lim.MinLocal, 1)
	}
	if app.MaxGPUs > 0 {
		maxK = min(maxK, app.MaxGPUs)
	}
	return maxK
}

// isolatedJCT is the job's run time alone on k GPUs packed onto the fewest
// nodes, with no restarts and no queueing, choosing in each epoch the batch
// that maximises its true goodput (adaptive) or at its requested batch.
func isolatedJCT(app *profiles.App, spec traces.Job, cfg Config, k int, adaptive bool) float64 {
	lim := app.Limits
	placement := models.PackedPlacement(k, cfg.Cluster.MaxNodeGPUs())
	truth := app.Truth
	m0 := float64(lim.InitBatch)

	type cand struct {
		batch float64
		tIter float64
	}
	var cands []cand
	add := func(batch float64) {
		m, s, ok := lim.Split(k, batch)
		if !ok && len(cands) > 0 {
			return
		}
		m = max(m, 1)
		tIter, _, _ := app.IterTime(placement, float64(m), s)
		cands = append(cands, cand{float64(k * m * (s + 1)), tIter})
	}
	fixed := spec.Batch
	if adaptive {
		fixed = app.FixedBatch
	}
	if fixed > 0 {
		add(float64(fixed))
	} else {
		lo := math.Max(m0, float64(k*lim.MinLocal))
		for i := 0; i < models.DefaultCandidates; i++ {
			add(models.GeomPoint(lo, float64(lim.MaxBatch), i, models.DefaultCandidates))
		}
	}
	total := 0.0
	for e := 0; e < app.Epochs; e++ {
		work := truth.Progress(e+1) - truth.Progress(e)
		best := 0.0
		for _, c := range cands {
			if !(c.tIter > 0) {
				continue
			}
			r := app.Gain(c.batch, e) / c.tIter
			best = math.Max(best, r)
		}
		if best <= 0 {
			return 0
		}
		total += work / best
	}
	return total
}

// IsolatedRunTime is the job's run time alone on the GPUs it requested
// (spec.Replicas at its requested batch), packed onto the fewest nodes of
// gpusPerNode GPUs, with no restarts and no queueing: the one home of a
// job's isolated run time, over which generated deadlines are set
// (traces.AssignDeadlines; docs/deadlines.md). It is 0 when the profile
// cannot run the job there.
func IsolatedRunTime(app *profiles.App, spec traces.Job, gpusPerNode int) float64 {
	var cfg Config
	cfg.Cluster = policies.Cluster{Nodes: 1, GPUsPerNode: max(gpusPerNode, 1)}
	return isolatedJCT(app, spec, cfg, max(spec.Replicas, 1), false)
}
