// Command custompolicy shows polluxsim used as a library: package
// smallestfirst defines a scheduling policy outside the policies/ tree,
// with one option; this program simulates a whole workload
// with it beside FIFO. cmd/polluxsim-custom is the whole polluxsim command
// line with the policy added, in ten lines.
//
//	go run ./examples/custompolicy              # 160 jobs, both policies
//	go run ./examples/custompolicy -jobs 40 -aging-hours 1
//
// The policy, "smallest-first", runs waiting jobs with the fewest requested
// GPUs first (at the GPUs and batch size their users asked for), never
// preempts, and lets a job that has waited longer than aging_hours jump
// the queue so that large jobs do not starve.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/polluxsim/polluxsim/examples/custompolicy/smallestfirst"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

// known are the policies this program knows: the built-ins and
// smallest-first.
var known = runspec.Known{Policies: policies.MustRegistry(append(builtin.Registrations(), smallestfirst.Registration())...)}

// run simulates the same generated workload under each policy (name and
// key=value options) and prints the average JCTs.
func run(w io.Writer, jobs int, runs [][]string) error {
	set := profiles.Default()
	wl, err := runspec.GenerateWorkload(nil, set, jobs, 1, "tuned", 4)
	if err != nil {
		return err
	}
	for _, r := range runs {
		spec, err := runspec.DefaultSpec(r[0]).WithOptions(known, r[1:])
		if err != nil {
			return err
		}
		pol, err := runspec.NewPolicy(known, spec)
		if err != nil {
			return err
		}
		res, err := sim.Run(spec.SimConfig(), set, wl, pol)
		if err != nil {
			return err
		}
		s := res.Summary
		fmt.Fprintf(w, "%-15s %s: %d jobs, avg JCT %.0f s, p99 %.0f s, makespan %.0f s\n",
			s.Policy, spec.Options, s.Jobs, s.AvgJCT, s.P99JCT, s.Makespan)
	}
	return nil
}

func main() {
	jobs := flag.Int("jobs", 160, "jobs in the generated workload")
	aging := flag.Float64("aging-hours", 4, "smallest-first's aging_hours option")
	flag.Parse()
	runs := [][]string{
		{"smallest-first", "aging_hours=" + strconv.FormatFloat(*aging, 'g', -1, 64)},
		{"fifo"},
	}
	if err := run(os.Stdout, *jobs, runs); err != nil {
		fmt.Fprintln(os.Stderr, "custompolicy:", err)
		os.Exit(1)
	}
}
