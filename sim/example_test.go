package sim_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// Run simulates a workload on the embedded measured profiles under one
// policy instance: here three jobs on a cluster of 2 nodes × 4 GPUs under
// FIFO, which runs each job on the GPUs and batch size it asks for. The
// first job starts at the first round (60 s), the second needs all 8 GPUs
// and starts at the round after the first finishes, and the NeuMF job,
// submitted at 600 s, waits behind it (FIFO blocks the head of the line).
// A policy registered by name is built with policies.Build instead.
func ExampleRun() {
	cfg := sim.DefaultConfig()
	cfg.Cluster = policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	w := &traces.Workload{Source: "example", Jobs: []traces.Job{
		{Name: "cifar10-0", Time: 0, App: "cifar10", Replicas: 4, Batch: 512},
		{Name: "cifar10-1", Time: 0, App: "cifar10", Replicas: 8, Batch: 1024},
		{Name: "ncf-0", Time: 600, App: "ncf", Replicas: 1, Batch: 32768},
	}}
	res, err := sim.Run(cfg, profiles.Default(), w, fifo.New())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range res.Jobs {
		fmt.Printf("%-9s waited %5.0f s, JCT %5.0f s\n", j.Name, j.Queueing, j.JCT)
	}
	fmt.Printf("%s: %d jobs, average JCT %.0f s, %d rounds\n", res.Summary.Policy, res.Summary.Jobs, res.Summary.AvgJCT, res.Summary.Rounds)
	// Output:
	// cifar10-0 waited    60 s, JCT  1257 s
	// cifar10-1 waited  1260 s, JCT  2625 s
	// ncf-0     waited  2040 s, JCT  2116 s
	// fifo: 3 jobs, average JCT 1999 s, 45 rounds
}
