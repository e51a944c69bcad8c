package elasticflow

import (
	"slices"

	"github.com/polluxsim/polluxsim/policies"
)

// Place puts each job's count GPUs on nodes by buddy allocation, as
// ElasticFlow places its jobs (artifact: cluster.py elastic_placement,
// called from ef_sim_jobs_access_control for jobs of a node or more first,
// then for the smaller ones by size, largest first): a job of fewer GPUs
// than a node lies on one node, the fullest that has room (best fit), and
// a larger one on whole free nodes. On nodes of a power-of-two size, jobs
// of power-of-two sizes placed largest first this way always fit when
// their total does: no GPU is lost to fragmentation.
//
// Unlike the artifact, which places every job anew each round, a job whose
// count is unchanged keeps its nodes (in polluxsim moving a job costs a
// restart), and the others are placed around them; only when they do not
// fit does the placement start over from an empty cluster (repacked
// true), where a job that still does not fit (nodes of other sizes, GPU
// types) gets the largest half, quarter, … of its count that does.
func Place(c policies.Cluster, jobs []policies.Job, count []int) (alloc [][]int, repacked bool) {
	var order []int
	for i, k := range count {
		if k > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return count[b] - count[a] })

	alloc = make([][]int, len(jobs))
	for _, i := range order {
		if a := jobs[i].Alloc; len(a) == c.Nodes && policies.Sum(a) == count[i] && BuddyShape(c, a) {
			alloc[i] = slices.Clone(a)
		}
	}
	free := policies.FreeGPUs(c, alloc)
	fits := true
	for _, i := range order {
		if alloc[i] == nil {
			if alloc[i] = placeBuddy(c, free, count[i], &jobs[i]); alloc[i] == nil {
				fits = false
				break
			}
		}
	}
	if fits {
		return alloc, false
	}
	alloc = make([][]int, len(jobs))
	free = policies.FreeGPUs(c, nil)
	for _, i := range order {
		for k := count[i]; k > 0 && alloc[i] == nil; k /= 2 {
			alloc[i] = placeBuddy(c, free, k, &jobs[i])
		}
	}
	return alloc, true
}

// BuddyShape reports whether an allocation has the shape buddy allocation
// gives: all on one node, or only whole nodes.
func BuddyShape(c policies.Cluster, alloc []int) bool {
	if policies.NodesUsed(alloc) <= 1 {
		return true
	}
	for n, v := range alloc {
		if v > 0 && v != c.NodeGPUs(n) {
			return false
		}
	}
	return true
}

// placeBuddy places k GPUs for job j on the nodes' free GPUs (of one GPU
// type the job may use, on a cluster of several) and takes them out of
// free: on the fullest single node with room when some node is that
// large, else on whole free nodes, lowest index first. It returns nil,
// leaving free as it was, when that is not possible.
func placeBuddy(c policies.Cluster, free []int, k int, j *policies.Job) []int {
	ok := func(n int) bool { return true }
	if c.Heterogeneous() {
		t := pickType(c, free, k, j)
		if t == "" {
			return nil
		}
		ok = func(n int) bool { return c.NodeType(n) == t }
	}
	alloc := make([]int, len(free))
	best, large := -1, false
	for n, f := range free {
		if !ok(n) || c.NodeGPUs(n) < k {
			continue
		}
		large = true
		if f >= k && (best < 0 || f < free[best]) {
			best = n
		}
	}
	switch {
	case best >= 0:
		alloc[best] = k
	case large:
		return nil // a job smaller than a node is never split
	default:
		left := k
		for n, f := range free {
			if left > 0 && ok(n) && f == c.NodeGPUs(n) {
				alloc[n] = min(f, left)
				left -= alloc[n]
			}
		}
		if left > 0 {
			return nil
		}
	}
	for n, v := range alloc {
		free[n] -= v
	}
	return alloc
}

// pickType is the GPU type a job of k GPUs is placed on in a cluster of
// several, as policies.PlaceJob picks it: the job's current type if it
// may use it and it has k GPUs free, else the type it may use with the
// most free GPUs (at least k); "" when none has k free.
func pickType(c policies.Cluster, free []int, k int, j *policies.Job) string {
	freeOf := map[string]int{}
	for n, f := range free {
		freeOf[c.NodeType(n)] += f
	}
	if cur := c.AllocType(j.Alloc); cur != "" && j.Offers(cur) && freeOf[cur] >= k {
		return cur
	}
	best := ""
	for n := range free {
		t := c.NodeType(n)
		if j.Offers(t) && freeOf[t] >= k && (best == "" || freeOf[t] > freeOf[best]) {
			best = t
		}
	}
	return best
}
