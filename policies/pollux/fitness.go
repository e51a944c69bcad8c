package pollux

import (
	"math"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// epsSpeedup keeps a job with no GPUs from making the power mean undefined.
const epsSpeedup = 1e-3

// problem is one round's search problem: jobs (in repair priority order)
// × nodes, with per-job speedup functions and limits.
type problem struct {
	nJobs, nNodes int
	capacity      int     // GPUs per node
	weight        float64 // nodes / total GPUs
	p             float64
	avoid         bool
	maxNodes      int
	maxGPUs       []int     // per job
	base          []int     // current allocation, nJobs × nNodes
	factor        []float64 // re-allocation factor per job
	speed         []speedupFn
	tables        []termTable
}

// speedupFn returns a job's speedup on k GPUs over n nodes, memoised.
type speedupFn struct {
	sp       *models.Speedup // nil: no model yet, linear in GPUs
	fairGPUs float64
	memo     map[int32]float64
}

func (s *speedupFn) at(n, k int) float64 {
	if k == 0 {
		return 0
	}
	if s.sp == nil {
		return float64(k) / s.fairGPUs
	}
	key := int32(n)<<16 | int32(k)
	if v, ok := s.memo[key]; ok {
		return v
	}
	v := s.sp.At(n, k)
	s.memo[key] = v
	return v
}

// newProblem builds the round's problem. jobs must be in priority order.
func newProblem(c policies.Cluster, jobs []policies.Job, opt Options) *problem {
	J, N := len(jobs), c.Nodes
	total := c.TotalGPUs()
	pr := &problem{
		nJobs: J, nNodes: N, capacity: c.GPUsPerNode,
		weight:   float64(N) / float64(total),
		p:        opt.P,
		avoid:    !opt.NoInterferenceAvoidance,
		maxNodes: opt.MaxNodesPerJob,
		maxGPUs:  make([]int, J),
		base:     make([]int, J*N),
		factor:   make([]float64, J),
		speed:    make([]speedupFn, J),
		tables:   make([]termTable, J),
	}
	fairNodes, fairGPUs := models.FairShare(total, J)
	for i := range jobs {
		j := &jobs[i]
		for n, v := range j.Alloc {
			if n < N {
				pr.base[i*N+n] = v
			}
		}
		pr.maxGPUs[i] = maxGPUs(j, opt, total)
		age := j.Age
		pr.factor[i] = math.Max(age-float64(j.Restarts)*opt.RestartDelay, 0) / (age + opt.RestartDelay)
		sf := speedupFn{fairGPUs: float64(fairGPUs), memo: map[int32]float64{}}
		if j.Params != nil {
			md := &models.Model{Params: *j.Params, Grad: j.Grad, Limits: j.Limits, FixedBatch: j.FixedBatch}
			sf.sp = models.NewSpeedup(md, fairNodes, fairGPUs)
		}
		pr.speed[i] = sf
		maxN := N
		if opt.MaxNodesPerJob > 0 {
			maxN = min(N, opt.MaxNodesPerJob)
		}
		pr.tables[i] = newTermTable(min(maxN, pr.maxGPUs[i]), pr.maxGPUs[i])
	}
	return pr
}

// maxGPUs is the most GPUs job j may get this round: twice the most it has
// run on (at least 1), the application's cap, the batch limits and the
// policy's per-job cap.
func maxGPUs(j *policies.Job, opt Options, total int) int {
	m := max(2*j.MaxSeenGPUs, 1)
	if opt.MaxGPUsPerJob > 0 {
		m = min(m, opt.MaxGPUsPerJob)
	}
	if j.Limits.MinLocal > 0 && j.Limits.MaxBatch > 0 {
		m = min(m, j.Limits.MaxBatch/j.Limits.MinLocal)
	}
	if j.MaxGPUs > 0 {
		m = min(m, j.MaxGPUs)
	}
	return max(min(m, total), 1)
}

// rowTerm is job i's contribution (scaled speedup + ε)^p to the power sum
// for allocation row (length nNodes). Terms are memoised per (nodes, GPUs,
// changed) in a dense table.
func (pr *problem) rowTerm(i int, row []int) float64 {
	k, n := 0, 0
	changed := false
	base := pr.base[i*pr.nNodes : (i+1)*pr.nNodes]
	for c, v := range row {
		if v > 0 {
			k += v
			n++
		}
		if v != base[c] {
			changed = true
		}
	}
	t := &pr.tables[i]
	if n > t.maxN || k > t.maxK {
		return pr.computeTerm(i, n, k, changed)
	}
	idx := (n*(t.maxK+1) + k) * 2
	if changed {
		idx++
	}
	v := t.terms[idx]
	if math.IsNaN(v) {
		v = pr.computeTerm(i, n, k, changed)
		t.terms[idx] = v
	}
	return v
}

func (pr *problem) computeTerm(i, n, k int, changed bool) float64 {
	s := pr.speed[i].at(n, k) * pr.weight
	if changed {
		s *= pr.factor[i]
	}
	return pr.term(s)
}

// termTable memoises one job's rowTerm values.
type termTable struct {
	maxN, maxK int
	terms      []float64
}

func newTermTable(maxN, maxK int) termTable {
	t := termTable{maxN: maxN, maxK: maxK, terms: make([]float64, 2*(maxN+1)*(maxK+1))}
	for i := range t.terms {
		t.terms[i] = math.NaN()
	}
	return t
}

func (pr *problem) term(s float64) float64 {
	switch pr.p {
	case 0:
		return math.Log(math.Max(s, epsSpeedup))
	case -1:
		return 1 / (s + epsSpeedup)
	case 1:
		return s + epsSpeedup
	}
	return math.Pow(s+epsSpeedup, pr.p)
}

// mean turns a sum of terms into the power mean.
func (pr *problem) mean(sum float64) float64 {
	J := float64(pr.nJobs)
	if pr.p == 0 {
		return math.Exp(sum / J)
	}
	return math.Pow(sum/J, 1/pr.p)
}

// fitness is the power-mean fitness of a full state (nJobs × nNodes).
func (pr *problem) fitness(state []int) float64 {
	sum := 0.0
	for i := 0; i < pr.nJobs; i++ {
		sum += pr.rowTerm(i, state[i*pr.nNodes:(i+1)*pr.nNodes])
	}
	return pr.mean(sum)
}

// feasible reports whether state satisfies every constraint.
func (pr *problem) feasible(state []int) bool {
	N := pr.nNodes
	used := make([]int, N)
	multi := make([]int, N)
	for i := 0; i < pr.nJobs; i++ {
		row := state[i*N : (i+1)*N]
		k, n := 0, 0
		for c, v := range row {
			if v < 0 {
				return false
			}
			used[c] += v
			if v > 0 {
				k += v
				n++
			}
		}
		if k > pr.maxGPUs[i] || (pr.maxNodes > 0 && n > pr.maxNodes) {
			return false
		}
		if n > 1 {
			for c, v := range row {
				if v > 0 {
					multi[c]++
				}
			}
		}
	}
	for c := 0; c < N; c++ {
		if used[c] > pr.capacity || (pr.avoid && multi[c] > 1) {
			return false
		}
	}
	return true
}
