package outputs_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/experiments/outputs"
)

// The documented schema: every table, its columns, types and nulls
// (docs/outputs.md is generated from it).
func ExampleTables() {
	t := outputs.Schema("cluster.parquet")
	fmt.Println(t.File, "-", t.Doc)
	for _, c := range t.Columns[outputs.RunColumns():] { // after the run columns
		null := ""
		if c.Nullable {
			null = " (nullable)"
		}
		if c.Unit != "" {
			null += " " + c.Unit
		}
		fmt.Printf("  %s %s%s\n", c.Name, c.Type, null)
	}
	// Output:
	// cluster.parquet - one row per scheduling round, idle rounds included, from time 0 to the makespan
	//   round BIGINT
	//   time_s DOUBLE s
	//   duration_s DOUBLE s
	//   cluster_gpus BIGINT GPUs
	//   gpus BIGINT GPUs
	//   active_jobs BIGINT jobs
	//   pending_jobs BIGINT jobs
	//   avg_efficiency DOUBLE (nullable) fraction (0–1]
	//   policy_wall_s DOUBLE (nullable) s
	//   nodes_down BIGINT (nullable) nodes
}
