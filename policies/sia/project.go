package sia

import (
	"math"

	"github.com/polluxsim/polluxsim/policies"
)

// The Sia artifact's --project_throughputs (sia-simulator/sia.py
// _compute_goodputs_v2, cluster.py compute_throughput_ratios), option
// project_throughputs: a job's agent models a GPU type only once the job
// has run there. Before it has run anywhere the job is worth 1 on one GPU
// of every type and nothing more; afterwards a type it has not run on is
// valued through the first type (in the cluster's order) it has run on:
// the goodput there on as many GPUs (packed onto that type's nodes) times
// the ratio of the two types' one-GPU throughputs at their largest per-GPU
// batch. The artifact reads that ratio from the true tables (largest
// local_bsz over largest step_time of the one-replica rows); here it comes
// from the job's one-GPU bootstrap models of the two types (TypeModels),
// fitted to those same rows. The doubling cap then counts only the GPUs a
// job has run on (no bootstrap), shared across types as the artifact's
// --project_throughputs implies --share_max_replicas.

// source is the index in r.types of the type job j's goodput on other
// types is projected from: the first type it has run on, or -1.
func (p *Policy) source(r *round, j *policies.Job) int {
	ran := p.profiled[j.Name]
	for t, typ := range r.types {
		if ran[typ] > 0 && j.Offers(typ) {
			return t
		}
	}
	return -1
}

// projectedGoodput is job j's goodput on configuration cf under
// project_throughputs: from its own model on a type it has run on, else
// projected from type src (−1: none, and so is the result).
func (p *Policy) projectedGoodput(c policies.Cluster, r *round, j *policies.Job, typ string, cf config, batch, src int) float64 {
	if p.profiled[j.Name][typ] > 0 {
		return goodput(c, j, typ, cf, batch)
	}
	if src < 0 {
		return -1
	}
	from := r.types[src]
	ratio := atomicRatio(j, typ, from)
	if !(ratio > 0) {
		return -1
	}
	per := r.per[src]
	at := config{typ: src, gpus: cf.gpus, nodes: (cf.gpus + per - 1) / per, perNode: per}
	g := goodput(c, j, from, at, batch)
	if g <= 0 {
		return g
	}
	return g * ratio
}

// atomicRatio is job j's one-GPU throughput on type to over that on type
// from, each at its largest per-GPU batch (the artifact's throughput
// ratio), from the job's models of the two types; 0 when either is
// missing.
func atomicRatio(j *policies.Job, to, from string) float64 {
	a, okA := j.TypeModels[to]
	b, okB := j.TypeModels[from]
	if !okA || !okB {
		return 0
	}
	ta := a.Params.Throughput(1, 1, float64(a.Limits.MaxLocal), 0)
	tb := b.Params.Throughput(1, 1, float64(b.Limits.MaxLocal), 0)
	if !(ta > 0) || !(tb > 0) || math.IsInf(ta, 0) || math.IsInf(tb, 0) {
		return 0
	}
	return ta / tb
}
