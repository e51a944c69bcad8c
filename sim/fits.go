package sim

import (
	"runtime"

	"github.com/polluxsim/polluxsim/internal/parallel"
)

// maxFitWorkers bounds the goroutines of resolveFits.
const maxFitWorkers = 8

// fitWorkers is the number of goroutines that run refits: Config.FitWorkers,
// else GOMAXPROCS, at most maxFitWorkers.
func (e *engine) fitWorkers() int {
	w := e.cfg.FitWorkers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return min(w, maxFitWorkers)
}

// resolveFits runs the due refits of the jobs' agents (see agent) before
// the round reads their parameters: several agents at once, on up to
// fitWorkers goroutines, each agent's refits in order. The parameters do
// not depend on the number of goroutines; the error of the first job in
// order is returned.
func (e *engine) resolveFits(jobs []*job) error {
	due := e.due[:0]
	for _, j := range jobs {
		if len(j.agent.pending) > 0 {
			due = append(due, j)
		}
	}
	e.due = due
	errs := make([]error, len(due))
	parallel.Each(e.fitWorkers(), len(due), func(i int) {
		errs[i] = due[i].resolveFits()
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
