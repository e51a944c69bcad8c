// Command custompolicy shows polluxsim used as a library: it defines a
// scheduling policy outside the policies/ tree, registers it with one or
// two options, and simulates a whole workload with it beside FIFO.
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
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

// Options are the policy's options: exported fields tagged `option` and
// `doc` are what users set with --policy-opt or a spec's "options".
type Options struct {
	AgingHours float64 `option:"aging_hours" doc:"a job that has waited this long goes first (0: never)"`
}

// Validate is called by the registry after every decoding.
func (o *Options) Validate() error {
	if o.AgingHours < 0 {
		return fmt.Errorf("aging_hours must not be negative, got %v", o.AgingHours)
	}
	return nil
}

// SmallestFirst is the policy. It keeps no state between rounds.
type SmallestFirst struct{ opt Options }

var _ policies.Policy = (*SmallestFirst)(nil)

// Name implements policies.Policy.
func (*SmallestFirst) Name() string { return "smallest-first" }

// Traits implements policies.Policy: jobs run on exactly the GPUs and
// batch size their users requested.
func (*SmallestFirst) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// Schedule implements policies.Policy: running jobs keep their GPUs; the
// waiting ones start in priority order while they fit.
func (p *SmallestFirst) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	alloc := make([][]int, len(jobs))
	var waiting []int
	for i := range jobs {
		if policies.Sum(jobs[i].Alloc) > 0 {
			alloc[i] = slices.Clone(jobs[i].Alloc)
		} else {
			waiting = append(waiting, i)
		}
	}
	aged := func(i int) bool { return p.opt.AgingHours > 0 && jobs[i].Age >= 3600*p.opt.AgingHours }
	slices.SortStableFunc(waiting, func(a, b int) int {
		if aged(a) != aged(b) {
			if aged(a) {
				return -1
			}
			return 1
		}
		if d := cmp.Compare(jobs[a].Request.GPUs, jobs[b].Request.GPUs); d != 0 {
			return d
		}
		return cmp.Compare(jobs[a].Submit, jobs[b].Submit)
	})
	free := policies.FreeGPUs(c, alloc)
	for _, i := range waiting {
		alloc[i] = policies.PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i]) // nil if it does not fit
	}
	return policies.Decision{Alloc: alloc}
}

func init() {
	policies.Register(policies.Typed(policies.Registration{
		Name: "smallest-first",
		Doc:  "example: fewest requested GPUs first, no preemption, optional aging",
	}, func() Options { return Options{AgingHours: 4} }, func(o Options, _ policies.Env) (policies.Policy, error) {
		return &SmallestFirst{opt: o}, nil
	}))
}

// run simulates the same generated workload under each policy (name and
// key=value options) and prints the average JCTs.
func run(w io.Writer, jobs int, runs [][]string) error {
	set := profiles.Default()
	wl, err := runspec.GenerateWorkload(nil, set, jobs, 1, "tuned", 4)
	if err != nil {
		return err
	}
	for _, r := range runs {
		spec, err := runspec.DefaultSpec(r[0]).WithOptions(r[1:])
		if err != nil {
			return err
		}
		pol, err := runspec.NewPolicy(spec)
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
