package pollux

import (
	"cmp"
	"math"
	"slices"
)

// The reference's search is pymoo's NSGA-II on two objectives: the power
// mean (the fitness) and the cluster utility, the speedups' sum over the
// GPUs of the nodes in use (each job's speedup per GPU weighted by its
// share of those GPUs). Its final pick is the best power mean. With the
// NSGA2 option the genetic algorithm selects and survives as NSGA-II does
// on these two objectives (non-dominated rank, then crowding distance);
// otherwise it is elitist on the fitness alone.

// utility is the reference's cluster utility of st: the sum of the jobs'
// speedups over the GPUs of the nodes in use (0 for an empty cluster).
func (pr *problem) utility(st *state) float64 {
	used := make([]bool, pr.nNodes)
	active, sum := 0, 0.0
	for i := 0; i < pr.nJobs; i++ {
		r := st.row(i)
		k, n := rowStats(r)
		if k == 0 {
			continue
		}
		sum += pr.speed[i].At(n, k)
		for _, e := range r {
			if !used[e.node] {
				used[e.node] = true
				active++
			}
		}
	}
	if active == 0 {
		return 0
	}
	return sum / float64(active*pr.capacity)
}

// dominates reports whether a is at least as good as b on both objectives
// and better on one (both maximised).
func dominates(a, b *individual) bool {
	return a.fit >= b.fit && a.util >= b.util && (a.fit > b.fit || a.util > b.util)
}

// rankAndCrowd sets each individual's non-dominated rank (0 = the Pareto
// front) and crowding distance within its front, and orders pop by rank,
// then crowding distance (larger first), stably.
func rankAndCrowd(pop []individual) {
	n := len(pop)
	count := make([]int, n)       // how many dominate i
	dominated := make([][]int, n) // whom i dominates
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch {
			case dominates(&pop[i], &pop[j]):
				dominated[i] = append(dominated[i], j)
				count[j]++
			case dominates(&pop[j], &pop[i]):
				dominated[j] = append(dominated[j], i)
				count[i]++
			}
		}
	}
	var front []int
	for i := range pop {
		if count[i] == 0 {
			front = append(front, i)
		}
	}
	for rank := 0; len(front) > 0; rank++ {
		crowding(pop, front)
		var next []int
		for _, i := range front {
			pop[i].rank = rank
			for _, j := range dominated[i] {
				if count[j]--; count[j] == 0 {
					next = append(next, j)
				}
			}
		}
		slices.Sort(next)
		front = next
	}
	slices.SortStableFunc(pop, func(a, b individual) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(b.crowd, a.crowd)
	})
}

// crowding sets the crowding distance of the individuals of one front:
// the sum over both objectives of the normalised gap between each one's
// neighbours; the extremes get +Inf.
func crowding(pop []individual, front []int) {
	for _, i := range front {
		pop[i].crowd = 0
	}
	for _, obj := range []func(*individual) float64{
		func(x *individual) float64 { return x.fit },
		func(x *individual) float64 { return x.util },
	} {
		idx := slices.Clone(front)
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(obj(&pop[a]), obj(&pop[b])) })
		lo, hi := obj(&pop[idx[0]]), obj(&pop[idx[len(idx)-1]])
		pop[idx[0]].crowd, pop[idx[len(idx)-1]].crowd = math.Inf(1), math.Inf(1)
		if !(hi > lo) {
			continue
		}
		for k := 1; k+1 < len(idx); k++ {
			pop[idx[k]].crowd += (obj(&pop[idx[k+1]]) - obj(&pop[idx[k-1]])) / (hi - lo)
		}
	}
}

// nsgaBetter is NSGA-II's binary tournament: lower rank, then larger
// crowding distance, wins.
func nsgaBetter(a, b *individual) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.crowd > b.crowd
}

// bestFirst moves the individual with the highest fitness to the front
// (the search's result and its stall test read pop[0]).
func bestFirst(pop []individual) {
	b := 0
	for i := range pop {
		if pop[i].fit > pop[b].fit {
			b = i
		}
	}
	if b > 0 {
		best := pop[b]
		copy(pop[1:b+1], pop[:b])
		pop[0] = best
	}
}
