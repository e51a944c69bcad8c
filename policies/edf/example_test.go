package edf_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/edf"
)

// One round of EDF as ElasticFlow's artifact runs it on two nodes of 4
// GPUs: three jobs that scale linearly up to 4 GPUs (their fastest level).
// (elasticJob, with the tests: run time 1000/k s alone on k GPUs, cap 4.)
// In deadline order the job due at 300 takes 4, the one due at 900 the
// other 4, and the best-effort job, submitted first, waits.
func ExampleNewElastic() {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	jobs := []policies.Job{
		elasticJob("best-effort", 1000, 0, 64, 4),
		elasticJob("due-900", 1000, 900, 64, 4),
		elasticJob("due-300", 1000, 300, 64, 4),
	}
	d := edf.NewElastic(false, policies.Env{}).Schedule(0, c, jobs)
	for i, j := range jobs {
		fmt.Println(j.Name, policies.Sum(d.Alloc[i]), "GPUs")
	}
	// Output:
	// best-effort 0 GPUs
	// due-900 4 GPUs
	// due-300 4 GPUs
}
