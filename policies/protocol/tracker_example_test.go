package protocol_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/protocol"
)

// The views an engine sends an incremental peer, round by round: a job
// holding GPUs every round, a job that lost them once more, a waiting job
// not at all.
func ExampleTracker() {
	a := &policies.Job{Name: "a"}                  // waiting
	b := &policies.Job{Name: "b", Alloc: []int{1}} // running
	tr := protocol.NewTracker()
	show := func(round int, up []policies.Tracked) {
		var names []string
		for _, t := range up {
			names = append(names, t.Job.Name)
		}
		fmt.Println("round", round, "updated", names)
	}
	show(1, tr.Round(policies.IncrementalRound{Added: []policies.Tracked{{Key: 1, Job: a}, {Key: 2, Job: b}}}))
	tr.Changed(1)      // the peer starts a
	a.Alloc = []int{1} // and the engine updates its view
	show(2, tr.Round(policies.IncrementalRound{}))
	b.Alloc = nil // b loses its GPU
	show(3, tr.Round(policies.IncrementalRound{}))
	show(4, tr.Round(policies.IncrementalRound{}))
	show(5, tr.Round(policies.IncrementalRound{Removed: []int64{1}}))
	// Output:
	// round 1 updated []
	// round 2 updated [a b]
	// round 3 updated [a b]
	// round 4 updated [a]
	// round 5 updated []
}
