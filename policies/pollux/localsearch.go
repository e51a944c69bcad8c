package pollux

// localSearch improves state in place by greedy single-GPU moves — add a
// GPU to a job on a node, take one away, or move one between nodes — as
// long as the best move raises the fitness and keeps the state feasible.
// It returns the final fitness.
func (s *searcher) localSearch(state []int, fit float64) float64 {
	pr := s.pr
	N, J := pr.nNodes, pr.nJobs
	terms := make([]float64, J)
	sum := 0.0
	for i := 0; i < J; i++ {
		terms[i] = pr.rowTerm(i, state[i*N:(i+1)*N])
		sum += terms[i]
	}
	used := make([]int, N)
	multi := make([]int, N) // multi-node jobs per node
	recount := func() {
		for c := range used {
			used[c], multi[c] = 0, 0
		}
		for i := 0; i < J; i++ {
			row := state[i*N : (i+1)*N]
			isMulti := nodesOf(row) > 1
			for c, v := range row {
				used[c] += v
				if isMulti && v > 0 {
					multi[c]++
				}
			}
		}
	}
	row := make([]int, N)
	better := func(newSum, oldSum float64) bool {
		// The power mean is increasing in the sum for p ≥ 0 (and for the
		// log form), decreasing for p < 0.
		if pr.p < 0 {
			return newSum < oldSum*(1-1e-12)
		}
		return newSum > oldSum*(1+1e-12)+1e-300
	}
	// rowOK checks the constraints that involve job i's row alone plus its
	// interaction with the other jobs on node capacity and interference.
	rowOK := func(i int, cand []int) bool {
		cur := state[i*N : (i+1)*N]
		k, n := 0, 0
		for c, v := range cand {
			if v > 0 {
				k += v
				n++
			}
			if used[c]-cur[c]+v > pr.capacity {
				return false
			}
		}
		if k > pr.maxGPUs[i] || (pr.maxNodes > 0 && n > pr.maxNodes) {
			return false
		}
		if pr.avoid && n > 1 {
			wasMulti := nodesOf(cur) > 1
			for c, v := range cand {
				others := multi[c]
				if wasMulti && cur[c] > 0 {
					others--
				}
				if v > 0 && others > 0 {
					return false
				}
			}
		}
		return true
	}
	for iter := 0; iter < 4*J*N; iter++ {
		recount()
		bestSum, bestJob := sum, -1
		var bestRow []int
		for i := 0; i < J; i++ {
			cur := state[i*N : (i+1)*N]
			try := func() {
				if !rowOK(i, row) {
					return
				}
				t := pr.rowTerm(i, row)
				if ns := sum - terms[i] + t; better(ns, bestSum) {
					bestSum, bestJob = ns, i
					bestRow = append(bestRow[:0], row...)
				}
			}
			for a := 0; a < N; a++ {
				copy(row, cur)
				if used[a] < pr.capacity {
					row[a]++
					try()
					row[a]--
				}
				if cur[a] == 0 {
					continue
				}
				row[a]--
				try()
				for b := 0; b < N; b++ {
					if b != a && used[b] < pr.capacity {
						row[b]++
						try()
						row[b]--
					}
				}
			}
		}
		if bestJob < 0 {
			break
		}
		copy(state[bestJob*N:(bestJob+1)*N], bestRow)
		terms[bestJob] = pr.rowTerm(bestJob, bestRow)
		sum = bestSum
	}
	return pr.mean(sum)
}
