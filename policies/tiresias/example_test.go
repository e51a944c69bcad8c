package tiresias_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/tiresias"
)

// A live scheduler drives Tiresias incrementally: it keeps one view per job,
// tells the policy which jobs arrived and finished, and applies the changes
// it returns. Here three 2-GPU jobs arrive on one 4-GPU node; the third
// waits, and starts once the first finishes.
func ExamplePolicy_ScheduleIncremental() {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	p := tiresias.New(0)
	views := make([]policies.Job, 3)
	var added []policies.Tracked
	for i := range views {
		views[i] = policies.Job{Name: fmt.Sprint("job-", i), Request: policies.Request{GPUs: 2, Batch: 64}}
		added = append(added, policies.Tracked{Key: int64(i), Job: &views[i]})
	}
	apply := func(changes []policies.Change) {
		for _, ch := range changes {
			views[ch.Key].Alloc = ch.Alloc
			fmt.Printf("%s: %v\n", views[ch.Key].Name, ch.Alloc)
		}
	}
	fmt.Println("round 1")
	apply(p.ScheduleIncremental(60, c, policies.IncrementalRound{Added: added}))
	fmt.Println("round 2: job-0 finished")
	apply(p.ScheduleIncremental(120, c, policies.IncrementalRound{Removed: []int64{0}}))
	// Output:
	// round 1
	// job-0: [2]
	// job-1: [2]
	// round 2: job-0 finished
	// job-2: [2]
}
