// Command polluxsim-ext is polluxsim with a policy (least-served), a workload
// source (mini), a figure kind (box), a metric (avg_pending_jobs) and an
// output table (holds.parquet) of one's own, beside the built-ins.
package main

import (
	"os"

	"github.com/polluxsim/polluxsim/cmd/polluxsim/app"
	"github.com/polluxsim/polluxsim/examples/extensions/box"
	"github.com/polluxsim/polluxsim/examples/extensions/holdtable"
	"github.com/polluxsim/polluxsim/examples/extensions/leastserved"
	"github.com/polluxsim/polluxsim/examples/extensions/mini"
	"github.com/polluxsim/polluxsim/examples/extensions/pending"
)

func main() {
	os.Exit(app.Main(app.WithName("polluxsim-ext"),
		app.WithPolicy(leastserved.Registration()), app.WithSource(mini.Source), app.WithKind(box.Kind),
		app.WithMetric(pending.Metric), app.WithTable(holdtable.Table)))
}
