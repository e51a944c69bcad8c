package pollux

import "github.com/polluxsim/polluxsim/policies"

// settled reports whether pr's current allocation is provably the
// search's optimum, so that a round can keep it without searching
// (Options.SkipSettled). It is when, on a cluster of one GPU type:
//
//   - the power mean's exponent p is below 1 and the restart delay δ is
//     positive;
//   - the fair share is one GPU (at least as many active jobs as GPUs),
//     so that every job's speedup on one GPU is exactly 1;
//   - every GPU is held, each by a different job on one GPU whose goodput
//     there is positive;
//   - no job's speedup on k GPUs exceeds k, for every k it may get, on
//     one node or several (checked on the round's models: the goodput
//     model is sublinear, but its batch candidates are discrete).
//
// Proof. Maximising the power mean is minimising Σⱼ g(xⱼ), where xⱼ is
// job j's value (speedup × re-allocation factor if changed) and g(x) =
// (xw + ε)^p for p < 0, −log(xw + ε) for p = 0, −(xw + ε)^p for 0 < p <
// 1: strictly convex and decreasing. An allocation giving job j kⱼ GPUs,
// Σ kⱼ ≤ G (the GPUs), has xⱼ ≤ kⱼ, so Σ g(xⱼ) ≥ Σ g(kⱼ). By convexity,
// g(k) + g(0) > g(k−1) + g(1) for k ≥ 2, so Σ g(kⱼ) is least with G jobs
// on one GPU and the rest on none (there are at least G jobs): the current
// allocation's value, since its G jobs are unchanged (x = 1). Equality
// needs xⱼ = kⱼ = 1 for G jobs, which a moved or newly started job cannot
// reach (its factor (age − restarts·δ)/(age + δ) is below 1): only the
// current allocation attains the optimum, and the search, which starts
// from it, returns it.
func settled(pr *problem, c policies.Cluster, opt Options) bool {
	if !(opt.P < 1) || !(opt.RestartDelay > 0) || pr.fairGPUs != 1 || c.Heterogeneous() {
		return false
	}
	held := 0
	for i := 0; i < pr.nJobs; i++ {
		r := pr.base.row(i)
		if len(r) == 0 {
			continue
		}
		if len(r) != 1 || r[0].gpus != 1 || pr.speed[i].At(1, 1) != 1 {
			return false
		}
		held++
	}
	if held != c.TotalGPUs() {
		return false
	}
	for i := 0; i < pr.nJobs; i++ {
		sp := pr.speed[i]
		for k := 1; k <= pr.maxGPUs[i]; k++ {
			if sp.At(1, k) > float64(k) || (k > 1 && sp.At(2, k) > float64(k)) {
				return false
			}
		}
	}
	return true
}
