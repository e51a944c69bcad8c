package autoscalers

import (
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// Curve gives, for a cluster of n nodes, a predicted value (goodput or
// throughput, summed over the jobs) and the ideal value of perfect scaling
// from one node. ok is false when nothing can be predicted (no job has a
// fitted model yet).
type Curve func(n int) (value, ideal float64, ok bool)

// Ratio is value/ideal at n nodes (0 when the ideal is not positive).
func (c Curve) Ratio(n int) (float64, bool) {
	v, ideal, ok := c(n)
	if !ok || !(ideal > 0) {
		return 0, false
	}
	return v / ideal, true
}

// share is one job's part of a cluster of n nodes of g GPUs shared evenly
// by jobs jobs: its GPUs and the nodes they span (at least one GPU).
func share(n, g, jobs int) (nodes, gpus int) {
	gpus = n * g / max(jobs, 1)
	if gpus < 1 {
		gpus = 1
	}
	return (gpus + g - 1) / g, gpus
}

// JobsCurve is the predicted curve of the jobs that have a fitted model,
// on nodes of g GPUs shared evenly among them. With throughputOnly, each
// job's value is its throughput at the largest per-GPU batch its limits
// allow (statistical efficiency ignored, as Or et al.); otherwise its best
// goodput (models.Model.Best). The ideal of a job holding k GPUs is k/g
// times its value on one whole node.
func JobsCurve(jobs []policies.Job, g int, throughputOnly bool) Curve {
	var mds []*models.Model
	for _, j := range jobs {
		if j.Params != nil {
			mds = append(mds, &models.Model{Params: *j.Params, Grad: j.Grad, Limits: j.Limits, FixedBatch: j.FixedBatch})
		}
	}
	value := func(md *models.Model, n, k int) float64 {
		if !throughputOnly {
			return md.Best(n, k).Goodput
		}
		m := md.Limits.MaxLocal
		if md.Limits.MaxBatch > 0 && md.Limits.MaxBatch/k < m {
			m = md.Limits.MaxBatch / k
		}
		m = max(m, md.Limits.MinLocal, 1)
		return md.Params.Throughput(n, k, float64(m), 0)
	}
	return func(n int) (float64, float64, bool) {
		if len(mds) == 0 || n < 1 {
			return 0, 0, false
		}
		nodes, k := share(n, g, len(mds))
		var v, ideal float64
		for _, md := range mds {
			v += value(md, nodes, k)
			ideal += float64(k) / float64(g) * value(md, 1, g)
		}
		return v, ideal, true
	}
}
