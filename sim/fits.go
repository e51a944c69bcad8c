package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// maxFitWorkers bounds the goroutines of resolveFits.
const maxFitWorkers = 8

// resolveFits runs the due refits of the jobs' agents (see agent) before
// the round reads their parameters: several agents at once, on up to
// GOMAXPROCS goroutines (at most maxFitWorkers), each agent's refits in
// order. The parameters do not depend on the number of goroutines; the
// error of the first job in order is returned.
func (e *engine) resolveFits(jobs []*job) error {
	due := e.due[:0]
	for _, j := range jobs {
		if len(j.agent.pending) > 0 {
			due = append(due, j)
		}
	}
	e.due = due
	W := min(runtime.GOMAXPROCS(0), maxFitWorkers, len(due))
	if W <= 1 {
		for _, j := range due {
			if err := j.resolveFits(); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(due))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range W {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(due); i = int(next.Add(1)) - 1 {
				errs[i] = due[i].resolveFits()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
