package pollux

// localSearch improves state in place by steepest descent over single-GPU
// moves: add a GPU to a job on a node, take one away, move one of a job's
// GPUs to another node, or transfer a GPU on a node from one job to
// another. Each move changes at most two rows, whose terms are looked up in
// O(1) from running per-row statistics, so an iteration over all moves is
// cheap. It stops when no move raises the fitness (or after a bounded
// number of iterations) and returns the final fitness.
func (s *searcher) localSearch(state []int, maxIter int) float64 {
	ls := newLocal(s.pr, state)
	for iter := 0; iter < maxIter; iter++ {
		if !ls.step() {
			break
		}
	}
	return ls.pr.mean(ls.sum)
}

// local holds the running statistics of a state under local search.
type local struct {
	pr    *problem
	state []int
	k, n  []int // GPUs and nodes per row
	diff  []int // entries differing from the base per row
	terms []float64
	sum   float64
	used  []int // GPUs per node
	multi []int // multi-node jobs per node
}

func newLocal(pr *problem, state []int) *local {
	N, J := pr.nNodes, pr.nJobs
	ls := &local{pr: pr, state: state, k: make([]int, J), n: make([]int, J), diff: make([]int, J),
		terms: make([]float64, J), used: make([]int, N), multi: make([]int, N)}
	for i := 0; i < J; i++ {
		row := state[i*N : (i+1)*N]
		for c, v := range row {
			if v > 0 {
				ls.k[i] += v
				ls.n[i]++
			}
			if v != pr.base[i*N+c] {
				ls.diff[i]++
			}
			ls.used[c] += v
		}
		ls.terms[i] = ls.term(i, ls.n[i], ls.k[i], ls.diff[i])
		ls.sum += ls.terms[i]
	}
	for i := 0; i < J; i++ {
		if ls.n[i] > 1 {
			for c, v := range state[i*N : (i+1)*N] {
				if v > 0 {
					ls.multi[c]++
				}
			}
		}
	}
	return ls
}

// term looks up the row term for (nodes, GPUs, changed).
func (ls *local) term(i, n, k, diff int) float64 { return ls.pr.termAt(i, n, k, diff > 0) }

// delta describes the effect of changing entry (i, c) by d (±1).
type delta struct {
	n, k, diff int
}

func (ls *local) change(i, c, d int) delta {
	pr := ls.pr
	v := ls.state[i*pr.nNodes+c]
	b := pr.base[i*pr.nNodes+c]
	nv := v + d
	out := delta{n: ls.n[i], k: ls.k[i] + d, diff: ls.diff[i]}
	if v == 0 && nv > 0 {
		out.n++
	} else if v > 0 && nv == 0 {
		out.n--
	}
	if v == b && nv != b {
		out.diff++
	} else if v != b && nv == b {
		out.diff--
	}
	return out
}

// rowAllowed checks job i's own limits and interference avoidance for a
// row with n nodes, given which nodes it will occupy.
func (ls *local) rowAllowed(i int, n, k int, occupies func(c int) bool) bool {
	pr := ls.pr
	if k > pr.maxGPUs[i] || (pr.maxNodes > 0 && n > pr.maxNodes) {
		return false
	}
	if !pr.avoid || n <= 1 {
		return true
	}
	wasMulti := ls.n[i] > 1
	row := ls.state[i*pr.nNodes : (i+1)*pr.nNodes]
	for c := 0; c < pr.nNodes; c++ {
		if !occupies(c) {
			continue
		}
		others := ls.multi[c]
		if wasMulti && row[c] > 0 {
			others--
		}
		if others > 0 {
			return false
		}
	}
	return true
}

func (ls *local) better(newSum, oldSum float64) bool {
	if ls.pr.p < 0 {
		return newSum < oldSum-1e-12*abs(oldSum)
	}
	return newSum > oldSum+1e-12*abs(oldSum)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// move is a candidate: job from gives up a GPU on node a, job to gains one
// on node b (from = -1: a pure add; to = -1: a pure removal).
type move struct {
	from, a, to, b int
}

// step applies the best improving move; false if there is none.
func (ls *local) step() bool {
	pr := ls.pr
	N, J := pr.nNodes, pr.nJobs
	best := move{-1, -1, -1, -1}
	bestSum := ls.sum
	consider := func(m move, newSum float64) {
		if ls.better(newSum, bestSum) {
			best, bestSum = m, newSum
		}
	}
	for i := 0; i < J; i++ {
		row := ls.state[i*N : (i+1)*N]
		for a := 0; a < N; a++ {
			v := row[a]
			// Add a GPU on node a.
			if ls.used[a] < pr.capacity {
				d := ls.change(i, a, +1)
				if ls.rowAllowed(i, d.n, d.k, func(c int) bool { return row[c] > 0 || c == a }) {
					consider(move{-1, -1, i, a}, ls.sum-ls.terms[i]+ls.term(i, d.n, d.k, d.diff))
				}
			}
			if v == 0 {
				continue
			}
			// Remove a GPU from node a.
			d := ls.change(i, a, -1)
			nsRemoved := ls.sum - ls.terms[i] + ls.term(i, d.n, d.k, d.diff)
			if ls.rowAllowed(i, d.n, d.k, func(c int) bool { return row[c] > 0 && (c != a || v > 1) }) {
				consider(move{i, a, -1, -1}, nsRemoved)
			}
			// Move it to node b.
			for b := 0; b < N; b++ {
				if b == a || ls.used[b] >= pr.capacity {
					continue
				}
				row[a]--
				d2 := ls.change(i, b, +1)
				row[a]++
				if ls.rowAllowed(i, d2.n, d2.k, func(c int) bool {
					return (row[c] > 0 && (c != a || v > 1)) || c == b
				}) {
					consider(move{i, a, i, b}, ls.sum-ls.terms[i]+ls.term(i, d2.n, d2.k, d2.diff))
				}
			}
			// Transfer it to another job on the same node.
			for r := 0; r < J; r++ {
				if r == i {
					continue
				}
				rrow := ls.state[r*N : (r+1)*N]
				dr := ls.change(r, a, +1)
				if !ls.rowAllowed(r, dr.n, dr.k, func(c int) bool { return rrow[c] > 0 || c == a }) {
					continue
				}
				// The donor's multi-node status may change, which only
				// relaxes interference; the receiver's check above counted
				// the donor as still multi-node on a, which is conservative.
				consider(move{i, a, r, a}, nsRemoved-ls.terms[r]+ls.term(r, dr.n, dr.k, dr.diff))
			}
		}
	}
	if best.from < 0 && best.to < 0 {
		return false
	}
	ls.apply(best)
	return true
}

func (ls *local) apply(m move) {
	pr := ls.pr
	N := pr.nNodes
	touched := []int{}
	if m.from >= 0 {
		touched = append(touched, m.from)
	}
	if m.to >= 0 && m.to != m.from {
		touched = append(touched, m.to)
	}
	// Remove the old multi-node marks of the touched rows.
	for _, i := range touched {
		if ls.n[i] > 1 {
			for c, v := range ls.state[i*N : (i+1)*N] {
				if v > 0 {
					ls.multi[c]--
				}
			}
		}
	}
	if m.from >= 0 {
		d := ls.change(m.from, m.a, -1)
		ls.state[m.from*N+m.a]--
		ls.used[m.a]--
		ls.n[m.from], ls.k[m.from], ls.diff[m.from] = d.n, d.k, d.diff
	}
	if m.to >= 0 {
		d := ls.change(m.to, m.b, +1)
		ls.state[m.to*N+m.b]++
		ls.used[m.b]++
		ls.n[m.to], ls.k[m.to], ls.diff[m.to] = d.n, d.k, d.diff
	}
	for _, i := range touched {
		if ls.n[i] > 1 {
			for c, v := range ls.state[i*N : (i+1)*N] {
				if v > 0 {
					ls.multi[c]++
				}
			}
		}
		ls.sum -= ls.terms[i]
		ls.terms[i] = ls.term(i, ls.n[i], ls.k[i], ls.diff[i])
		ls.sum += ls.terms[i]
	}
}
