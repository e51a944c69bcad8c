package service

import (
	"cmp"
	"slices"

	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/policies"
)

// What AdaptDL's allocator (sched/adaptdl_sched/allocator.py, its
// _get_job_info, and policy/pollux.py) does with a round beyond the
// policy's choice, done here so that its answers can be applied
// unchanged (docs/serve.md, "AdaptDL's allocator, field by field"):
//
//   - a job's replica range: at least min_replicas (or none), at most
//     max(2·maxProfiledReplicas, 1) within max_replicas, raised to
//     min_replicas, lowered so that every replica gets localBszBounds[0]
//     samples within the largest batch (jobs with a model only);
//   - a non-preemptible job that holds GPUs keeps them ("pinned"): the
//     policy sees neither it nor its GPUs; one without GPUs yet is
//     scheduled as a job without a model (AdaptDL gives it the speedup r);
//   - preemptible nodes come last in the policy's order;
//   - a kept allocation is answered as it was given, in its order;
//   - without an autoscaler, the desired node count follows AdaptDL's
//     utility band (desiredNodes).

// outJob is one job of a round as the answer needs it.
type outJob struct {
	job   policies.Job // decoded against every node of the request
	given []string     // its allocation, as the request gave it
	// view is the job's number among the policy's jobs, -1 when pinned
	view int
	// min is min_replicas; rangeMax, for a job without request_gpus,
	// AdaptDL's max replicas (0 with request_gpus)
	min, rangeMax int
	preemptible   bool
}

// adaptdl reads a job's AdaptDL fields (min_replicas, preemptible) and
// derives its replica range as AdaptDL's allocator does; o.job is
// decoded, total is the round's GPUs.
func (o *outJob) adaptdl(f string, w *Job, total int) error {
	if err := count(f+".min_replicas", w.MinReplicas); err != nil {
		return err
	}
	if w.RequestGPUs > 0 && w.MinReplicas > w.RequestGPUs {
		return errorf("%s.min_replicas: %d is above request_gpus %d", f, w.MinReplicas, w.RequestGPUs)
	}
	o.given, o.min = w.Allocation, w.MinReplicas
	o.preemptible = w.Preemptible == nil || *w.Preemptible
	j := &o.job
	if !o.preemptible {
		// AdaptDL's allocator ignores the model of a non-preemptible job.
		j.Params = nil
	}
	if j.MaxGPUs > 0 && o.min > j.MaxGPUs {
		j.MaxGPUs = o.min // AdaptDL raises max_replicas to min_replicas
	}
	profiled := j.MaxSeenGPUs // maxProfiledReplicas, at most the round's GPUs
	if o.min > 0 {
		// Pollux caps a job at twice what it ran on: let it reach min.
		j.MaxSeenGPUs = max(j.MaxSeenGPUs, min((o.min+1)/2, total))
	}
	if w.RequestGPUs > 0 {
		return nil
	}
	hi := max(2*profiled, 1)
	if w.MaxReplicas > 0 {
		hi = min(hi, w.MaxReplicas)
	}
	hi = max(hi, o.min)
	if h := w.Hints; o.preemptible && h != nil && h.PerfParams != nil && h.InitBatchSize > 0 && len(h.LocalBszBounds) > 0 {
		if j.Limits.MaxBatch < j.Limits.MinLocal*hi {
			hi = j.Limits.MaxBatch / j.Limits.MinLocal
		}
		if hi < o.min {
			return errorf("%s.min_replicas: %d replicas of at least %d samples each (localBszBounds) are more than maxBatchSize %d allows",
				f, o.min, j.Limits.MinLocal, j.Limits.MaxBatch)
		}
	}
	o.rangeMax = hi
	return nil
}

// view builds the policy's view of a decoded round: the jobs not pinned,
// on the nodes with GPUs they do not hold, preemptible nodes last. A
// round without pinned jobs or preemptible nodes is seen as it is.
func (r *round) view(nodes []Node) {
	pinned := make([]int, len(nodes))
	some := slices.ContainsFunc(nodes, func(n Node) bool { return n.Preemptible })
	for i := range r.out {
		if o := &r.out[i]; !o.preemptible && len(o.given) > 0 {
			o.view, some = -1, true
			for n, v := range o.job.Alloc {
				pinned[n] += v
			}
		}
	}
	r.jobs = make([]policies.Job, 0, len(r.out))
	if !some {
		for i := range r.out {
			r.out[i].view = len(r.jobs)
			r.jobs = append(r.jobs, r.out[i].job)
		}
		return
	}
	// Non-preemptible nodes first, in the request's order (AdaptDL's
	// policy sorts them by name as well: its drop-in sends them so).
	order := make([]int, 0, len(nodes))
	for _, pre := range []bool{false, true} {
		for n := range nodes {
			if nodes[n].Preemptible == pre && nodes[n].GPUs > pinned[n] {
				order = append(order, n)
			}
		}
	}
	pos := make([]int, len(nodes))
	var pools []policies.Pool
	r.names = make([]string, len(order))
	for v, n := range order {
		pos[n], r.names[v] = v, r.nodes[n]
		pools = addNode(pools, cmp.Or(nodes[n].GPUType, policies.DefaultType), nodes[n].GPUs-pinned[n])
	}
	r.cluster = policies.Cluster{}
	if len(pools) > 0 {
		r.cluster = clusterOf(pools)
	}
	for i := range r.out {
		o := &r.out[i]
		if o.view < 0 {
			continue
		}
		j := o.job
		if j.Alloc != nil {
			j.Alloc = make([]int, len(order))
			for n, v := range o.job.Alloc {
				if v > 0 {
					j.Alloc[pos[n]] += v
				}
			}
		}
		o.view = len(r.jobs)
		r.jobs = append(r.jobs, j)
	}
}

// prepare completes the policy's view for a policy of traits t: a job
// without request_gpus (AdaptDL names none) has its replica range as
// its cap under a policy that does not adapt batch sizes (Pollux caps
// jobs by their profiled replicas itself), and the range's top, within
// what its batch allows and the round's GPUs, as its request under one
// that runs jobs on their request (Tiresias, FIFO).
func (r *round) prepare(t policies.Traits) {
	if t.AdaptiveBatch {
		return
	}
	for i := range r.out {
		o := &r.out[i]
		if o.view < 0 || o.rangeMax == 0 {
			continue
		}
		j := &r.jobs[o.view]
		j.MaxGPUs = o.rangeMax
		if t.UserGPUs {
			// Within what its batch allows (policies.GPUCap of a policy
			// choosing counts: its batch over its smallest per-GPU batch).
			j.Request.GPUs = min(policies.GPUCap(j, policies.Traits{}), r.cluster.TotalGPUs())
		}
	}
}

// allJobs are every job of the round (for an autoscaler).
func (r *round) allJobs() []policies.Job {
	if len(r.jobs) == len(r.out) {
		return r.jobs
	}
	all := make([]policies.Job, len(r.out))
	for i := range r.out {
		all[i] = r.out[i].job
	}
	return all
}

// allocation is job i's answer under decision d: as given when pinned or
// kept, none when fewer than its min_replicas.
func (r *round) allocation(i int, d policies.Decision) []string {
	o := &r.out[i]
	if o.view < 0 {
		return o.given
	}
	a := d.Alloc[o.view]
	k := policies.Sum(a)
	switch {
	case k == 0 || k < o.min:
		return []string{}
	case policies.Equal(a, r.jobs[o.view].Alloc):
		return o.given
	}
	return replicas(a, func(n int) string { return r.names[n] })
}

// Utility band of AdaptDL's PolluxPolicy for cluster sizing.
const (
	adaptdlMinUtil = 0.35
	adaptdlMaxUtil = 0.65
)

// desiredNodes is the node count AdaptDL's PolluxPolicy asks for when no
// autoscaler is named: the nodes as they are while the jobs' predicted
// utility on them is within [0.35, 0.65] (or nothing is predicted), else
// the count whose utility is nearest the band's middle (the utility-band
// autoscaler over one round), from the nodes in use up to twice the
// nodes (AdaptDL adds as many virtual nodes as real ones); inUse is the
// number of nodes the answer uses. A round without jobs wants no node
// (AdaptDL's allocator then lets its expander shrink the cluster to 0).
func desiredNodes(r *round, inUse int) int {
	if len(r.out) == 0 {
		return 0
	}
	band := autoscalers.Band{Low: adaptdlMinUtil, High: adaptdlMaxUtil, Window: 1}
	c := autoscalers.JobsCurve(r.allJobs(), r.full.MaxNodeGPUs(), false)
	lo := max(inUse, 1)
	return band.Target(c, r.full.Nodes, lo, max(2*r.full.Nodes, lo))
}
