package policies

// FreeGPUs returns the GPUs left on each node after the given allocations.
func FreeGPUs(c Cluster, allocs [][]int) []int {
	free := make([]int, c.Nodes)
	for i := range free {
		free[i] = c.NodeGPUs(i)
	}
	for _, a := range allocs {
		for n, v := range a {
			if n < len(free) {
				free[n] -= v
			}
		}
	}
	return free
}

// PlaceMostFree places gpus GPUs greedily on the nodes with the most free
// GPUs (ties go to the lowest node index), taking as many as possible from
// each node in turn, and subtracts them from free. It returns the per-node
// allocation, or nil if the free GPUs do not suffice (free is then
// unchanged). This is how the reference simulator places Tiresias and
// Optimus jobs.
func PlaceMostFree(free []int, gpus int) []int {
	total := 0
	for _, f := range free {
		total += f
	}
	if gpus <= 0 || total < gpus {
		return nil
	}
	alloc := make([]int, len(free))
	for left := gpus; left > 0; {
		best := -1
		for n, f := range free {
			if f > 0 && (best < 0 || f > free[best]) {
				best = n
			}
		}
		take := min(free[best], left)
		alloc[best] += take
		free[best] -= take
		left -= take
	}
	return alloc
}

// PlaceJob places gpus GPUs for job j as PlaceMostFree does, on a cluster
// of any kind. On a single-type cluster it is PlaceMostFree. On a cluster
// of several GPU types it treats GPUs as interchangeable, as a
// heterogeneity-unaware scheduler does, except that a job holds GPUs of one
// type: it keeps the job's current type if that has room, else takes the
// offered type with the most free GPUs (ties: the type of the lowest
// node), and places most-free within that type's nodes.
func PlaceJob(c Cluster, free []int, gpus int, j *Job) []int {
	if !c.Heterogeneous() {
		return PlaceMostFree(free, gpus)
	}
	freeOf := map[string]int{}
	for n, f := range free {
		freeOf[c.NodeType(n)] += f
	}
	best := ""
	if cur := c.AllocType(j.Alloc); cur != "" && j.Offers(cur) && freeOf[cur] >= gpus {
		best = cur
	}
	if best == "" {
		for n := range free {
			t := c.NodeType(n)
			if j.Offers(t) && freeOf[t] >= gpus && (best == "" || freeOf[t] > freeOf[best]) {
				best = t
			}
		}
	}
	if best == "" {
		return nil
	}
	sub := make([]int, len(free))
	for n, f := range free {
		if c.NodeType(n) == best {
			sub[n] = f
		}
	}
	alloc := PlaceMostFree(sub, gpus)
	if alloc != nil {
		for n, v := range alloc {
			free[n] -= v
		}
	}
	return alloc
}

// RunInOrder is the decision of a policy that runs jobs at the GPUs their
// users asked for, in order (a permutation of the jobs' indices): each
// job that still fits in the cluster's GPUs runs, later smaller ones
// backfilling past one that does not; a running job that runs on keeps
// its allocation, and the others start on the nodes with the most free
// GPUs (PlaceJob), in order. SRTF and EDF decide so, each by its order.
func RunInOrder(c Cluster, jobs []Job, order []int) Decision {
	run := make([]bool, len(jobs))
	left := c.TotalGPUs()
	for _, i := range order {
		if want := jobs[i].Request.GPUs; want <= left {
			run[i] = true
			left -= want
		}
	}
	alloc := make([][]int, len(jobs))
	for i := range jobs {
		if run[i] && Sum(jobs[i].Alloc) == jobs[i].Request.GPUs {
			alloc[i] = append([]int(nil), jobs[i].Alloc...)
		}
	}
	free := FreeGPUs(c, alloc)
	for _, i := range order {
		if run[i] && alloc[i] == nil {
			alloc[i] = PlaceJob(c, free, jobs[i].Request.GPUs, &jobs[i])
		}
	}
	return Decision{Alloc: alloc}
}
