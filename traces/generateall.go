package traces

import (
	"errors"
	"fmt"
	"time"
)

// GenerateAll makes a workload of every job of the Philly table the filter
// keeps by duration and GPU time (its time-of-day window and shift are not
// used), each arriving at its own submission time, counted in seconds from
// the earliest kept submission: the whole trace, replayed. Applications
// and configurations are assigned as Generate does (opts.Jobs is ignored);
// realistic yolov3 and imagenet jobs draw their GPU counts from the kept
// jobs of their GPU-time class that ran at most a day. The same seed and
// table always give the same workload.
func GenerateAll(t *PhillyTable, opts GenerateOptions) (*Workload, error) {
	if t == nil || len(t.Jobs) == 0 {
		return nil, errors.New("generate: empty Philly table")
	}
	config, err := opts.config()
	if err != nil {
		return nil, err
	}
	f := opts.Filter
	if f == (PhillyFilter{}) {
		f = DefaultPhillyFilter()
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	keep := func(j *PhillyJob) bool { return j.Duration >= f.MinDuration && j.GPUTime < f.MaxGPUTime }
	var first time.Time
	n := 0
	for i := range t.Jobs {
		j := &t.Jobs[i]
		if keep(j) {
			if n == 0 || j.Submitted.Before(first) {
				first = j.Submitted
			}
			n++
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("generate: the filter keeps none of the %d Philly jobs of %s", len(t.Jobs), t.Source)
	}
	pop := buildPool(len(t.Jobs), func(i int) (poolJob, bool) {
		j := &t.Jobs[i]
		return poolJob{arrival: int(j.Submitted.Sub(first) / time.Second), gpuTime: j.GPUTime, duration: j.Duration, gpus: j.GPUs}, keep(j)
	}, categoryOf)
	jobs := assemble(pop.jobs, pop, opts, config)
	span := 0.0
	if len(jobs) > 0 {
		span = jobs[len(jobs)-1].Time
	}
	return &Workload{
		Source: fmt.Sprintf("the whole of %s: %d jobs over %.1f days from %s, seed %d, %s configs",
			t.Source, len(jobs), span/86400, first.Format("2006-01-02 15:04:05"), opts.Seed, config),
		Jobs: jobs,
	}, nil
}
