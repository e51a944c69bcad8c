package policies_test

import (
	"fmt"
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// LargestFirstOptions are the example policy's options.
type LargestFirstOptions struct {
	MaxGPUs int `option:"max_gpus" doc:"most GPUs a job is given (0: its request)"`
}

// Validate is called after every decoding.
func (o *LargestFirstOptions) Validate() error {
	if o.MaxGPUs < 0 {
		return fmt.Errorf("max_gpus must not be negative, got %d", o.MaxGPUs)
	}
	return nil
}

// largestFirst starts waiting jobs with the largest requests first.
type largestFirst struct{ opt LargestFirstOptions }

func (*largestFirst) Name() string            { return "largest-first" }
func (*largestFirst) Traits() policies.Traits { return policies.Traits{} }
func (p *largestFirst) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	d := policies.Decision{Alloc: make([][]int, len(jobs))}
	free := policies.FreeGPUs(c, nil)
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return jobs[b].Request.GPUs - jobs[a].Request.GPUs })
	for _, i := range order {
		n := jobs[i].Request.GPUs
		if p.opt.MaxGPUs > 0 {
			n = min(n, p.opt.MaxGPUs)
		}
		d.Alloc[i] = policies.PlaceJob(c, free, n, &jobs[i]) // nil if it does not fit
	}
	return d
}

// A policy registers under a name with typed options: policies.Typed
// writes the registration's option decoding and constructor, so the
// factory receives its own options type. A policy package does this in an
// exported function the binary passes to app.WithPolicy (or a library
// user to extensions.WithPolicy); here the policy goes into a registry of
// its own. Resolve turns
// "key=value" options into the effective option set a run records, and
// Build makes a policy from it.
func ExampleTyped() {
	reg := policies.NewRegistry()
	err := reg.Register(policies.Typed(policies.Registration{
		Name: "largest-first",
		Doc:  "largest requests first, capped at max_gpus",
	}, func() LargestFirstOptions { return LargestFirstOptions{MaxGPUs: 2} },
		func(o LargestFirstOptions, _ policies.Env) (policies.Policy, error) {
			return &largestFirst{opt: o}, nil
		}))
	if err != nil {
		fmt.Println(err)
		return
	}
	docs, _ := reg.Describe("largest-first")
	for _, d := range docs {
		fmt.Printf("%s (%s, default %s): %s\n", d.Key, d.Type, d.Default, d.Doc)
	}
	if _, err := reg.Resolve("largest-first", "", []string{"max_gpus=-1"}); err != nil {
		fmt.Println(err)
	}
	set, err := reg.Resolve("largest-first", "", []string{"max_gpus=3"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := reg.Build("largest-first", set, policies.Env{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	jobs := []policies.Job{{Name: "a", Request: policies.Request{GPUs: 1}}, {Name: "b", Request: policies.Request{GPUs: 4}}}
	d := p.Schedule(0, policies.Cluster{Nodes: 1, GPUsPerNode: 4}, jobs)
	fmt.Println(set, d.Alloc)
	// Output:
	// max_gpus (integer, default 2): most GPUs a job is given (0: its request)
	// policy largest-first: max_gpus must not be negative, got -1
	// {"max_gpus":3} [[1] [3]]
}
