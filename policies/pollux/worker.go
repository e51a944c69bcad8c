package pollux

import (
	"math"
	mathbits "math/bits"
	"math/rand/v2"
	"slices"
)

// worker holds what one goroutine of the search needs to mutate and repair
// children: its own random stream and scratch space. Per-node scratch is
// stamped, so it need not be cleared between children.
type worker struct {
	// The random state lives in the worker, away from other workers'
	// (a separate small allocation for each could share a cache line,
	// and every draw writes it).
	_    [64]byte
	pcg  rand.PCG
	rng  *rand.Rand
	bits bits

	stamp []uint32 // per node: generation the entries below belong to
	gen   uint32
	used  []int32 // per node: GPUs taken
	owner []int32 // per node: multi-node job holding it, or -1

	closed   []uint64  // scratch: a bit per node without a free GPU
	openUpTo []int32   // scratch: open nodes below each word of closed
	open     []bool    // scratch: whether each node of a row is open
	row      []entry   // scratch: one row
	perm     []int     // scratch: a permutation of a row
	hit      []int32   // scratch: nodes chosen for raising
	cdf      []float64 // scratch: CDF of the number of raised nodes
	values   []float64 // scratch: the jobs' values in the power mean
	reduced  state     // after the row mutations
	raised   state     // after raising, the input of repair
	_        [64]byte
}

// maxRaise bounds the open nodes one row raises (the chance of more than
// 8 with a mean of 1 is below 10⁻⁵).
const maxRaise = 8

// tinyDenominator keeps the binomial recurrence of the raise count finite
// when a single node is open (1 − 1/m = 0).
const tinyDenominator = 1e-300

func newWorker(nodes int) *worker {
	words := (nodes + 63) / 64
	w := &worker{stamp: make([]uint32, nodes), used: make([]int32, nodes), owner: make([]int32, nodes),
		closed: make([]uint64, words), openUpTo: make([]int32, words+1)}
	w.rng = rand.New(&w.pcg)
	w.bits.rng = w.rng
	return w
}

// reseed points the worker's stream at (a, b); every child gets its own
// stream, so results do not depend on which worker made it.
func (w *worker) reseed(a, b uint64) {
	w.pcg.Seed(a, b)
	w.bits.n = 0
}

// next starts a new generation of the per-node scratch.
func (w *worker) next() {
	w.gen++
	if w.gen == 0 { // wrapped: clear for real
		clear(w.stamp)
		w.gen = 1
	}
}

func (w *worker) usedOn(c int32) int32 {
	if w.stamp[c] != w.gen {
		w.stamp[c], w.used[c], w.owner[c] = w.gen, 0, -1
	}
	return w.used[c]
}

// startOpen starts a mutation's open set: every node with a GPU open.
func (w *worker) startOpen(pr *problem) {
	clear(w.closed)
	for _, c := range pr.empty {
		w.closed[c>>6] |= 1 << (uint(c) & 63)
	}
}

// addUsed adds v GPUs taken on node c (of pr), closing it in the open set
// when its last free GPU goes.
func (w *worker) addUsed(pr *problem, c, v int32) {
	if w.stamp[c] != w.gen {
		w.stamp[c], w.used[c], w.owner[c] = w.gen, 0, -1
	}
	before := w.used[c]
	w.used[c] += v
	if before < pr.caps[c] && w.used[c] >= pr.caps[c] {
		w.closed[c>>6] |= 1 << (uint(c) & 63)
	}
}

// isOpen reports whether node c has a free GPU in this generation.
func (w *worker) isOpen(pr *problem, c int32) bool {
	u := int32(0)
	if w.stamp[c] == w.gen {
		u = w.used[c]
	}
	return u < pr.caps[c]
}

// countOpen returns the number of open nodes, those with a free GPU (the
// nodes of no capacity and those addUsed closed are not), and readies
// openAt: the open nodes below each 64-node word of the closed bitmap.
// Its cost is in words of 64 nodes, not in the nodes the rows touch (a
// list of the closed nodes, sorted, was a sixth of a 1,000-node replay's
// CPU, then a tenth when ordered by a bitmap).
func (w *worker) countOpen(pr *problem) int {
	n := int32(0)
	for k, word := range w.closed {
		w.openUpTo[k] = n
		valid := uint64(1)<<uint(min(64, pr.nNodes-64*k)) - 1 // (1<<64 is 0)
		n += int32(mathbits.OnesCount64(^word & valid))
	}
	w.openUpTo[len(w.closed)] = n
	return int(n)
}

// openAt is the r-th open node (from 0, in node order), 0 ≤ r <
// countOpen: in the word below which fewer than r+1 nodes are open, the
// (r − those)-th clear bit.
func (w *worker) openAt(r int32) int32 {
	lo, hi := 0, len(w.closed)-1
	for lo < hi { // the last word k with openUpTo[k] ≤ r
		mid := int(uint(lo+hi+1) >> 1)
		if w.openUpTo[mid] <= r {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	free := ^w.closed[lo]
	for skip := r - w.openUpTo[lo]; skip > 0; skip-- {
		free &= free - 1
	}
	return int32(lo<<6 + mathbits.TrailingZeros64(free))
}

func (w *worker) ownerOf(c int32) int32 {
	w.usedOn(c)
	return w.owner[c]
}

// mutate applies the reference's three mutations to the crossover of head
// and tail (head's rows before cut, tail's from it), leaving the result in
// w.raised: reset a row to the current allocation (p = 0.1 per row);
// zero entries of a row (each with p = 0.1, in a row chosen with p = 0.1);
// raise entries at random towards node capacity: every node with a free
// GPU with probability 1/(such nodes), and a node the job already uses
// also with probability 1/(its nodes with a free GPU).
func (w *worker) mutate(pr *problem, head, tail *state, cut int) {
	J := pr.nJobs
	w.next()
	w.startOpen(pr)
	red := &w.reduced
	red.begin()
	for i := 0; i < J; i++ {
		r := head.row(i)
		if i >= cut {
			r = tail.row(i)
		}
		if w.bits.chance(0.1) {
			r = pr.base.row(i)
		}
		zero := w.bits.chance(0.1)
		for _, e := range r {
			if zero && w.bits.chance(0.1) {
				continue
			}
			red.ents = append(red.ents, e)
			w.addUsed(pr, e.node, e.gpus)
		}
		red.endRow()
	}
	// The open nodes, those with a free GPU, are every node but the
	// closed ones (countOpen); the r-th is openAt(r).
	m := w.countOpen(pr)
	out := &w.raised
	if m == 0 {
		out.copyFrom(red)
		return
	}
	// The number of open nodes a row raises is Binomial(m, 1/m): draw it
	// from its CDF, then pick that many distinct open nodes.
	p1 := 1 / float64(m)
	w.cdf = w.cdf[:0]
	acc, pk := 0.0, math.Pow(1-p1, float64(m))
	for k := 0; k <= min(m, maxRaise); k++ {
		acc += pk
		w.cdf = append(w.cdf, acc)
		pk *= float64(m-k) / float64(k+1) * p1 / (1 - p1 + tinyDenominator)
	}
	out.begin()
	for i := 0; i < J; i++ {
		r := red.row(i)
		// Open nodes raised with probability p1 each.
		w.hit = w.hit[:0]
		u := w.rng.Float64()
		count := 0
		for count < len(w.cdf)-1 && u >= w.cdf[count] {
			count++
		}
		for len(w.hit) < count {
			c := w.openAt(int32(w.rng.IntN(m)))
			if !slices.Contains(w.hit, c) {
				w.hit = append(w.hit, c)
			}
		}
		if len(w.hit) > 1 {
			slices.Sort(w.hit)
		}
		nOwn := 0
		w.open = w.open[:0]
		for _, e := range r {
			open := w.isOpen(pr, e.node)
			w.open = append(w.open, open)
			if open {
				nOwn++
			}
		}
		pOwn := 1 / float64(nOwn) // (used only if nOwn > 0)
		// Merge the row with the hit nodes, raising where chosen.
		h := 0
		for x, e := range r {
			for h < len(w.hit) && w.hit[h] < e.node {
				w.appendRaised(out, w.hit[h], 0, pr.caps[w.hit[h]])
				h++
			}
			raise := h < len(w.hit) && w.hit[h] == e.node
			if raise {
				h++
			}
			if !raise && w.open[x] && w.bits.chance(pOwn) {
				raise = true
			}
			if raise {
				w.appendRaised(out, e.node, e.gpus, pr.caps[e.node])
			} else {
				out.ents = append(out.ents, e)
			}
		}
		for ; h < len(w.hit); h++ {
			w.appendRaised(out, w.hit[h], 0, pr.caps[w.hit[h]])
		}
		out.endRow()
	}
}

// appendRaised appends node c raised from v to a uniform value in
// [v, capacity], dropping it if that is 0.
func (w *worker) appendRaised(out *state, c, v, cap32 int32) {
	if v < cap32 {
		v += int32(w.rng.IntN(int(cap32-v) + 1))
	}
	if v > 0 {
		out.ents = append(out.ents, entry{c, v})
	}
}

// repair writes into out a feasible version of in, giving way in job
// order: interference avoidance (the first multi-node job on a node keeps
// it), per-job GPU and node caps (trimmed over the job's nodes in random
// order), node capacity. It returns the fitness and a hash of the result,
// computed in the same pass.
func (w *worker) repair(pr *problem, in, out *state) (fit float64, hash uint64) {
	J := pr.nJobs
	w.next()
	out.begin()
	hash = 14695981039346656037
	w.values = w.values[:0]
	for i := 0; i < J; i++ {
		w.row = append(w.row[:0], in.row(i)...)
		k, n := rowStats(w.row)
		if pr.avoid && n > 1 {
			kept := w.row[:0]
			for _, e := range w.row {
				if o := w.ownerOf(e.node); o < 0 {
					w.owner[e.node] = int32(i)
					kept = append(kept, e)
				} else if o == int32(i) {
					kept = append(kept, e)
				}
			}
			w.row = kept
			k, n = rowStats(w.row)
		}
		if pr.overCaps(i, n, k) {
			w.trim(pr, i)
		}
		start := len(out.ents)
		k, n = 0, 0
		for _, e := range w.row {
			v := min(e.gpus, pr.caps[e.node]-w.usedOn(e.node))
			if v <= 0 {
				continue
			}
			w.used[e.node] += v
			out.ents = append(out.ents, entry{e.node, v})
			k += int(v)
			n++
			hash = (hash ^ uint64(e.node)<<8 ^ uint64(v)) * 1099511628211
		}
		out.endRow()
		hash = (hash ^ 0xff) * 1099511628211
		w.values = append(w.values, pr.valueAt(i, n, k, !equalRows(out.ents[start:], pr.base.row(i))))
	}
	return pr.pm.Mean(w.values), hash
}

// trim cuts w.row down to job i's GPU and node caps, visiting its nodes in
// random order, and keeps it sorted by node.
func (w *worker) trim(pr *problem, i int) {
	w.perm = w.perm[:0]
	for x := range w.row {
		w.perm = append(w.perm, x)
	}
	w.rng.Shuffle(len(w.perm), func(a, b int) { w.perm[a], w.perm[b] = w.perm[b], w.perm[a] })
	left, nodes := int32(pr.maxGPUs[i]), 0
	for _, x := range w.perm {
		if left == 0 || (pr.maxNodes[i] > 0 && nodes >= pr.maxNodes[i]) {
			w.row[x].gpus = 0
			continue
		}
		v := min(w.row[x].gpus, left)
		w.row[x].gpus = v
		left -= v
		nodes++
	}
	w.row = slices.DeleteFunc(w.row, func(e entry) bool { return e.gpus == 0 })
}
