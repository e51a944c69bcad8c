package gandiva_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/gandiva"
)

// Three 2-GPU jobs on one node of 4 GPUs: a node set of capacity 2 runs
// two of them; every 60-s quantum the running pair moves to the back of
// the queue: a b c, then c a b, then b c a.
func Example() {
	p := gandiva.New(gandiva.DefaultOptions())
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	jobs := []policies.Job{
		{Name: "a", Request: policies.Request{GPUs: 2, Batch: 64}},
		{Name: "b", Request: policies.Request{GPUs: 2, Batch: 64}},
		{Name: "c", Request: policies.Request{GPUs: 2, Batch: 64}},
	}
	for _, now := range []float64{0, 60, 120} {
		d := p.Schedule(now, c, jobs)
		var running []string
		for i := range jobs {
			if d.Alloc[i] != nil {
				running = append(running, jobs[i].Name)
			}
			jobs[i].Alloc = d.Alloc[i]
		}
		fmt.Println(now, running)
	}
	// Output:
	// 0 [a b]
	// 60 [a c]
	// 120 [b c]
}
