// Package leastserved is a policy of one's own, in one file:
// "least-served", a least-attained-service policy with leases (Themis-like;
// the built-in policies/themis is Themis itself). Waiting and running jobs are
// ordered by the GPU-time they have received per requested GPU (the
// least first); each round the first ones that fit run at the GPUs and
// batch size their users asked for, capped at max_gpus; a job that has
// received more than lease_hours of service beyond the least served
// running job may be preempted for it.
package leastserved

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// Options are least-served's options.
type Options struct {
	AgeWeight  float64 `option:"age_weight" doc:"weight of a job's age (seconds) against its service per GPU (GPU-seconds), in [0, 1]"`
	LeaseHours float64 `option:"lease_hours" doc:"service in GPU-hours per GPU a running job keeps before it may be preempted, 0 or more"`
}

// Validate checks the options (called after every decoding).
func (o *Options) Validate() error {
	if !(o.AgeWeight >= 0 && o.AgeWeight <= 1) {
		return fmt.Errorf("age_weight must be in [0, 1], got %v", o.AgeWeight)
	}
	if !(o.LeaseHours >= 0) {
		return fmt.Errorf("lease_hours must be 0 or more, got %v", o.LeaseHours)
	}
	return nil
}

// Registration is the policy's registration: app.WithPolicy(leastserved.Registration()).
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: "least-served",
		Doc:  "example: least attained service per requested GPU first, at the requested GPUs, with leases",
	}, func() Options { return Options{AgeWeight: 0, LeaseHours: 1} }, func(o Options, _ policies.Env) (policies.Policy, error) {
		return &policy{opt: o}, nil
	})
}

type policy struct{ opt Options }

func (*policy) Name() string            { return "least-served" }
func (*policy) Traits() policies.Traits { return policies.Traits{UserGPUs: true} }

// Schedule orders the jobs by attained service per GPU; running jobs
// within their lease keep their GPUs, then the rest start in order while
// they fit.
func (p *policy) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	alloc := make([][]int, len(jobs))
	share := func(i int) float64 {
		return jobs[i].Attained/float64(max(1, jobs[i].Request.GPUs)) - p.opt.AgeWeight*jobs[i].Age
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(share(a), share(b)) })
	lease := 3600 * p.opt.LeaseHours
	least := -1.0
	for _, i := range order {
		if policies.Sum(jobs[i].Alloc) > 0 && (least < 0 || share(i) < least) {
			least = share(i)
		}
	}
	for i := range jobs { // running jobs within their lease keep their GPUs
		if policies.Sum(jobs[i].Alloc) > 0 && share(i)-least <= lease {
			alloc[i] = slices.Clone(jobs[i].Alloc)
		}
	}
	free := policies.FreeGPUs(c, alloc)
	for _, i := range order {
		if alloc[i] == nil {
			alloc[i] = policies.PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i])
		}
	}
	return policies.Decision{Alloc: alloc}
}
