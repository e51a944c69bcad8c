package pollux

import (
	"math"
	"sync/atomic"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// epsSpeedup keeps a job with no GPUs from making the power mean undefined
// (the reference adds it to every speedup).
const epsSpeedup = 1e-3

// problem is one round's search problem: jobs (in repair priority order)
// × nodes, with per-job speedup functions and limits. Its tables fill
// lazily and are safe for concurrent use by the search's workers.
type problem struct {
	nJobs, nNodes int
	capacity      int     // GPUs of the largest node
	caps          []int32 // GPUs per node
	empty         []int32 // the nodes of no GPUs, ascending
	weight        float64 // nodes / total GPUs
	fairGPUs      int     // the fair share (on one node), every speedup's base
	pm            models.PowerMean
	avoid         bool
	maxNodes      []int     // per job (0: no cap)
	maxGPUs       []int     // per job
	minGPUs       []int     // per job: below it a job's value is 0 (Job.MinGPUs)
	base          state     // current allocation
	factor        []float64 // re-allocation factor per job
	speed         []models.Speedup
	tables        []termTable
}

// modelKey identifies everything a job's best goodput depends on.
type modelKey struct {
	params     models.Params
	grad       models.GradStats
	limits     models.Limits
	fixedBatch int
}

// goodputCache memoises a job's best goodput per (nodes, GPUs) for as long
// as its model is unchanged, across rounds, and its planner (the candidate
// batch sizes and their throughputs) for as long as its fitted parameters
// are: new gradient statistics then cost only the candidates'
// efficiencies. Goodputs are kept per GPU count for one node and for
// several (the model does not tell more nodes apart), as float64 bits, 0
// meaning not yet computed; concurrent fills compute the same value.
type goodputCache struct {
	key     modelKey
	planner *models.Planner
	gp      []atomic.Uint64
	// far is the last goodput asked beyond the planner's GPU counts:
	// the speedup's base (the fair share), asked every round.
	far atomic.Pointer[farGoodput]
}

// farGoodput is a goodput on k GPUs over one node or several (multi).
type farGoodput struct {
	multi bool
	k     int
	v     float64
}

// newGoodputCache returns the cache for key on up to maxK GPUs, keeping
// the planner of old (nil: none) if the fitted parameters are the same.
func newGoodputCache(key modelKey, maxK int, old *goodputCache) *goodputCache {
	var pl *models.Planner
	if old != nil && old.key.params == key.params && old.key.limits == key.limits && old.key.fixedBatch == key.fixedBatch {
		pl = old.planner.Grow(maxK)
	} else {
		pl = models.NewPlanner(models.Model{Params: key.params, Limits: key.limits, FixedBatch: key.fixedBatch}, maxK)
	}
	return &goodputCache{key: key, planner: pl, gp: make([]atomic.Uint64, 2*(pl.MaxGPUs()+1))}
}

func (c *goodputCache) maxK() int { return c.planner.MaxGPUs() }

func (c *goodputCache) best(n, k int) float64 {
	if k > c.maxK() {
		if f := c.far.Load(); f != nil && f.k == k && f.multi == (n > 1) {
			return f.v
		}
		v := c.planner.Best(c.key.grad, n, k).Goodput
		c.far.Store(&farGoodput{multi: n > 1, k: k, v: v})
		return v
	}
	e := &c.gp[2*k+min(max(n-1, 0), 1)]
	if b := e.Load(); b != 0 {
		return math.Float64frombits(b)
	}
	v := c.planner.Best(c.key.grad, n, k).Goodput
	if b := math.Float64bits(v); b != 0 {
		e.Store(b)
	}
	return v
}

// newProblem builds the round's problem. jobs must be in priority order;
// they are the jobs the search considers among active ones (the fair
// share, every speedup's base, is among all active jobs). caches holds the
// jobs' goodput caches from earlier rounds by name; it is updated in place.
func newProblem(c policies.Cluster, jobs []policies.Job, active int, opt Options, caches map[string]*goodputCache) *problem {
	J, N := len(jobs), c.Nodes
	total := c.TotalGPUs()
	pr := &problem{
		nJobs: J, nNodes: N, capacity: c.MaxNodeGPUs(),
		weight:   float64(N) / float64(total),
		pm:       models.NewPowerMean(opt.P, epsSpeedup),
		avoid:    !opt.NoInterferenceAvoidance,
		maxNodes: make([]int, J),
		maxGPUs:  make([]int, J),
		minGPUs:  make([]int, J),
		factor:   make([]float64, J),
		speed:    make([]models.Speedup, J),
		tables:   make([]termTable, J),
	}
	pr.caps = make([]int32, N)
	for n := range pr.caps {
		pr.caps[n] = int32(c.NodeGPUs(n))
		if pr.caps[n] <= 0 {
			pr.empty = append(pr.empty, int32(n))
		}
	}
	fairNodes, fairGPUs := fairShare(c, J, active)
	pr.fairGPUs = fairGPUs
	pr.base.begin()
	for i := range jobs {
		j := &jobs[i]
		for n, v := range j.Alloc {
			if n < N && v > 0 {
				pr.base.ents = append(pr.base.ents, entry{int32(n), int32(v)})
			}
		}
		pr.base.endRow()
		pr.maxGPUs[i] = maxGPUs(j, opt, total)
		pr.maxNodes[i] = maxNodes(j, opt, pr.capacity)
		pr.minGPUs[i] = j.MinGPUs
		pr.factor[i] = models.RestartFactor(j.Age, j.Restarts, opt.RestartDelay)
		pr.speed[i] = models.NewSpeedup(nil, fairNodes, fairGPUs, nil)
		if j.Params != nil {
			md := &models.Model{Params: *j.Params, Grad: j.Grad, Limits: j.Limits, FixedBatch: j.FixedBatch}
			key := modelKey{*j.Params, j.Grad, j.Limits, j.FixedBatch}
			gc := caches[j.Name]
			if gc == nil || gc.key != key || gc.maxK() < pr.maxGPUs[i] {
				gc = newGoodputCache(key, max(pr.maxGPUs[i], 2*j.MaxSeenGPUs), gc)
				if caches != nil {
					caches[j.Name] = gc
				}
			}
			// The speedup's base is the fair share (the reference's). On
			// large clusters the fair share can exceed what the job's
			// batch limits allow, where its goodput is 0, and with it
			// every speedup of the job, which would never be scheduled:
			// then the base is the most GPUs the job can use. (The
			// cache remembers the fair share's goodput.)
			baseGPUs := fairGPUs
			if !(gc.best(fairNodes, fairGPUs) > 0) {
				baseGPUs = min(fairGPUs, usableGPUs(j, opt, total))
			}
			pr.speed[i] = models.NewSpeedup(md, fairNodes, baseGPUs, gc.best)
		}
		pr.tables[i] = newTermTable(pr.maxGPUs[i])
	}
	return pr
}

// fairShare is the fair share, every speedup's base, of the considered
// jobs among active ones on c: the cluster shared by all active jobs.
func fairShare(c policies.Cluster, considered, active int) (nodes, gpus int) {
	return models.FairShare(c.TotalGPUs(), max(active, considered))
}

// maxGPUs is the most GPUs job j may get this round: twice the most it has
// run on (at least 1, and at least the fewest it fits in, Job.MinGPUs),
// within usableGPUs.
func maxGPUs(j *policies.Job, opt Options, total int) int {
	return min(max(2*j.MaxSeenGPUs, 1, j.MinGPUs), usableGPUs(j, opt, total))
}

// usableGPUs is the most GPUs job j can use at all: the application's cap,
// the batch limits (a per-GPU batch of at least MinLocal within MaxBatch),
// the policy's per-job cap (see jobCap) and the cluster (at least 1).
func usableGPUs(j *policies.Job, opt Options, total int) int {
	m := total
	if c := jobCap(j, opt.MaxGPUsPerJob); c > 0 {
		m = min(m, c)
	}
	if j.Limits.MinLocal > 0 && j.Limits.MaxBatch > 0 {
		m = min(m, j.Limits.MaxBatch/j.Limits.MinLocal)
	}
	if j.MaxGPUs > 0 {
		m = min(m, j.MaxGPUs)
	}
	return max(m, 1)
}

// jobCap is the policy's GPU cap c (MaxGPUsPerJob, 0: none) as it applies
// to job j. The reference's caps, 64 GPUs and 16 nodes, are the whole of
// its 16 × 4-GPU cluster. A job with a memory floor (an LLM job,
// Job.MinGPUs > 0) is one Pollux sizes where every other policy runs it on
// its request: the caps never hold it below that request, nor below its
// floor (else it could never run). For the other jobs the cap is c.
func jobCap(j *policies.Job, c int) int {
	if c <= 0 || j.MinGPUs <= 0 {
		return c
	}
	return max(c, j.Request.GPUs, j.MinGPUs)
}

// maxNodes is the most nodes job j may span on nodes of capacity GPUs (0:
// no cap): MaxNodesPerJob, and for a job with a memory floor at least the
// nodes its request (or floor) fills when packed (see jobCap).
func maxNodes(j *policies.Job, opt Options, capacity int) int {
	c := opt.MaxNodesPerJob
	if c <= 0 || j.MinGPUs <= 0 {
		return c
	}
	need := max(j.Request.GPUs, j.MinGPUs)
	return max(c, (need+capacity-1)/max(capacity, 1))
}

// overCaps reports whether a row of job i with n nodes and k GPUs exceeds
// the job's GPU or node cap.
func (pr *problem) overCaps(i, n, k int) bool {
	return k > pr.maxGPUs[i] || (pr.maxNodes[i] > 0 && n > pr.maxNodes[i])
}

// valueAt is job i's value in the power mean on k GPUs over n nodes, its
// allocation changed or not: its speedup scaled by nodes / total GPUs
// (the reference divides by 4 on its 4-GPU nodes), times the re-allocation
// factor if changed. Values are memoised per (one node or several, GPUs,
// changed) in a dense table: the model tells only one node from several.
func (pr *problem) valueAt(i, n, k int, changed bool) float64 {
	t := &pr.tables[i]
	if k > t.maxK {
		return pr.computeValue(i, n, k, changed)
	}
	idx := k * 4
	if n > 1 {
		idx += 2
	}
	if changed {
		idx++
	}
	if b := t.values[idx].Load(); b != emptyValue {
		return math.Float64frombits(b)
	}
	v := pr.computeValue(i, n, k, changed)
	t.values[idx].Store(math.Float64bits(v))
	return v
}

func (pr *problem) computeValue(i, n, k int, changed bool) float64 {
	if k < pr.minGPUs[i] {
		return 0 // the job does not fit: the engine would give it nothing
	}
	s := pr.speed[i].At(n, k) * pr.weight
	if changed {
		s *= pr.factor[i]
	}
	return s
}

// rowValue is job i's value for its allocation row r.
func (pr *problem) rowValue(i int, r []entry) float64 {
	k, n := rowStats(r)
	return pr.valueAt(i, n, k, !equalRows(r, pr.base.row(i)))
}

// termTable memoises one job's values (see valueAt) as float64 bits; the
// all-ones pattern (a NaN no computation yields) marks an empty entry.
type termTable struct {
	maxK   int
	values []atomic.Uint64
}

const emptyValue = ^uint64(0)

func newTermTable(maxK int) termTable {
	t := termTable{maxK: maxK, values: make([]atomic.Uint64, 4*(maxK+1))}
	for i := range t.values {
		t.values[i].Store(emptyValue)
	}
	return t
}

// fitness is the power-mean fitness of a state.
func (pr *problem) fitness(st *state) float64 {
	values := make([]float64, pr.nJobs)
	for i := range values {
		values[i] = pr.rowValue(i, st.row(i))
	}
	return pr.pm.Mean(values)
}

// feasible reports whether st satisfies every constraint.
func (pr *problem) feasible(st *state) bool {
	used := make([]int, pr.nNodes)
	multi := make([]int, pr.nNodes)
	for i := 0; i < pr.nJobs; i++ {
		r := st.row(i)
		k, n := rowStats(r)
		if pr.overCaps(i, n, k) {
			return false
		}
		for x, e := range r {
			if e.gpus <= 0 || e.node < 0 || int(e.node) >= pr.nNodes || (x > 0 && r[x-1].node >= e.node) {
				return false
			}
			used[e.node] += int(e.gpus)
			if n > 1 {
				multi[e.node]++
			}
		}
	}
	for c := range used {
		if used[c] > int(pr.caps[c]) || (pr.avoid && multi[c] > 1) {
			return false
		}
	}
	return true
}
