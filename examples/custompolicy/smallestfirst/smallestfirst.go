// Package smallestfirst is an example scheduling policy defined outside
// the policies/ tree: "smallest-first" runs waiting jobs with the fewest
// requested GPUs first (at the GPUs and batch size their users asked
// for), never preempts, and lets a job that has waited longer than
// aging_hours jump the queue so that large jobs do not starve. A binary
// adds it with app.WithPolicy(smallestfirst.Registration()).
package smallestfirst

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// Options are the policy's options: exported fields tagged `option` and
// `doc` are what users set with --policy-opt or a spec's "options".
type Options struct {
	AgingHours float64 `option:"aging_hours" doc:"hours after which a waiting job goes first, 0 or more (0: never)"`
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

// Registration is the policy's registration: a binary adds it with
// app.WithPolicy(smallestfirst.Registration()), a library user with
// extensions.WithPolicy.
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: "smallest-first",
		Doc:  "example: fewest requested GPUs first, no preemption, optional aging",
	}, func() Options { return Options{AgingHours: 4} }, func(o Options, _ policies.Env) (policies.Policy, error) {
		return &SmallestFirst{opt: o}, nil
	})
}
