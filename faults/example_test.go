package faults_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/faults"
)

// Parse reads a --failures value; a preset carries a published rate (here
// Llama 3's: 419 unexpected interruptions in 54 days on 2,048 nodes), from
// which a job's mean time to failure and Young's checkpoint interval
// follow.
func ExampleParse() {
	m, err := faults.Parse("llama3,ckpt_cost=120")
	if err != nil {
		fmt.Println(err)
		return
	}
	nodes := make([]int, 2048)
	types := make([]string, 2048)
	for i := range nodes {
		nodes[i], types[i] = i, "h100"
	}
	rate := m.JobRate(nodes, types)
	fmt.Printf("%.6f failures per node-day\n", m.Rate)
	fmt.Printf("whole-cluster job: MTTF %.2f h, Young's interval %.0f s\n", 1/rate/3600, m.Checkpoint.For(rate))
	// Output:
	// 0.003789 failures per node-day
	// whole-cluster job: MTTF 3.09 h, Young's interval 1635 s
}

// A model's policy-side settings: replan=now calls the policy at once
// after a failure interrupts a job, spares=K holds K nodes back as hot
// standbys; both read back from the model's string.
func ExampleParse_replanAndSpares() {
	m, err := faults.Parse("rsc1,rate=1.664,replan=now,spares=1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Replan, m.Spares)
	fmt.Println(m)
	// Output:
	// true 1
	// rsc1,rate=1.664,repair=exp:14400,ckpt=young,ckpt_cost=60,replan=now,spares=1
}
