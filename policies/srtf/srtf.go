// Package srtf implements shortest-remaining-GPU-time-first scheduling with
// an oracle, the usual lower-bound reference for non-adaptive schedulers:
// jobs run at the GPUs and batch size their users asked for; every round
// they are ranked by the GPU-time they still need (remaining iterations ×
// true iteration time on their requested GPUs packed onto nodes × GPUs),
// exact from the oracle; in that order every job that still fits runs
// (smaller jobs may pass a blocked large one) and the rest are preempted.
// Jobs that keep running keep their nodes; newly started ones go to the
// nodes with the most free GPUs.
package srtf

import (
	"cmp"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/optimus"
)

// Name is the policy's registered name.
const Name = "srtf"

// Policy is an SRTF scheduler. It keeps no state between rounds.
type Policy struct{}

var _ policies.Policy = (*Policy)(nil)

// New returns an SRTF policy.
func New() *Policy { return &Policy{} }

// Registration is the policy's registration, for a policies.Registry
// (policies/builtin.Registrations lists it with the other built-ins).
func Registration() policies.Registration {
	return policies.Registration{
		Name: Name,
		Doc:  "shortest remaining GPU-time first (oracle), at the requested GPUs and batch, preemptive, with backfilling",
		New:  func(any, policies.Env) (policies.Policy, error) { return New(), nil },
	}
}

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user GPUs and batch sizes, and
// the oracle for remaining work.
func (*Policy) Traits() policies.Traits { return policies.Traits{NeedsOracle: true, UserGPUs: true} }

// RemainingGPUTime is the GPU-seconds job j still needs at its requested
// GPUs (packed onto nodes of perNode GPUs) and batch size.
func RemainingGPUTime(j *policies.Job, perNode int) float64 {
	n := j.Request.GPUs
	return j.Oracle.RemainingIterations(j.Request.Batch) * optimus.StepTime(j, n, perNode) * float64(n)
}

// Schedule implements policies.Policy.
func (*Policy) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	order := make([]int, len(jobs))
	rem := make([]float64, len(jobs))
	for i := range jobs {
		order[i] = i
		rem[i] = RemainingGPUTime(&jobs[i], c.MaxNodeGPUs())
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if d := cmp.Compare(rem[a], rem[b]); d != 0 {
			return d
		}
		return cmp.Compare(jobs[a].Submit, jobs[b].Submit)
	})
	return policies.RunInOrder(c, jobs, order)
}
