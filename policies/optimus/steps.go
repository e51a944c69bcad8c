package optimus

import (
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// stepCache keeps, from round to round, each job's step times by GPU
// count (StepTime), so that a round looks up what earlier rounds computed.
// A job's step time on n packed GPUs depends only on its truth, requested
// batch and limits and the node size: an entry is valid while those are
// the same. On a cluster of several GPU types the truth follows the type
// the job holds, so nothing is cached there. Entries of jobs no longer
// active are dropped, so the cache follows the active jobs.
type stepCache struct {
	jobs  map[string]*jobSteps
	round uint64
}

// jobSteps is one job's cached step times: steps[n] for n GPUs, 0 when
// not yet computed.
type jobSteps struct {
	app     string
	batch   int
	limits  models.Limits
	perNode int
	steps   []float64
	seen    uint64
}

// begin starts a round.
func (s *stepCache) begin(c policies.Cluster) {
	s.round++
	if c.Heterogeneous() {
		s.jobs = nil
	} else if s.jobs == nil {
		s.jobs = map[string]*jobSteps{}
	}
}

// get returns job j's entry (nil on a cluster of several GPU types).
func (s *stepCache) get(c policies.Cluster, j *policies.Job) *jobSteps {
	if s.jobs == nil {
		return nil
	}
	e := s.jobs[j.Name]
	if e == nil || e.app != j.App || e.batch != j.Request.Batch || e.limits != j.Limits || e.perNode != c.MaxNodeGPUs() {
		e = &jobSteps{app: j.App, batch: j.Request.Batch, limits: j.Limits, perNode: c.MaxNodeGPUs()}
		s.jobs[j.Name] = e
	}
	e.seen = s.round
	return e
}

// end ends a round of n jobs: when the cache has grown well beyond them,
// it keeps only the entries used in the round.
func (s *stepCache) end(n int) {
	if len(s.jobs) <= 2*n+64 {
		return
	}
	for name, e := range s.jobs {
		if e.seen != s.round {
			delete(s.jobs, name)
		}
	}
}

// step is StepTime(j, n, perNode), from e when cached there.
func (e *jobSteps) step(j *policies.Job, n, perNode int) float64 {
	if e == nil {
		return StepTime(j, n, perNode)
	}
	if n < len(e.steps) && e.steps[n] != 0 {
		return e.steps[n]
	}
	t := StepTime(j, n, perNode)
	for len(e.steps) <= n {
		e.steps = append(e.steps, 0)
	}
	e.steps[n] = t
	return t
}
