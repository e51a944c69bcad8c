// Package optimus implements Optimus+Oracle as in the Pollux paper's
// evaluation: jobs keep the batch size their users asked for; each round
// every job first gets one GPU (in arrival order, while GPUs last), then
// GPUs are handed out one at a time to the job whose remaining run time
// shrinks the most, (T(n) − T(n+1)) × remaining iterations, where T is the
// true step time on a packed placement and the remaining iterations come
// from an oracle. Jobs whose GPU count is unchanged keep their nodes; the
// others are placed on the nodes with the most free GPUs.
//
// Remaining iterations follow the reference, which is one epoch short:
// the iterations by the end of the last epoch minus those by the end of
// the epoch in progress (not its start), so the epoch in progress is left
// out, and a job in its last epoch counts 1 (see RemainingIterations). It
// only scales the priorities of a job's GPUs within the epoch.
package optimus

import (
	"sort"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// Policy is an Optimus+Oracle scheduler. Its decisions depend on the
// round's input alone; between Schedule calls it keeps only a cache of the
// jobs' step times (and, driven by ScheduleIncremental, the jobs in order).
type Policy struct {
	cache stepCache
	// inc is the state when driven by ScheduleIncremental (incremental.go).
	inc inc
}

// New returns an Optimus+Oracle policy.
func New() *Policy { return &Policy{} }

// Name implements policies.Policy.
func (*Policy) Name() string { return Name }

// Traits implements policies.Policy: fixed user batch sizes, oracle access.
func (*Policy) Traits() policies.Traits { return policies.Traits{NeedsOracle: true} }

// maxGPUs is the most GPUs a job may use: its batch split into the smallest
// per-GPU batches, and any application cap.
func maxGPUs(j *policies.Job) int {
	m := j.Request.Batch / max(j.Limits.MinLocal, 1)
	if j.MaxGPUs > 0 && j.MaxGPUs < m {
		m = j.MaxGPUs
	}
	return max(m, 1)
}

// StepTime is the true time of one optimizer step of job j at its requested
// batch on n GPUs packed onto nodes of perNode GPUs, with accumulation when
// the per-GPU batch exceeds the memory limit (and at least one accumulation
// step on a single GPU, as the reference does).
func StepTime(j *policies.Job, n, perNode int) float64 {
	lim := j.Limits
	local := models.CeilBatch(float64(j.Request.Batch) / float64(n))
	minAccum := 0
	if n == 1 {
		minAccum = 1
	}
	atomic, s := models.SplitLocal(local, lim.MaxLocal, minAccum)
	atomic = float64(lim.CapLocal(n, s, int(atomic)))
	return j.Oracle.IterTime(models.PackedPlacement(n, perNode), atomic, s)
}

// RemainingIterations is the reference's count of job j's remaining
// optimizer steps at its requested batch: iterations by the end of the
// last epoch minus iterations by the end of the epoch in progress, which
// leaves out the epoch in progress (the reference's off-by-one, kept for
// fidelity); 1 in the last epoch.
func RemainingIterations(j *policies.Job) float64 {
	last := j.Oracle.Epochs() - 1
	if j.Epoch >= last {
		return 1
	}
	b := j.Request.Batch
	return j.Oracle.Iterations(b, last) - j.Oracle.Iterations(b, j.Epoch)
}

// Schedule implements policies.Policy. The GPUs beyond the first are
// handed out from a heap of marginal gains (ties go to the earlier job),
// and each job's step time on its current count is kept from its last
// gain, so a round costs O((jobs + GPUs) log jobs) step-time look-ups
// rather than a scan of every job per GPU. Jobs keeping their GPU count
// keep their own allocation slice in the decision.
func (p *Policy) Schedule(_ float64, c policies.Cluster, jobs []policies.Job) policies.Decision {
	left := c.TotalGPUs()
	perNode := c.MaxNodeGPUs() // jobs are packed onto nodes this large
	count := make([]int, len(jobs))
	p.cache.begin(c)
	defer p.cache.end(len(jobs))
	// Per job with a chance of a second GPU: its cached step times, its
	// remaining iterations and its step time at count[i] GPUs.
	ents := make([]*jobSteps, len(jobs))
	remaining := make([]float64, len(jobs))
	step := make([]float64, len(jobs))
	gains := gainHeap{}
	// push puts job i on the heap with its gain from one more GPU, if
	// positive, and remembers its step time on that many.
	push := func(i int) {
		j := &jobs[i]
		if count[i]+1 > maxGPUs(j) || left < 1 {
			return
		}
		if ents[i] == nil {
			ents[i] = p.cache.get(c, j)
			remaining[i] = RemainingIterations(j)
			step[i] = ents[i].step(j, count[i], perNode)
		}
		next := ents[i].step(j, count[i]+1, perNode)
		if g := (step[i] - next) * remaining[i]; g > 0 {
			gains.push(gain{g: g, i: i, next: next})
		}
	}
	for i := range jobs {
		if left < 1 {
			break
		}
		// A job with a memory floor (an LLM job, rigid at its request)
		// starts on it or not at all.
		need := max(1, jobs[i].MinGPUs)
		if left < need {
			continue
		}
		count[i] = need
		left -= need
		push(i)
	}
	for left > 0 && len(gains) > 0 {
		best := gains.pop()
		count[best.i]++
		step[best.i] = best.next
		left--
		push(best.i)
	}
	// Keep the nodes of jobs whose GPU count did not change.
	alloc := make([][]int, len(jobs))
	for i := range jobs {
		if count[i] > 0 && policies.Sum(jobs[i].Alloc) == count[i] {
			alloc[i] = jobs[i].Alloc
		}
	}
	// Place the others, smallest first, on the nodes with most free GPUs.
	free := policies.FreeGPUs(c, alloc)
	order := make([]int, 0, len(jobs))
	for i := range jobs {
		if count[i] > 0 && alloc[i] == nil {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return count[order[a]] < count[order[b]] })
	for _, i := range order {
		alloc[i] = policies.PlaceJob(c, free, count[i], &jobs[i])
		// On a cluster of several GPU types the count, chosen over all
		// GPUs, may not fit one type: take the most that does.
		for k := count[i] - 1; alloc[i] == nil && k > 0 && c.Heterogeneous(); k-- {
			alloc[i] = policies.PlaceJob(c, free, k, &jobs[i])
		}
	}
	return policies.Decision{Alloc: alloc}
}
