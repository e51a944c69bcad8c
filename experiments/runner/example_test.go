package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
)

// A run from Go, as `polluxsim run --policy tiresias --workload paper:1
// --step --out DIR` makes it: the same outputs and the same run_id.
func ExampleRun() {
	spec := runspec.DefaultSpec("tiresias")
	spec.Step = true
	dir, _ := os.MkdirTemp("", "example-run-")
	defer os.RemoveAll(dir)
	res, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: "paper:1"},
		runner.Options{Ext: intree.Extensions(), Out: filepath.Join(dir, "t1"), NoTiming: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d jobs, average JCT %.0f s, run_id of %d hex digits\n", len(res.Workload.Jobs), res.Sim.Summary.AvgJCT, len(res.ID))
	for _, f := range res.Files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// 160 jobs, average JCT 2463 s, run_id of 16 hex digits
	// summary.json
	// jobs.parquet
	// rounds.parquet
	// cluster.parquet
	// types.parquet
}
