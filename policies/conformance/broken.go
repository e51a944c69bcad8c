package conformance

import "github.com/polluxsim/polluxsim/policies"

// OverCapacity is a deliberately broken policy, for tests of the suite and
// of what is built on it (the conformance command, the Go twin of
// python/examples/broken.py): it runs every job on its request, all on
// node 0, past that node's GPUs, so the capacity rule (RuleCapacity)
// catches it. Its name is PolicyName.
type OverCapacity struct{ PolicyName string }

var _ policies.Policy = OverCapacity{}

// Name implements policies.Policy.
func (p OverCapacity) Name() string { return p.PolicyName }

// Traits implements policies.Policy: jobs run on their request.
func (OverCapacity) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// Schedule implements policies.Policy.
func (OverCapacity) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i := range jobs {
		d.Alloc[i] = make([]int, c.Nodes)
		d.Alloc[i][0] = jobs[i].Request.GPUs
	}
	return d
}
