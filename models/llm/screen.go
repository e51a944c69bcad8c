package llm

import "fmt"

// screenTolerance is how much faster (relative) a configuration that should
// be no faster may measure before the slower row is set aside: 5 %, about
// the spread of llm-foundry's repeated configurations.
const screenTolerance = 0.05

// Screen sets aside measurements that their own source contradicts,
// without reference to any model, and returns the reason per index of ms.
// Among rows of one source with the same model, GPU type, sharding and
// recomputation, a row is inconsistent when another row that should be no
// faster per GPU measures more than screenTolerance faster:
//
//   - a longer sequence with no more tokens per micro-batch on as many
//     GPUs (more attention FLOPs per token, no larger GEMMs), or
//   - more GPUs with the same sequence and micro-batch (more traffic per
//     token, no less per-GPU work).
func Screen(ms []Measurement) map[int]string {
	out := map[int]string{}
	for i, r := range ms {
		for _, q := range ms {
			if out[i] != "" {
				break
			}
			a, b := r.Job, q.Job
			if r.Source != q.Source || a.Model.Name != b.Model.Name || a.GPU.Name != b.GPU.Name ||
				a.Par.Sharding != b.Par.Sharding || a.Par.Recompute != b.Par.Recompute ||
				a.Par.TP != b.Par.TP || a.Par.PP != b.Par.PP || q.Measured <= r.Measured*(1+screenTolerance) {
				continue
			}
			tok := func(j Job) int { return j.Par.MicroBatch * j.Model.SeqLen }
			switch {
			case a.Par.DP == b.Par.DP && b.Model.SeqLen > a.Model.SeqLen && tok(b) <= tok(a):
				out[i] = fmt.Sprintf("slower than the same job at sequence %d with %d tokens per micro-batch (%g)",
					b.Model.SeqLen, tok(b), q.Measured)
			case b.Par.DP > a.Par.DP && b.Model.SeqLen == a.Model.SeqLen && b.Par.MicroBatch == a.Par.MicroBatch:
				out[i] = fmt.Sprintf("slower per GPU than the same job on %d GPUs (%g)", b.Par.GPUs(), q.Measured)
			}
		}
	}
	return out
}
