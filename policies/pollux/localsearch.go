package pollux

import (
	"cmp"
	"math"
	"slices"
)

// localSearch improves st by sweeps over the jobs: for each job it takes
// the best single-GPU move that raises the fitness — add a GPU on a node,
// take one away, move one to another node, or transfer one on a node to
// another job — until a sweep changes nothing (or maxSweeps). Moves are
// evaluated in O(1) from per-row statistics. On large clusters the nodes
// considered for a new GPU are the job's current and previous nodes and
// the free nodes with the most room (nodes are identical, so which free
// node does not matter beyond room and interference), and transfers go to
// the jobs that gain most from one more GPU. It returns the improved state
// and its fitness.
func (s *searcher) localSearch(st *state, maxSweeps int) (*state, float64) {
	ls := newLocal(s.pr, st)
	for sweep := 0; sweep < maxSweeps; sweep++ {
		if !ls.sweep() {
			break
		}
	}
	out := &state{}
	out.begin()
	for _, r := range ls.rows {
		out.ents = append(out.ents, r...)
		out.endRow()
	}
	return out, ls.pr.pm.FromSum(ls.sum, ls.pr.nJobs, ls.center)
}

// local holds a state under local search with its running statistics.
type local struct {
	pr     *problem
	rows   [][]entry
	k, n   []int
	diff   []int     // nodes where the row differs from the current allocation
	values []float64 // each row's value in the power mean (see valueAt)
	terms  []float64 // each row's term at centre
	sum    float64
	center float64 // of the terms (see models.PowerMean.Center)
	used   []int32 // GPUs per node
	multi  []int32 // multi-node jobs per node
	marked []bool  // whether row i's nodes are counted in multi
	sign   float64 // +1: a larger sum of terms is better; −1: smaller
	recv   []int   // transfer receivers of the current sweep
	free   *freeNodes
	// candV and candB are scratch of sweep: the job's GPUs and the
	// current allocation's on each candidate node.
	candV, candB []int32
	// The transfers' caches (see transfers.go): per receiver its
	// conflicting nodes (see conflicts), and the gain and mode of one
	// more GPU on a node it neither holds nor held; the receivers that
	// may take such a GPU by that gain, on any node and on a clean one
	// (byGain); the jobs on each node now and in the current allocation;
	// stamps of the receivers evaluated in full.
	recvConflicts  []int
	recvGain       []float64
	recvMode       []uint8
	recvOf         []int32 // per job: its index in recv, or −1
	classes        [moveClasses]moveClass
	byGain         [2][]int32
	jobsOn, baseOn nodeJobs
	excStamp       []uint32
	excGen         uint32
}

// minGain is the smallest improvement of the sum of terms, relative to
// the sum (at least 1), that local search takes as a move: smaller gains
// are rounding.
const minGain = 1e-12

// manyNodes and manyJobs bound exhaustive candidate lists.
const (
	manyNodes     = 64
	manyJobs      = 64
	nReceivers    = 64
	nFreeNodeCand = 2
)

func newLocal(pr *problem, st *state) *local {
	J := pr.nJobs
	ls := &local{pr: pr, rows: make([][]entry, J), k: make([]int, J), n: make([]int, J), diff: make([]int, J),
		values: make([]float64, J), terms: make([]float64, J), used: make([]int32, pr.nNodes), multi: make([]int32, pr.nNodes),
		marked: make([]bool, J), sign: 1}
	if !pr.pm.Increasing() {
		ls.sign = -1
	}
	for i := 0; i < J; i++ {
		ls.rows[i] = slices.Clone(st.row(i))
		for _, e := range ls.rows[i] {
			ls.used[e.node] += e.gpus
		}
		ls.refresh(i)
		ls.mark(i, +1)
	}
	ls.initTransfers()
	if pr.nNodes > manyNodes {
		ls.free = newFreeNodes(pr.caps)
		for c := int32(0); c < int32(pr.nNodes); c++ {
			ls.refile(c)
		}
	}
	ls.recenter()
	return ls
}

// recenter recomputes the terms and their sum at the centre of the
// current values (a no-op on the centre for all but the centred form of
// the power mean, whose terms of the current state then stay at most 1).
func (ls *local) recenter() {
	ls.center = ls.pr.pm.Center(ls.values)
	ls.sum = 0
	for i, v := range ls.values {
		ls.terms[i] = ls.pr.pm.Term(v, ls.center)
		ls.sum += ls.terms[i]
	}
}

// termAt is job i's term on k GPUs over n nodes at the current centre.
func (ls *local) termAt(i, n, k int, changed bool) float64 {
	return ls.pr.pm.Term(ls.pr.valueAt(i, n, k, changed), ls.center)
}

// refresh recomputes row i's statistics and term (not the sum).
func (ls *local) refresh(i int) {
	r := ls.rows[i]
	ls.k[i], ls.n[i] = rowStats(r)
	ls.diff[i] = rowDiff(r, ls.pr.base.row(i))
	ls.values[i] = ls.pr.valueAt(i, ls.n[i], ls.k[i], ls.diff[i] > 0)
	ls.terms[i] = ls.pr.pm.Term(ls.values[i], ls.center)
}

// rowDiff counts the nodes where rows r and base (both sorted by node,
// with positive entries) hold different GPUs, a node missing from one
// counting as 0 there.
func rowDiff(r, base []entry) int {
	d, x, y := 0, 0, 0
	for x < len(r) || y < len(base) {
		switch {
		case y == len(base) || (x < len(r) && r[x].node < base[y].node):
			d++ // only in r
			x++
		case x == len(r) || base[y].node < r[x].node:
			d++ // only in base
			y++
		default:
			if r[x].gpus != base[y].gpus {
				d++
			}
			x++
			y++
		}
	}
	return d
}

// mark adds (+1) or removes (−1) row i's multi-node marks.
func (ls *local) mark(i int, d int32) {
	if d > 0 && (ls.marked[i] || ls.n[i] <= 1) || d < 0 && !ls.marked[i] {
		return
	}
	for _, e := range ls.rows[i] {
		ls.multi[e.node] += d
		ls.refile(e.node)
	}
	ls.marked[i] = d > 0
}

// refile updates node c in the free-node index (large clusters only).
func (ls *local) refile(c int32) {
	if ls.free != nil {
		ls.free.update(c, ls.pr.caps[c]-ls.used[c], ls.multi[c] == 0)
	}
}

// change is the effect on row i of adding d (±1) GPUs on node c.
func (ls *local) change(i int, c int32, d int32) (n, k, diff int) {
	return ls.changeWith(i, gpusOn(ls.rows[i], c), gpusOn(ls.pr.base.row(i), c), d)
}

// changeWith is change for a node where row i has v GPUs and the current
// allocation b.
func (ls *local) changeWith(i int, v, b, d int32) (n, k, diff int) {
	nv := v + d
	n, k, diff = ls.n[i], ls.k[i]+int(d), ls.diff[i]
	if v == 0 && nv > 0 {
		n++
	} else if v > 0 && nv == 0 {
		n--
	}
	if v == b && nv != b {
		diff++
	} else if v != b && nv == b {
		diff--
	}
	return n, k, diff
}

// conflicting reports whether node c holds a multi-node job other than
// job i (interference avoidance keeps a multi-node job off it).
func (ls *local) conflicting(i int, c int32) bool {
	self := int32(0)
	if ls.marked[i] {
		self = 1
	}
	return ls.multi[c]-self > 0
}

// conflicts counts the nodes of row i that are conflicting.
func (ls *local) conflicts(i int) int {
	n := 0
	for _, e := range ls.rows[i] {
		if ls.conflicting(i, e.node) {
			n++
		}
	}
	return n
}

// allowedWith checks job i's caps and interference avoidance for a row
// with n nodes and k GPUs that occupies its current nodes, minus node gone
// if its last GPU leaves (−1: none), plus node added (−1: none), given the
// current row's conflicting nodes (see conflicts) and the GPUs addedV it
// has on node added: a row that only changes on node gone has the same
// conflicts but for gone's.
func (ls *local) allowedWith(i, n, k, conflicts int, gone, added, addedV int32) bool {
	pr := ls.pr
	if pr.overCaps(i, n, k) {
		return false
	}
	if !pr.avoid || n <= 1 {
		return true
	}
	if gone >= 0 && ls.conflicting(i, gone) && gpusOn(ls.rows[i], gone) > 0 {
		conflicts--
	}
	if conflicts > 0 {
		return false
	}
	if added >= 0 && addedV == 0 && ls.multi[added] > 0 {
		return false
	}
	return true
}

// delta is the change of the power sum, signed so that positive is better.
func (ls *local) gain(oldTerms, newTerms float64) float64 {
	return ls.sign * (newTerms - oldTerms)
}

// move is a candidate: job from gives up a GPU on node a (from < 0: none),
// job to gains one on node b (to < 0: none).
type move struct {
	from int
	a    int32
	to   int
	b    int32
}

// candidates lists the nodes where job i might gain a GPU: every node with
// room on small clusters; on large ones the job's current and previous
// nodes and the free nodes with the most room.
func (ls *local) candidates(i int, buf []int32) []int32 {
	pr := ls.pr
	buf = buf[:0]
	if pr.nNodes <= manyNodes {
		for c := 0; c < pr.nNodes; c++ {
			if ls.used[c] < pr.caps[c] {
				buf = append(buf, int32(c))
			}
		}
		return buf
	}
	for _, e := range ls.rows[i] {
		if ls.used[e.node] < pr.caps[e.node] {
			buf = append(buf, e.node)
		}
	}
	for _, e := range pr.base.row(i) {
		if ls.used[e.node] < pr.caps[e.node] && !slices.Contains(buf, e.node) {
			buf = append(buf, e.node)
		}
	}
	// The freest node, and the freest one no multi-node job uses.
	best, bestClean := ls.free.best()
	for _, c := range []int32{best, bestClean} {
		if c >= 0 && !slices.Contains(buf, c) {
			buf = append(buf, c)
		}
	}
	return buf
}

// receivers picks the jobs transfers may go to this sweep.
func (ls *local) receivers() []int {
	defer ls.indexReceivers()
	J := ls.pr.nJobs
	ls.recv = ls.recv[:0]
	if J <= manyJobs {
		for r := 0; r < J; r++ {
			ls.recv = append(ls.recv, r)
		}
		return ls.recv
	}
	type cand struct {
		r int
		g float64
	}
	var top []cand
	for r := 0; r < J; r++ {
		if ls.k[r]+1 > ls.pr.maxGPUs[r] {
			continue
		}
		// Gain of one more GPU on a node it already uses, or on a new one.
		g := ls.gain(ls.terms[r], ls.termAt(r, max(ls.n[r], 1), ls.k[r]+1, true))
		if ls.n[r] < ls.pr.maxNodes[r] || ls.pr.maxNodes[r] <= 0 {
			g = max(g, ls.gain(ls.terms[r], ls.termAt(r, ls.n[r]+1, ls.k[r]+1, true)))
		}
		if len(top) < nReceivers || g > top[len(top)-1].g {
			// Insert after the gains at least g (in cmp's order): the
			// order of a stable sort by descending gain.
			pos, _ := slices.BinarySearchFunc(top, g, func(c cand, g float64) int {
				if cmp.Compare(c.g, g) >= 0 {
					return -1
				}
				return 1
			})
			top = slices.Insert(top, pos, cand{r, g})
			if len(top) > nReceivers {
				top = top[:nReceivers]
			}
		}
	}
	for _, c := range top {
		ls.recv = append(ls.recv, c.r)
	}
	slices.Sort(ls.recv)
	return ls.recv
}

// sweep applies, for each job in turn, its best improving move; it
// reports whether anything changed.
func (ls *local) sweep() bool {
	pr := ls.pr
	changed := false
	ls.receivers()
	ls.refreshReceivers()
	var cand []int32
	for i := 0; i < pr.nJobs; i++ {
		best, bestGain := move{-1, -1, -1, -1}, minGain*max(1, abs(ls.sum))
		try := func(m move, g float64) {
			if g > bestGain {
				best, bestGain = m, g
			}
		}
		cand = ls.candidates(i, cand)
		// Row i's GPUs and the current allocation's on each candidate,
		// and its conflicting nodes: the trial moves below change the
		// row only on the node a GPU leaves, which is never the
		// candidate it goes to.
		ls.candV, ls.candB = ls.candV[:0], ls.candB[:0]
		for _, b := range cand {
			ls.candV = append(ls.candV, gpusOn(ls.rows[i], b))
			ls.candB = append(ls.candB, gpusOn(pr.base.row(i), b))
		}
		conflicts := ls.conflicts(i)
		ti := ls.terms[i]
		memo := termMemo{n0: ls.n[i], k0: ls.k[i]}
		ls.classify(i, cand)
		// Add one GPU.
		for x, b := range cand {
			n, k, d := ls.changeWith(i, ls.candV[x], ls.candB[x], +1)
			if ls.allowedWith(i, n, k, conflicts, -1, b, ls.candV[x]) {
				try(move{-1, -1, i, b}, ls.gain(ti, memo.at(ls, i, n, k, d > 0)))
			}
		}
		// Trial moves of each of the row's GPUs. The row itself is not
		// edited: a trial changes only its statistics (n, k, diff, which
		// changeWith reads), restored after it, and the GPUs the current
		// allocation has on each node are read alongside the row, both
		// being sorted by node.
		n0, k0, d0 := ls.n[i], ls.k[i], ls.diff[i]
		base, y := pr.base.row(i), 0
		for _, e := range ls.rows[i] {
			a := e.node
			for y < len(base) && base[y].node < a {
				y++
			}
			b0 := int32(0)
			if y < len(base) && base[y].node == a {
				b0 = base[y].gpus
			}
			n, k, d := ls.changeWith(i, e.gpus, b0, -1)
			gone := int32(-1)
			movedConflicts := conflicts
			if e.gpus == 1 {
				gone = a
				if ls.conflicting(i, a) {
					movedConflicts--
				}
			}
			termRemoved := memo.at(ls, i, n, k, d > 0)
			// Remove it.
			if ls.allowedWith(i, n, k, conflicts, gone, -1, 0) {
				try(move{i, a, -1, -1}, ls.gain(ti, termRemoved))
			}
			// Move it to another node: movedConflicts already counts
			// the conflicting nodes of the row without this GPU, so no
			// node is given as gone.
			ls.n[i], ls.k[i], ls.diff[i] = n, k, d
			if x, g := ls.bestMove(i, a, cand, movedConflicts, ti, &memo); x >= 0 {
				try(move{i, a, i, cand[x]}, g)
			}
			ls.n[i], ls.k[i], ls.diff[i] = n0, k0, d0
			// Transfer it to another job on the same node.
			if r, g := ls.bestTransfer(i, a, ls.gain(ti, termRemoved)); r >= 0 {
				try(move{i, a, r, a}, g)
			}
		}
		if best.from >= 0 || best.to >= 0 {
			ls.apply(best)
			ls.refreshReceivers()
			changed = true
		}
	}
	return changed
}

// A move of one of job i's GPUs to candidate node b has an effect on the
// row's statistics, and is allowed or not, by three things only: whether
// the row holds no GPU on b (one more node), how b's GPUs compare with
// the current allocation's there (the diff's change), and whether b holds
// a multi-node job (for a new node, under interference avoidance). The
// candidates of a job's turn fall into the 12 classes of these, fixed for
// the turn (the rows change only when a move is applied, after it); the
// first candidate of a class is the one a scan in candidate order picks
// among equals, so each trial evaluates a class once instead of every
// candidate.

// moveClasses is the number of move classes (see classify).
const moveClasses = 12

// moveClass holds the first two candidates (indices into the turn's
// candidate list) of a class, in order; two, because the node a trial
// takes the GPU from is skipped.
type moveClass struct {
	x [2]int32
	n int8
}

// classify files job i's candidates cand (with ls.candV and ls.candB
// filled) into ls.classes: those with a free GPU, by (one more node, the
// diff's change, a new node holding a multi-node job).
func (ls *local) classify(i int, cand []int32) {
	clear(ls.classes[:])
	for x, b := range cand {
		if ls.used[b] >= ls.pr.caps[b] {
			continue
		}
		v, base := ls.candV[x], ls.candB[x]
		key := 1 // the diff unchanged
		switch {
		case v == base:
			key = 2 // one more node where the row differs
		case v+1 == base:
			key = 0 // one fewer
		}
		if v == 0 {
			key += 3
			if ls.multi[b] > 0 {
				key += 6
			}
		}
		c := &ls.classes[key]
		if c.n < 2 {
			c.x[c.n] = int32(x)
			c.n++
		}
	}
}

// bestMove is the best move of one of job i's GPUs from node a to another
// candidate (cand, classified by classify), for a trial whose statistics
// are in ls.n, ls.k and ls.diff and whose row has movedConflicts
// conflicting nodes: the candidate's index and the move's gain for job i
// (term ti before), −1 if no candidate may take it or every gain is NaN.
// It is the first candidate, in order, of the largest gain, as a scan of
// every candidate finds it.
func (ls *local) bestMove(i int, a int32, cand []int32, movedConflicts int, ti float64, memo *termMemo) (int, float64) {
	bx, bg := -1, 0.0
	for k := range ls.classes {
		c := &ls.classes[k]
		if c.n == 0 {
			continue
		}
		x := int(c.x[0])
		if cand[x] == a {
			if c.n < 2 {
				continue
			}
			x = int(c.x[1])
		}
		n2, k2, d2 := ls.changeWith(i, ls.candV[x], ls.candB[x], +1)
		if !ls.allowedWith(i, n2, k2, movedConflicts, -1, cand[x], ls.candV[x]) {
			continue
		}
		g := ls.gain(ti, memo.at(ls, i, n2, k2, d2 > 0))
		if math.IsNaN(g) {
			continue
		}
		if bx < 0 || g > bg || (g == bg && x < bx) {
			bx, bg = x, g
		}
	}
	return bx, bg
}

// termMemo remembers job i's terms during one job's turn in a sweep,
// where they do not change (the centre moves only when a move is
// applied): every trial move changes the row by one GPU or moves one, so
// the terms asked for are at n0 − 1 to n0 + 1 nodes and k0 − 1 to k0 + 1
// GPUs, changed or not, 18 of them, each computed once.
type termMemo struct {
	n0, k0 int
	have   uint32
	terms  [18]float64
}

// at is ls.termAt(i, n, k, changed), computed once per memo.
func (m *termMemo) at(ls *local, i, n, k int, changed bool) float64 {
	dn, dk := n-m.n0+1, k-m.k0+1
	if dn < 0 || dn > 2 || dk < 0 || dk > 2 {
		return ls.termAt(i, n, k, changed)
	}
	slot := (dn*3 + dk) * 2
	if changed {
		slot++
	}
	if m.have&(1<<slot) == 0 {
		m.terms[slot] = ls.termAt(i, n, k, changed)
		m.have |= 1 << slot
	}
	return m.terms[slot]
}

// setGPUs returns row r with node c set to v GPUs (removed if 0), sorted.
func setGPUs(r []entry, c, v int32) []entry {
	for x := range r {
		if r[x].node == c {
			if v == 0 {
				return append(r[:x], r[x+1:]...)
			}
			r[x].gpus = v
			return r
		}
		if r[x].node > c {
			if v == 0 {
				return r
			}
			r = append(r, entry{})
			copy(r[x+1:], r[x:])
			r[x] = entry{c, v}
			return r
		}
	}
	if v == 0 {
		return r
	}
	return append(r, entry{c, v})
}

func (ls *local) apply(m move) {
	touched := []int{}
	if m.from >= 0 {
		touched = append(touched, m.from)
	}
	if m.to >= 0 && m.to != m.from {
		touched = append(touched, m.to)
	}
	for _, i := range touched {
		ls.mark(i, -1)
		ls.sum -= ls.terms[i]
	}
	if m.from >= 0 {
		v := gpusOn(ls.rows[m.from], m.a) - 1
		ls.rows[m.from] = setGPUs(ls.rows[m.from], m.a, v)
		if v == 0 {
			ls.jobsOn.remove(m.a, int32(m.from))
		}
		ls.used[m.a]--
		ls.refile(m.a)
	}
	if m.to >= 0 {
		v := gpusOn(ls.rows[m.to], m.b)
		ls.rows[m.to] = setGPUs(ls.rows[m.to], m.b, v+1)
		if v == 0 {
			ls.jobsOn.add(m.b, int32(m.to))
		}
		ls.used[m.b]++
		ls.refile(m.b)
	}
	for _, i := range touched {
		ls.refresh(i)
		ls.sum += ls.terms[i]
		ls.mark(i, +1)
	}
	if ls.pr.pm.Centered() {
		ls.recenter()
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
