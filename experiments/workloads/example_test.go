package workloads_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/profiles"
)

// ExampleLLMGen: the LLM workload generator's reference, read and made
// into jobs of the llm profile set (what `--workload llm:...` runs).
func ExampleLLMGen() {
	g, err := workloads.ParseLLMGen("jobs=5,seed=1,hours=1")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := g.Make(profiles.LLM())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Source)
	for _, j := range w.Jobs {
		fmt.Printf("%6.0f s  %-14s %3d GPUs  batch %d\n", j.Time, j.App, j.Replicas, j.Batch)
	}
	_, err = workloads.ParseLLMGen("hours=0")
	fmt.Println(err)
	// Output:
	// llm:jobs=5,seed=1,hours=1
	//      0 s  llm-13b-eval     8 GPUs  batch 64
	//    635 s  llm-13b-eval     8 GPUs  batch 64
	//    737 s  llm-1b-debug     8 GPUs  batch 16
	//   1548 s  llm-7b-sft      32 GPUs  batch 64
	//   1964 s  llm-7b-sft       8 GPUs  batch 64
	// llm: hours=0: must be in (0, 8784]
}
