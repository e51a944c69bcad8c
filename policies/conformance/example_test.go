package conformance_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/conformance"
)

// stacker runs jobs on their request, all on node 0: a policy that
// forgets node capacity.
type stacker struct{}

func (stacker) Name() string            { return "stacker" }
func (stacker) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }
func (stacker) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	for i := range jobs {
		d.Alloc[i] = make([]int, c.Nodes)
		d.Alloc[i][0] = jobs[i].Request.GPUs
	}
	return d
}

// Check plays a scenario against a policy and reports what it breaks. A
// registered policy is checked from a test with conformance.Run(t, name).
func ExampleCheck() {
	newPolicy := func(policies.Env) (policies.Policy, error) { return stacker{}, nil }
	for _, sc := range conformance.Scenarios()[:1] {
		fmt.Println(sc.Name+":", sc.Doc)
		for _, v := range conformance.Check(sc, newPolicy) {
			fmt.Println(v)
		}
	}
	// Output:
	// empty-cluster: rounds without jobs, jobs arriving on an idle cluster, the cluster emptying and filling again
	// policy stacker, scenario empty-cluster, round 1 (t=120): capacity: node 0 holds 5 GPUs, it has 4
}
