package policies

// FreeGPUs returns the GPUs left on each node after the given allocations.
func FreeGPUs(c Cluster, allocs [][]int) []int {
	free := make([]int, c.Nodes)
	for i := range free {
		free[i] = c.GPUsPerNode
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
