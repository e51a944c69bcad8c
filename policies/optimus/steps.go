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

// forRound returns the entries of this round's jobs (nil entries when the
// cluster has several GPU types), dropping those of jobs gone.
func (s *stepCache) forRound(c policies.Cluster, jobs []policies.Job, out []*jobSteps) []*jobSteps {
	out = out[:0]
	if c.Heterogeneous() {
		s.jobs = nil
		for range jobs {
			out = append(out, nil)
		}
		return out
	}
	if s.jobs == nil {
		s.jobs = map[string]*jobSteps{}
	}
	s.round++
	for i := range jobs {
		j := &jobs[i]
		e := s.jobs[j.Name]
		if e == nil || e.app != j.App || e.batch != j.Request.Batch || e.limits != j.Limits || e.perNode != c.GPUsPerNode {
			e = &jobSteps{app: j.App, batch: j.Request.Batch, limits: j.Limits, perNode: c.GPUsPerNode}
			s.jobs[j.Name] = e
		}
		e.seen = s.round
		out = append(out, e)
	}
	if len(s.jobs) > 2*len(jobs)+64 {
		for name, e := range s.jobs {
			if e.seen != s.round {
				delete(s.jobs, name)
			}
		}
	}
	return out
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
