package pollux

import (
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// lastRound remembers what the last round's search saw and decided, so
// that with Options.SkipUnchanged a round whose problem has not changed
// keeps the decision without searching again.
type lastRound struct {
	valid  bool
	nodes  int
	fair   int // the fair share's GPUs
	names  []string
	params []models.Params
	fitted []bool
	grads  []models.GradStats
	factor []float64 // re-allocation factors
	alloc  [][]int   // the decision, per job in input order
}

// skipFactorGrowth is how much a job's re-allocation factor may have grown
// (relatively) since the last search for the round to count as unchanged.
// The factor (T − R·δ)/(T + δ) grows quickly while a job is young: from 0
// at arrival, when the search can give a new job nothing at no loss, so
// that a round that only aged it must search again (a lone job arriving
// just before a round would otherwise never start). With 5 % and δ = 30 s
// a job blocks skipping for its first two or three minutes after its
// arrival or a restart.
const skipFactorGrowth = 0.05

// same reports whether jobs on cluster c are the last round's jobs, in
// the same order, with the same fitted models and gradient statistics,
// each holding what the last round gave it, and the same fair share among
// active jobs: no arrival, completion, epoch boundary or refit since. What still differs is the jobs' age, which
// changes their re-allocation factors (restart delay delay): by at most
// skipFactorGrowth.
func (l *lastRound) same(c policies.Cluster, jobs []policies.Job, active int, delay float64) bool {
	if !l.valid || l.nodes != c.Nodes || len(l.names) != len(jobs) || l.fair != fairGPUs(c, jobs, active) {
		return false
	}
	for i := range jobs {
		j := &jobs[i]
		if j.Name != l.names[i] || (j.Params != nil) != l.fitted[i] || j.Grad != l.grads[i] {
			return false
		}
		if j.Params != nil && *j.Params != l.params[i] {
			return false
		}
		if !policies.Equal(j.Alloc, l.alloc[i]) {
			return false
		}
		if models.RestartFactor(j.Age, j.Restarts, delay) > l.factor[i]*(1+skipFactorGrowth) {
			return false
		}
	}
	return true
}

// remember records the round's jobs (among active ones) and decision
// (restart delay delay).
func (l *lastRound) remember(c policies.Cluster, jobs []policies.Job, active int, dec policies.Decision, delay float64) {
	n := len(jobs)
	l.valid, l.nodes, l.fair = true, c.Nodes, fairGPUs(c, jobs, active)
	l.names = l.names[:0]
	l.params = l.params[:0]
	l.fitted = l.fitted[:0]
	l.grads = l.grads[:0]
	l.factor = l.factor[:0]
	l.alloc = l.alloc[:0]
	for i := 0; i < n; i++ {
		j := &jobs[i]
		var p models.Params
		if j.Params != nil {
			p = *j.Params
		}
		l.names = append(l.names, j.Name)
		l.params = append(l.params, p)
		l.fitted = append(l.fitted, j.Params != nil)
		l.grads = append(l.grads, j.Grad)
		l.factor = append(l.factor, models.RestartFactor(j.Age, j.Restarts, delay))
		var a []int
		if policies.Sum(dec.Alloc[i]) > 0 {
			a = dec.Alloc[i]
		}
		l.alloc = append(l.alloc, a)
	}
}

// decision is the remembered decision for jobs, which same has found
// holding it: each job's own allocation (so that the simulator need not
// compare it), remembered as the decision from now on.
func (l *lastRound) decision(jobs []policies.Job) policies.Decision {
	dec := policies.Decision{Alloc: make([][]int, len(l.alloc))}
	for i, a := range l.alloc {
		if a != nil {
			dec.Alloc[i] = jobs[i].Alloc
			l.alloc[i] = jobs[i].Alloc
		}
	}
	return dec
}

// fairGPUs is the fair share's GPUs of jobs among active ones on c.
func fairGPUs(c policies.Cluster, jobs []policies.Job, active int) int {
	_, g := fairShare(c, len(jobs), active)
	return g
}
